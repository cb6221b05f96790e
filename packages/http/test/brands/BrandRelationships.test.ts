/**
 * The brand relationship endpoints of CONTRACT §5 on both stores: each side lists what it should
 * (a provider its own, a Brand Owner those of its brands), only the Brand Owner decides, only a
 * pending relationship can be decided (409 `invalid_state_transition`), and `Brands.requireApproved`,
 * which `POST /v1/sids` will call with its `brand_id`, answers as GET does.
 */
import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { BrandJson, Brands, Permission } from "@sendline/core"
import type { Account } from "@sendline/core"
import { Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

const decide = (
  relationshipId: string,
  decision: "approve" | "reject",
  key: string,
  headers: Record<string, string> = {}
) => Http.request("POST", `/v1/brand-relationships/${relationshipId}/${decision}`, { key, headers })
const listRelationships = (key: string, query = "") => Http.request("GET", `/v1/brand-relationships${query}`, { key })
const idsOf = (reply: Http.Reply) => reply.json.data.map((r: { id: string }) => r.id)

/** The principal of `caller`'s key (every permission), for calling core directly. */
const principalOf = (caller: TestAccounts.Caller): Account.Principal => ({
  accountId: caller.accountId,
  keyId: caller.keyId,
  permissions: new Set(Permission.all)
})

/** What `effect` came to: "ok", or its error's code. */
const outcome = <A, E extends { readonly code: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => result._tag === "Right" ? "ok" : result.left.code)

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(
    `brand relationships on ${store.name}`,
    (it) => {
      it.effect("the provider lists its own relationships, the Brand Owner those of its brands; each reads them; status filters", () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const acn = TestBrands.freshAcn()
          const owner = yield* TestBrands.newBrandOwner(acn)
          const first = yield* TestBrands.submitBrand(provider, acn)
          const second = yield* TestBrands.submitBrand(provider, acn)
          const elsewhere = yield* TestBrands.submitBrand(provider, TestBrands.freshAcn())
          const other = yield* TestBrands.submitBrand(yield* TestAccounts.newCaller(), acn)

          const mine = yield* listRelationships(provider.key)
          assert.strictEqual(mine.status, 200, mine.text)
          const page = Replies.decode(Envelope.ListEnvelope(BrandJson.RelationshipJson), mine.json)
          assert.deepStrictEqual(page.data.map((r) => r.id), [elsewhere, second, first].map((s) => s.relationshipId))
          assert.deepStrictEqual(page.data[0]!.provider, {
            account_id: provider.accountId,
            name: "Test Org",
            type: "cpaas"
          })
          assert.deepStrictEqual(page.data[0]!.brand.id, elsewhere.brandId)
          assert.strictEqual(page.data[0]!.status, "pending")
          assert.isNull(page.data[0]!.decided_at)

          const owners = yield* listRelationships(owner.key, "?status=pending")
          assert.deepStrictEqual(idsOf(owners), [other, second, first].map((s) => s.relationshipId))
          assert.deepStrictEqual(idsOf(yield* listRelationships(owner.key, "?status=approved")), [])
          Replies.assertError(yield* listRelationships(owner.key, "?status=maybe"), 400, "invalid_parameter", "status")

          for (const key of [provider.key, owner.key]) {
            const read = yield* Http.request("GET", `/v1/brand-relationships/${first.relationshipId}`, { key })
            assert.strictEqual(read.status, 200, read.text)
            assert.deepStrictEqual(read.json.data, page.data[2])
          }
          const paged = yield* listRelationships(owner.key, "?status=pending&page_size=2")
          assert.strictEqual(paged.json.pagination.has_more, true)
          const rest = yield* listRelationships(
            owner.key,
            `?status=pending&page_size=2&cursor=${paged.json.pagination.next_cursor}`
          )
          assert.deepStrictEqual(idsOf(rest), [first.relationshipId])
          assert.deepStrictEqual(rest.json.pagination, { has_more: false, next_cursor: null, page_size: 2 })
          Replies.assertError(
            yield* listRelationships(owner.key, `?status=approved&cursor=${paged.json.pagination.next_cursor}`),
            400,
            "invalid_cursor"
          )
        }))

      it.effect("approve: the Brand Owner moves pending → approved with decided_at; again, or reject after → 409 invalid_state_transition", () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const acn = TestBrands.freshAcn()
          const owner = yield* TestBrands.newBrandOwner(acn)
          const { relationshipId } = yield* TestBrands.submitBrand(provider, acn)
          const approved = yield* decide(relationshipId, "approve", owner.key)
          assert.strictEqual(approved.status, 200, approved.text)
          const { data } = Replies.decode(Envelope.Envelope(BrandJson.RelationshipJson), approved.json)
          assert.strictEqual(data.status, "approved")
          assert.strictEqual(data.decided_at, new Date(TestServer.start).toISOString().replace("Z", "+00:00"))
          Replies.assertError(yield* decide(relationshipId, "approve", owner.key), 409, "invalid_state_transition")
          Replies.assertError(yield* decide(relationshipId, "reject", owner.key), 409, "invalid_state_transition")
          const read = yield* Http.request("GET", `/v1/brand-relationships/${relationshipId}`, { key: provider.key })
          assert.strictEqual(read.json.data.status, "approved")
        }))

      it.effect("reject: the Brand Owner moves pending → rejected; approve after → 409; the provider still reads its relationship", () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const acn = TestBrands.freshAcn()
          const owner = yield* TestBrands.newBrandOwner(acn)
          const { relationshipId } = yield* TestBrands.submitBrand(provider, acn)
          const rejected = yield* decide(relationshipId, "reject", owner.key)
          assert.strictEqual(rejected.status, 200, rejected.text)
          assert.strictEqual(rejected.json.data.status, "rejected")
          Replies.assertError(yield* decide(relationshipId, "approve", owner.key), 409, "invalid_state_transition")
          const read = yield* Http.request("GET", `/v1/brand-relationships/${relationshipId}`, { key: provider.key })
          assert.strictEqual(read.json.data.status, "rejected")
        }))

      it.effect("only the Brand Owner decides: the provider → 403 permission_denied, another account → 404; the relationship stays pending", () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const acn = TestBrands.freshAcn()
          yield* TestBrands.newBrandOwner(acn)
          const otherOwner = yield* TestBrands.newBrandOwner(TestBrands.freshAcn())
          const { relationshipId } = yield* TestBrands.submitBrand(provider, acn)
          for (const decision of ["approve", "reject"] as const) {
            Replies.assertError(yield* decide(relationshipId, decision, provider.key), 403, "permission_denied")
            Replies.assertError(yield* decide(relationshipId, decision, otherOwner.key), 404, "not_found")
          }
          Replies.assertError(
            yield* decide("rel_00000000000000000000000000", "approve", provider.key),
            404,
            "not_found"
          )
          Replies.assertError(
            yield* Http.request("GET", `/v1/brand-relationships/${relationshipId}`, { key: otherOwner.key }),
            404,
            "not_found"
          )
          const read = yield* Http.request("GET", `/v1/brand-relationships/${relationshipId}`, { key: provider.key })
          assert.strictEqual(read.json.data.status, "pending")
        }))

      it.effect("approve with an Idempotency-Key: the retry replays the first answer, not a 409", () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const acn = TestBrands.freshAcn()
          const owner = yield* TestBrands.newBrandOwner(acn)
          const { relationshipId } = yield* TestBrands.submitBrand(provider, acn)
          const headers = { "idempotency-key": `approve-${relationshipId}` }
          const first = yield* decide(relationshipId, "approve", owner.key, headers)
          const again = yield* decide(relationshipId, "approve", owner.key, headers)
          assert.strictEqual(first.status, 200, first.text)
          assert.strictEqual(again.text, first.text)
          assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
        }))

      it.effect("Brands.requireApproved (POST /v1/sids' brand_id): pending → 403 brand_relationship_pending; approved → the brand; rejected, owner only, unknown → 404", () =>
        Effect.gen(function*() {
          const brands = yield* Brands.Brands
          const provider = yield* TestAccounts.newCaller()
          const acn = TestBrands.freshAcn()
          const owner = yield* TestBrands.newBrandOwner(acn)
          const pending = yield* TestBrands.submitBrand(provider, acn)
          const toReject = yield* TestBrands.submitBrand(provider, acn)
          const approved = yield* TestBrands.submitBrand(provider, acn)
          assert.strictEqual((yield* decide(toReject.relationshipId, "reject", owner.key)).status, 200)
          assert.strictEqual((yield* decide(approved.relationshipId, "approve", owner.key)).status, 200)
          const as = principalOf(provider)
          assert.strictEqual(yield* outcome(brands.requireApproved(as, pending.brandId)), "brand_relationship_pending")
          assert.strictEqual((yield* brands.requireApproved(as, approved.brandId)).id, approved.brandId)
          assert.strictEqual(yield* outcome(brands.requireApproved(as, toReject.brandId)), "not_found")
          assert.strictEqual(yield* outcome(brands.requireApproved(principalOf(owner), approved.brandId)), "not_found")
          assert.strictEqual(
            yield* outcome(brands.requireApproved(as, "brand_00000000000000000000000000")),
            "not_found"
          )
          assert.strictEqual(
            yield* outcome(brands.requireApproved(principalOf(yield* TestAccounts.newCaller()), approved.brandId)),
            "not_found"
          )
        }))
    }
  )
}
