import { assert, layer } from "@effect/vitest"
import { Admin } from "@sendline/core"
import { Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

/** A new caller with Sender ID Acme in AU and an AUD limit of `monthly`. */
const limitedCaller = (monthly: string) =>
  Effect.gen(function*() {
    const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
    yield* Effect.orDie(
      (yield* Admin.Admin).setSpendingLimit({ accountId: caller.accountId, currency: "AUD", monthly })
    )
    return caller
  })

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`GET /v1/usage (${store.name})`, (it) => {
    it.effect("answers the month's spend by currency with the limit; the send past the limit is 422 spending_limit_reached", () =>
      Effect.gen(function*() {
        const caller = yield* limitedCaller("0.10")
        for (let i = 0; i < 2; i++) {
          assert.strictEqual((yield* TestMessages.send(TestMessages.validSend, { key: caller.key })).status, 201)
        }
        const refused = yield* TestMessages.send(TestMessages.validSend, { key: caller.key })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.strictEqual(refused.json.error.code, "spending_limit_reached")
        assert.include(refused.json.error.message, "0.1000 AUD")
        const usage = yield* Http.request("GET", "/v1/usage", { key: caller.key })
        assert.strictEqual(usage.status, 200, usage.text)
        Replies.assertMeta(usage)
        assert.deepStrictEqual(usage.json.data, {
          month: "2026-11",
          spend: [{ currency: "AUD", amount: "0.1000", limit: "0.1000", messages: 2, segments: 2 }]
        })
        const before = yield* Http.request("GET", "/v1/usage?month=2026-10", { key: caller.key })
        assert.deepStrictEqual(before.json.data, {
          month: "2026-10",
          spend: [{ currency: "AUD", amount: "0.0000", limit: "0.1000", messages: 0, segments: 0 }]
        })
      }))

    it.effect("without a limit, limit is null; a bad month is 400 invalid_parameter; it needs messaging:read", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        yield* TestMessages.send(TestMessages.validSend, { key: caller.key })
        const usage = yield* Http.request("GET", "/v1/usage?month=2026-11", { key: caller.key })
        assert.deepStrictEqual(usage.json.data.spend, [
          { currency: "AUD", amount: "0.0500", limit: null, messages: 1, segments: 1 }
        ])
        const bad = yield* Http.request("GET", "/v1/usage?month=2026-13", { key: caller.key })
        assert.deepStrictEqual([bad.status, bad.json.error.code, bad.json.error.field], [
          400,
          "invalid_parameter",
          "month"
        ])
        const sender = yield* TestAccounts.newKey(caller.accountId, ["messaging:send"])
        const denied = yield* Http.request("GET", "/v1/usage", { key: sender.key })
        assert.deepStrictEqual([denied.status, denied.json.error.code], [403, "permission_denied"])
      }))

    it.effect("a preview with a market answers the caller's spend, limit and what remains", () =>
      Effect.gen(function*() {
        const caller = yield* limitedCaller("1.00")
        yield* TestMessages.send(TestMessages.validSend, { key: caller.key })
        const preview = yield* TestMessages.preview({ body: "Hi", market: "AU" }, { key: caller.key })
        assert.strictEqual(preview.status, 200, preview.text)
        assert.deepStrictEqual(preview.json.data.spend, { amount: "0.0500", limit: "1.0000", remaining: "0.9500" })
        const nz = yield* TestMessages.preview({ body: "Hi", market: "NZ" }, { key: caller.key })
        assert.deepStrictEqual(nz.json.data.spend, { amount: "0.0000", limit: null, remaining: null })
      }))
  })
}
