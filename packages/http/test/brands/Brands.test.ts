/**
 * The brand endpoints of CONTRACT §5 on both stores: `POST /v1/brands` and its checks, `GET` and
 * `PATCH /v1/brands/{id}` and the list, and who sees a brand: its approved provider reads and
 * changes it, its Brand Owner reads it, a pending relationship is 403 `brand_relationship_pending`,
 * a rejected one or none is 404.
 */
import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { BrandJson, EventStore, Idempotency, MailStore } from "@sendline/core"
import { Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestIdempotency from "../support/TestIdempotency.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

const createBrand = (json: unknown, options: Omit<Http.RequestOptions, "json"> = {}) =>
  Http.request("POST", "/v1/brands", { ...options, json })
const getBrand = (id: string, key: string) => Http.request("GET", `/v1/brands/${id}`, { key })
const patchBrand = (id: string, key: string, json: unknown) => Http.request("PATCH", `/v1/brands/${id}`, { key, json })
const decide = (relationshipId: string, decision: "approve" | "reject", key: string) =>
  Http.request("POST", `/v1/brand-relationships/${relationshipId}/${decision}`, { key })

/** A brand submitted by a new provider, with a Brand Owner for it: the relationship pending. */
const pendingBrand = Effect.gen(function*() {
  const provider = yield* TestAccounts.newCaller()
  const acn = TestBrands.freshAcn()
  const owner = yield* TestBrands.newBrandOwner(acn)
  return { provider, owner, acn, ...(yield* TestBrands.submitBrand(provider, acn)) }
})

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`brands on ${store.name}`, (it) => {
    it.effect("POST /v1/brands → 201 with exactly INTERFACE.md's fields, verified, the identifier normalised; brand.verified in the outbox", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const acn = TestBrands.freshAcn()
        const spaced = `${acn.slice(0, 3)} ${acn.slice(3, 6)} ${acn.slice(6)}`
        const reply = yield* createBrand({ ...TestBrands.brandBody(spaced), unknown_field: "ignored" }, {
          key: provider.key
        })
        assert.strictEqual(reply.status, 201, reply.text)
        Replies.assertMeta(reply)
        const { data } = Replies.decode(Envelope.Envelope(BrandJson.BrandCreated), reply.json)
        assert.deepStrictEqual(Object.keys(reply.json.data).sort(), [
          "created_at",
          "id",
          "identifier_type",
          "identifier_value",
          "market",
          "name",
          "status"
        ])
        assert.match(data.id, /^brand_[0-9a-hjkmnp-tv-z]{26}$/)
        assert.deepStrictEqual({ ...data, id: "" }, {
          id: "",
          name: "Acme Pty Ltd",
          identifier_type: "ACN",
          identifier_value: acn,
          market: "AU",
          status: "verified",
          created_at: new Date(TestServer.start).toISOString().replace("Z", "+00:00")
        })
        const events = yield* (yield* EventStore.EventStore).listBySubject(provider.accountId, data.id)
        assert.deepStrictEqual(events.map((e) => [e.type, e.data]), [["brand.verified", data]])
      }))

    it.effect("a new brand's relationship is pending: GET and PATCH with the provider's key → 403 brand_relationship_pending", () =>
      Effect.gen(function*() {
        const { brandId, provider } = yield* pendingBrand
        Replies.assertError(yield* getBrand(brandId, provider.key), 403, "brand_relationship_pending")
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { name: "Renamed" }),
          403,
          "brand_relationship_pending"
        )
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { market: "NZ" }),
          403,
          "brand_relationship_pending"
        )
        const listed = yield* Http.request("GET", "/v1/brands", { key: provider.key })
        assert.deepStrictEqual(listed.json.data, [], "a brand it may not read is not listed either")
      }))

    it.effect("approved by its Brand Owner, the brand reads in full (website and contact) and lists", () =>
      Effect.gen(function*() {
        const { acn, brandId, owner, provider, relationshipId } = yield* pendingBrand
        assert.strictEqual((yield* decide(relationshipId, "approve", owner.key)).status, 200)
        const reply = yield* getBrand(brandId, provider.key)
        assert.strictEqual(reply.status, 200, reply.text)
        const { data } = Replies.decode(Envelope.Envelope(BrandJson.BrandFull), reply.json)
        assert.deepStrictEqual(data.website, "https://acme.example")
        assert.deepStrictEqual(data.contact, TestBrands.brandBody(acn).contact)
        assert.strictEqual(data.identifier_value, acn)
        const listed = yield* Http.request("GET", "/v1/brands", { key: provider.key })
        assert.deepStrictEqual(Replies.decode(Envelope.ListEnvelope(BrandJson.BrandFull), listed.json).data, [data])
      }))

    it.effect("rejected by its Brand Owner, the brand is 404 to its provider on GET and PATCH, and not listed", () =>
      Effect.gen(function*() {
        const { brandId, owner, provider, relationshipId } = yield* pendingBrand
        assert.strictEqual((yield* decide(relationshipId, "reject", owner.key)).status, 200)
        Replies.assertError(yield* getBrand(brandId, provider.key), 404, "not_found")
        Replies.assertError(yield* patchBrand(brandId, provider.key, { name: "Renamed" }), 404, "not_found")
        assert.deepStrictEqual((yield* Http.request("GET", "/v1/brands", { key: provider.key })).json.data, [])
      }))

    it.effect("the Brand Owner reads the brand (pending or not) and lists it, but cannot PATCH it (404); an unknown brand is 404", () =>
      Effect.gen(function*() {
        const { brandId, owner } = yield* pendingBrand
        const reply = yield* getBrand(brandId, owner.key)
        assert.strictEqual(reply.status, 200, reply.text)
        assert.strictEqual(reply.json.data.id, brandId)
        const listed = yield* Http.request("GET", "/v1/brands", { key: owner.key })
        assert.deepStrictEqual(listed.json.data.map((b: { id: string }) => b.id), [brandId])
        Replies.assertError(yield* patchBrand(brandId, owner.key, { name: "Renamed" }), 404, "not_found")
        Replies.assertError(yield* getBrand("brand_00000000000000000000000000", owner.key), 404, "not_found")
      }))

    it.effect("a Brand Owner submitting a brand of its own identifier: approved at once, readable at once", () =>
      Effect.gen(function*() {
        const acn = TestBrands.freshAcn()
        const owner = yield* TestBrands.newBrandOwner(acn)
        const { brandId, relationshipId } = yield* TestBrands.submitBrand(owner, acn)
        assert.strictEqual((yield* getBrand(brandId, owner.key)).status, 200)
        const relationship = yield* Http.request("GET", `/v1/brand-relationships/${relationshipId}`, { key: owner.key })
        assert.strictEqual(relationship.json.data.status, "approved")
        assert.isNull(relationship.json.data.decided_at)
      }))

    it.effect("a pending relationship e-mails the brand's contact, in the brand's own write; an approved one and a refused brand write no mail", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const acn = TestBrands.freshAcn()
        const owner = yield* TestBrands.newBrandOwner(acn)
        const contactOf = (who: string) => ({
          ...TestBrands.brandBody(acn).contact,
          email: `${who}-${acn}@acme.example`
        })
        const pending = yield* createBrand({ ...TestBrands.brandBody(acn), contact: contactOf("pending") }, {
          key: provider.key
        })
        const own = yield* createBrand({ ...TestBrands.brandBody(acn), contact: contactOf("own") }, { key: owner.key })
        const refused = yield* createBrand({
          ...TestBrands.brandBody(acn),
          market: "US",
          contact: contactOf("refused")
        }, { key: provider.key })
        assert.deepStrictEqual([pending.status, own.status, refused.status], [201, 201, 422])
        // every mail due now (the file's other tests' too), to find ours among them
        const due = yield* (yield* MailStore.MailStore).claim(TestServer.start, 10_000, TestServer.start + 60_000)
        const mailsTo = (who: string) => due.filter((mail) => mail.to === contactOf(who).email)
        const relationships = yield* Http.request("GET", "/v1/brand-relationships?status=pending", { key: owner.key })
        const relationship = relationships.json.data.find((r: { brand: { id: string } }) =>
          r.brand.id === pending.json.data.id
        )
        const [mail] = mailsTo("pending")
        assert.strictEqual(mailsTo("pending").length, 1)
        assert.include(mail!.text, `POST /v1/brand-relationships/${relationship.id}/approve`)
        assert.strictEqual(mail!.subject, "Approve Test Org to send SMS for Acme Pty Ltd?")
        assert.strictEqual(mail!.status, "pending")
        assert.deepStrictEqual([mailsTo("own"), mailsTo("refused")], [[], []])
      }))

    it.effect("POST /v1/brands refusals: market, identifier, contact, website, name and shape, each naming its field", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const body = TestBrands.brandBody(TestBrands.freshAcn())
        const refused = (json: unknown, status: number, code: string, field?: string | null) =>
          Effect.map(
            createBrand(json, { key: provider.key }),
            (reply) => Replies.assertError(reply, status, code, field)
          )
        yield* refused({ ...body, market: "UK" }, 422, "invalid_market", "market")
        yield* refused({ ...body, market: "US" }, 422, "unsupported_market", "market")
        yield* refused({ ...body, identifier_type: "NZBN" }, 422, "invalid_identifier", "identifier_type")
        yield* refused({ ...body, identifier_type: "EIN" }, 422, "invalid_identifier", "identifier_type")
        yield* refused({ ...body, identifier_value: "010499967" }, 422, "invalid_identifier", "identifier_value")
        yield* refused({ ...body, identifier_value: "12-345" }, 422, "invalid_identifier", "identifier_value")
        yield* refused({ ...body, contact: { ...body.contact, email: "jo" } }, 422, "invalid_contact", "contact.email")
        yield* refused(
          { ...body, contact: { ...body.contact, phone: "0412 345 678" } },
          422,
          "invalid_contact",
          "contact.phone"
        )
        yield* refused({ ...body, contact: { ...body.contact, name: " " } }, 422, "invalid_contact", "contact.name")
        yield* refused({ ...body, website: "ftp://acme.example" }, 422, "invalid_contact", "website")
        yield* refused({ ...body, name: "  " }, 400, "invalid_parameter", "name")
        const { contact: _, ...withoutContact } = body
        yield* refused(withoutContact, 400, "invalid_request")
        yield* refused({ ...body, contact: { name: "Jo", email: "jo@acme.example" } }, 400, "invalid_request")
        yield* refused({ ...body, identifier_value: 10499966 }, 400, "invalid_request")
        assert.deepStrictEqual(
          (yield* Http.request("GET", "/v1/brand-relationships", { key: provider.key })).json.data,
          []
        )
        const { website: __, ...withoutWebsite } = body
        assert.strictEqual(
          (yield* createBrand(withoutWebsite, { key: provider.key })).status,
          201,
          "website is optional"
        )
      }))

    it.effect("POST /v1/brands with an Idempotency-Key: the retry replays the first answer byte for byte, one brand", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const body = TestBrands.brandBody(TestBrands.freshAcn())
        const headers = { "idempotency-key": "brand-once" }
        const first = yield* createBrand(body, { key: provider.key, headers })
        const again = yield* createBrand(body, { key: provider.key, headers })
        assert.strictEqual(first.status, 201)
        assert.strictEqual(again.text, first.text)
        assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
        Replies.assertError(
          yield* createBrand({ ...body, name: "Other" }, { key: provider.key, headers }),
          409,
          "idempotency_conflict"
        )
        const relationships = yield* Http.request("GET", "/v1/brand-relationships", { key: provider.key })
        assert.strictEqual(relationships.json.data.length, 1)
      }))

    it.effect("PATCH /v1/brands/{id}: name, contact and website change (null removes the website); the status stays", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const { brandId, owner, relationshipId } = yield* TestBrands.approvedBrand(provider)
        const contact = { name: "Al Citizen", email: "al@acme.example", phone: "+6421234567" }
        const reply = yield* patchBrand(brandId, provider.key, {
          name: "Acme Holdings Pty Ltd",
          contact,
          website: null,
          status: "rejected"
        })
        assert.strictEqual(reply.status, 200, reply.text)
        const { data } = Replies.decode(Envelope.Envelope(BrandJson.BrandFull), reply.json)
        assert.strictEqual(data.name, "Acme Holdings Pty Ltd")
        assert.deepStrictEqual(data.contact, contact)
        assert.isNull(data.website)
        assert.strictEqual(data.status, "verified", "status is not a field PATCH changes")
        // a new name and website go back to the Brand Owner (BrandChanges.test.ts)
        assert.strictEqual((yield* decide(relationshipId, "approve", owner.key)).status, 200)
        assert.deepStrictEqual((yield* getBrand(brandId, provider.key)).json.data, reply.json.data)
        const rewebbed = yield* patchBrand(brandId, provider.key, { website: "https://acme.example/au" })
        assert.strictEqual(rewebbed.json.data.website, "https://acme.example/au")
        assert.strictEqual(rewebbed.json.data.name, "Acme Holdings Pty Ltd", "what is not given is kept")
      }))

    it.effect("PATCH /v1/brands/{id}: identifier and market → 422 immutable_field unless given as they are; bad contact → 422", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(provider)
        const before = (yield* getBrand(brandId, provider.key)).json.data
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { identifier_type: "ABN" }),
          422,
          "immutable_field",
          "identifier_type"
        )
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { identifier_value: TestBrands.freshAcn() }),
          422,
          "immutable_field",
          "identifier_value"
        )
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { market: "NZ", name: "New" }),
          422,
          "immutable_field",
          "market"
        )
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { contact: { ...before.contact, email: "no" } }),
          422,
          "invalid_contact",
          "contact.email"
        )
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { website: "acme" }),
          422,
          "invalid_contact",
          "website"
        )
        Replies.assertError(yield* patchBrand(brandId, provider.key, { name: "" }), 400, "invalid_parameter", "name")
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { contact: { name: "Jo" } }),
          400,
          "invalid_request"
        )
        assert.deepStrictEqual((yield* getBrand(brandId, provider.key)).json.data, before, "nothing changed")
        const same = yield* patchBrand(brandId, provider.key, {
          identifier_type: before.identifier_type,
          identifier_value: before.identifier_value,
          market: before.market
        })
        assert.strictEqual(same.status, 200, same.text)
        assert.deepStrictEqual(same.json.data, before)
      }))

    it.effect("GET /v1/brands pages newest first with a cursor; next_cursor is null exactly when has_more is false; page_size is checked", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) ids.push((yield* TestBrands.approvedBrand(provider)).brandId)
        const first = yield* Http.request("GET", "/v1/brands?page_size=2", { key: provider.key })
        assert.deepStrictEqual(first.json.data.map((b: { id: string }) => b.id), [ids[2], ids[1]])
        assert.deepStrictEqual({ ...first.json.pagination, next_cursor: typeof first.json.pagination.next_cursor }, {
          has_more: true,
          next_cursor: "string",
          page_size: 2
        })
        const second = yield* Http.request(
          "GET",
          `/v1/brands?page_size=2&cursor=${first.json.pagination.next_cursor}`,
          { key: provider.key }
        )
        assert.deepStrictEqual(second.json.data.map((b: { id: string }) => b.id), [ids[0]])
        assert.deepStrictEqual(second.json.pagination, { has_more: false, next_cursor: null, page_size: 2 })
        const clamped = yield* Http.request("GET", "/v1/brands?page_size=1000", { key: provider.key })
        assert.strictEqual(clamped.json.pagination.page_size, 100)
        Replies.assertError(
          yield* Http.request("GET", "/v1/brands?page_size=0", { key: provider.key }),
          400,
          "invalid_parameter"
        )
        Replies.assertError(
          yield* Http.request("GET", "/v1/brands?cursor=cur_nonsense", { key: provider.key }),
          400,
          "invalid_cursor"
        )
        const relationships = yield* Http.request("GET", "/v1/brand-relationships?page_size=1", { key: provider.key })
        Replies.assertError(
          yield* Http.request("GET", `/v1/brands?cursor=${relationships.json.pagination.next_cursor}`, {
            key: provider.key
          }),
          400,
          "invalid_cursor"
        )
      }))

    it.effect("a crash between the brand and its kept answer: over a minute later the retry under its Idempotency-Key answers that brand, creating nothing", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const acn = TestBrands.freshAcn()
        const body = {
          ...TestBrands.brandBody(acn),
          contact: { ...TestBrands.brandBody(acn).contact, email: `crash-${acn}@acme.example` }
        }
        const withKey = { key: provider.key, headers: { "idempotency-key": "brand-crash-1" } }
        const first = yield* createBrand(body, withKey)
        assert.strictEqual(first.status, 201, first.text)
        // the brand is written; the process dies before its answer is kept
        yield* TestIdempotency.crashBeforeKept(provider.accountId, "brand-crash-1")

        Replies.assertError(yield* createBrand(body, withKey), 409, "idempotency_in_progress")
        yield* TestClock.adjust(Idempotency.abandonedAfterMillis + 1)
        Replies.assertError(yield* createBrand({ ...body, name: "Other" }, withKey), 409, "idempotency_conflict")
        const retry = yield* createBrand(body, withKey)
        assert.strictEqual(retry.status, 201, retry.text)
        assert.isNull(retry.headers.get("idempotent-replayed"))
        assert.deepStrictEqual(retry.json.data, first.json.data, "the same brand, in the same creation form")
        const replay = yield* createBrand(body, withKey)
        assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
        assert.strictEqual(replay.text, retry.text)

        const relationships = yield* Http.request("GET", "/v1/brand-relationships", { key: provider.key })
        assert.deepStrictEqual(relationships.json.data.map((r: { brand: { id: string } }) => r.brand.id), [
          first.json.data.id
        ])
        const events = yield* (yield* EventStore.EventStore).listBySubject(provider.accountId, first.json.data.id)
        assert.deepStrictEqual(events.map((e) => e.type), ["brand.verified"])
        assert.strictEqual((yield* TestBrands.mailsTo(body.contact.email)).length, 1)
      }))
  })
}
