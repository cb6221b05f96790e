/**
 * An asynchronous brand verifier on both stores (`BrandVerifier.layerDeferred`): a new brand is
 * `pending_verification` with no event, and the verifier's later decision
 * (`Brands.completeVerification`) moves it to `verified` or `rejected` with its `brand.*` event, in
 * one write; a second decision is 409 `invalid_state_transition`.
 */
import { assert, layer } from "@effect/vitest"
import { BrandJson, Brands, BrandVerifier, EventStore } from "@sendline/core"
import { Effect } from "effect"
import * as Http from "../support/Http.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer(), verifier: BrandVerifier.layerDeferred }), { timeout: 60_000 })(
    `an asynchronous brand verifier on ${store.name}`,
    (it) => {
      /** A brand of a new provider, approved by its Brand Owner, left pending_verification. */
      const pendingVerification = Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(provider)
        const created = yield* Http.request("GET", `/v1/brands/${brandId}`, { key: provider.key })
        assert.strictEqual(created.json.data.status, "pending_verification")
        assert.deepStrictEqual(yield* (yield* EventStore.EventStore).listBySubject(provider.accountId, brandId), [])
        return { provider, brandId }
      })

      it.effect("POST /v1/brands answers pending_verification, and writes no event yet", () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const reply = yield* Http.request("POST", "/v1/brands", {
            key: provider.key,
            json: TestBrands.brandBody(TestBrands.freshAcn())
          })
          assert.strictEqual(reply.status, 201, reply.text)
          assert.strictEqual(reply.json.data.status, "pending_verification")
          assert.deepStrictEqual(
            yield* (yield* EventStore.EventStore).listBySubject(provider.accountId, reply.json.data.id),
            []
          )
        }))

      for (const decision of ["verified", "rejected"] as const) {
        it.effect(`the verifier's decision: pending_verification → ${decision}, with brand.${decision} (the creation form) in the outbox`, () =>
          Effect.gen(function*() {
            const { brandId, provider } = yield* pendingVerification
            const decided = yield* (yield* Brands.Brands).completeVerification(brandId, decision)
            assert.strictEqual(decided.status, decision)
            const read = yield* Http.request("GET", `/v1/brands/${brandId}`, { key: provider.key })
            assert.strictEqual(read.json.data.status, decision)
            const events = yield* (yield* EventStore.EventStore).listBySubject(provider.accountId, brandId)
            assert.deepStrictEqual(events.map((e) => [e.type, e.data]), [[
              `brand.${decision}`,
              BrandJson.created(decided)
            ]])
            const again = yield* Effect.flip((yield* Brands.Brands).completeVerification(brandId, "verified"))
            assert.strictEqual(again.code, "invalid_state_transition")
          }))
      }

      it.effect("a decision on an unknown brand → not_found", () =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(
            (yield* Brands.Brands).completeVerification("brand_00000000000000000000000000", "verified")
          )
          assert.strictEqual(error.code, "not_found")
        }))
    }
  )
}
