/**
 * A brand changed after its Brand Owner approved it (issue 29, CONTRACT §5) on both stores: a change
 * of `name` or `website` by the provider sets the relationship back to `pending`, mailed to the
 * brand's contact and listed to the owner, until the owner approves again; meanwhile a new Sender ID
 * under the brand is refused as for any pending relationship, and those registered keep sending.
 * `contact` alone, a value given as it is, and the Brand Owner's own change keep it approved.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestSenderIds from "../support/TestSenderIds.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

const patchBrand = (id: string, key: string, json: unknown) => Http.request("PATCH", `/v1/brands/${id}`, { key, json })
const getRelationship = (id: string, key: string) => Http.request("GET", `/v1/brand-relationships/${id}`, { key })
const approve = (relationshipId: string, key: string) =>
  Http.request("POST", `/v1/brand-relationships/${relationshipId}/approve`, { key })
const register = (json: unknown, key: string) => Http.request("POST", "/v1/sids", { key, json })

/** A brand of a new provider, approved by its new Brand Owner, its contact's e-mail its own. */
const approvedBrand = Effect.gen(function*() {
  const provider = yield* TestAccounts.newCaller()
  const acn = TestBrands.freshAcn()
  const owner = yield* TestBrands.newBrandOwner(acn)
  const contact = { ...TestBrands.brandBody(acn).contact, email: `jo-${acn}@acme.example` }
  const created = yield* Http.request("POST", "/v1/brands", {
    key: provider.key,
    json: { ...TestBrands.brandBody(acn), contact }
  })
  assert.strictEqual(created.status, 201, created.text)
  const brandId: string = created.json.data.id
  const listed = yield* Http.request("GET", "/v1/brand-relationships?status=pending", { key: owner.key })
  const relationshipId: string = listed.json.data.find((r: { brand: { id: string } }) => r.brand.id === brandId).id
  assert.strictEqual((yield* approve(relationshipId, owner.key)).status, 200)
  return { provider, owner, acn, contact, brandId, relationshipId }
})

/** A Qantas-like domain Sender ID for `brandId`: the Sender ID in the website's registrable label. */
const domainSid = (brandId: string, senderId: string) => ({
  ...TestSenderIds.sidBody(brandId, senderId),
  match_type: "domain",
  match_value: `${senderId.toLowerCase()}.com.au`
})

/** One operator key per AU network, made once per test file's database. */
const operators = Effect.cached(Effect.all({
  telstra: TestAccounts.newOperator("telstra"),
  optus: TestAccounts.newOperator("optus"),
  vodafone: TestAccounts.newOperator("vodafone")
}))

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`brand changes on ${store.name}`, (it) => {
    it.effect("the provider's change of website sets the relationship back to pending: the Qantas domain Sender ID is refused until the Brand Owner approves again", () =>
      Effect.gen(function*() {
        const { brandId, contact, owner, provider, relationshipId } = yield* approvedBrand
        Replies.assertError(
          yield* register(domainSid(brandId, "Qantas"), provider.key),
          422,
          "sender_id_domain_mismatch",
          "sender_id"
        )
        const mailsBefore = (yield* TestBrands.mailsTo(contact.email)).length

        const changed = yield* patchBrand(brandId, provider.key, { website: "https://www.qantas.com.au" })
        assert.strictEqual(changed.status, 200, changed.text)
        assert.strictEqual(changed.json.data.website, "https://www.qantas.com.au")

        const relationship = yield* getRelationship(relationshipId, owner.key)
        assert.strictEqual(relationship.json.data.status, "pending")
        assert.isNull(relationship.json.data.decided_at)
        const waiting = yield* Http.request("GET", "/v1/brand-relationships?status=pending", { key: owner.key })
        assert.include(
          waiting.json.data.map((r: { id: string }) => r.id),
          relationshipId,
          "listed to the owner as pending"
        )
        const mails = yield* TestBrands.mailsTo(contact.email)
        assert.strictEqual(mails.length, mailsBefore + 1, "the contact is mailed the change")
        assert.include(mails.at(-1)!.text, "https://www.qantas.com.au")
        assert.include(mails.at(-1)!.text, `POST /v1/brand-relationships/${relationshipId}/approve`)

        Replies.assertError(
          yield* register(domainSid(brandId, "Qantas"), provider.key),
          403,
          "brand_relationship_pending"
        )
        Replies.assertError(
          yield* Http.request("GET", `/v1/brands/${brandId}`, { key: provider.key }),
          403,
          "brand_relationship_pending"
        )
        Replies.assertError(
          yield* patchBrand(brandId, provider.key, { website: "https://acme.example" }),
          403,
          "brand_relationship_pending"
        )

        assert.strictEqual((yield* approve(relationshipId, owner.key)).status, 200)
        const registered = yield* register(domainSid(brandId, "Qantas"), provider.key)
        assert.strictEqual(registered.status, 201, registered.text)
      }))

    it.effect("the provider's change of name sets it back to pending too; removing the website as well", () =>
      Effect.gen(function*() {
        const { brandId, owner, provider, relationshipId } = yield* approvedBrand
        assert.strictEqual((yield* patchBrand(brandId, provider.key, { name: "Qantas Airways Limited" })).status, 200)
        assert.strictEqual((yield* getRelationship(relationshipId, owner.key)).json.data.status, "pending")
        assert.strictEqual((yield* approve(relationshipId, owner.key)).status, 200)
        assert.strictEqual((yield* patchBrand(brandId, provider.key, { website: null })).status, 200)
        assert.strictEqual((yield* getRelationship(relationshipId, owner.key)).json.data.status, "pending")
      }))

    it.effect("contact alone, or name and website given as they are, keep the relationship approved and mail nobody", () =>
      Effect.gen(function*() {
        const { acn, brandId, contact, owner, provider, relationshipId } = yield* approvedBrand
        const mailsBefore = (yield* TestBrands.mailsTo(contact.email)).length
        const moved = { name: "Al Citizen", email: `al-${acn}@acme.example`, phone: "+61412345679" }
        const reply = yield* patchBrand(brandId, provider.key, {
          contact: moved,
          name: "Acme Pty Ltd",
          website: "https://acme.example"
        })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.strictEqual((yield* getRelationship(relationshipId, owner.key)).json.data.status, "approved")
        assert.strictEqual((yield* Http.request("GET", `/v1/brands/${brandId}`, { key: provider.key })).status, 200)
        assert.strictEqual((yield* TestBrands.mailsTo(contact.email)).length, mailsBefore)
        assert.deepStrictEqual(yield* TestBrands.mailsTo(moved.email), [])
      }))

    it.effect("the Brand Owner's own change of website needs no approval: it registers its domain Sender ID at once", () =>
      Effect.gen(function*() {
        const acn = TestBrands.freshAcn()
        const owner = yield* TestBrands.newBrandOwner(acn)
        const { brandId, relationshipId } = yield* TestBrands.submitBrand(owner, acn)
        const changed = yield* patchBrand(brandId, owner.key, {
          website: "https://www.jetstar.com.au",
          name: "Jetstar Airways"
        })
        assert.strictEqual(changed.status, 200, changed.text)
        assert.strictEqual((yield* getRelationship(relationshipId, owner.key)).json.data.status, "approved")
        const registered = yield* register(domainSid(brandId, "Jetstar"), owner.key)
        assert.strictEqual(registered.status, 201, registered.text)
      }))

    it.effect("a Sender ID registered under the brand keeps sending while the changed brand waits for its Brand Owner", () =>
      Effect.gen(function*() {
        const { brandId, owner, provider, relationshipId } = yield* approvedBrand
        const created = yield* register(TestSenderIds.sidBody(brandId), provider.key)
        assert.strictEqual(created.status, 201, created.text)
        const networks: Record<string, TestAccounts.Caller> = yield* yield* operators
        for (const registration of created.json.data.registrations as Array<{ id: string; network: string }>) {
          const decided = yield* Http.request("POST", `/v1/operator-registrations/${registration.id}/approve`, {
            key: networks[registration.network]!.key
          })
          assert.strictEqual(decided.status, 200, decided.text)
        }
        const sid = yield* Http.request("GET", `/v1/sids/${created.json.data.id}`, { key: provider.key })
        assert.strictEqual(sid.json.data.status, "registered")

        assert.strictEqual((yield* patchBrand(brandId, provider.key, { name: "Renamed Pty Ltd" })).status, 200)
        assert.strictEqual((yield* getRelationship(relationshipId, owner.key)).json.data.status, "pending")
        const sent = yield* TestMessages.send({ ...TestMessages.validSend, sender_id: created.json.data.sender_id }, {
          key: provider.key
        })
        assert.strictEqual(sent.status, 201, sent.text)
      }))
  })
}
