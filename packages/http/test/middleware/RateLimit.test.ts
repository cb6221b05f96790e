import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

layer(TestServer.layer({ rateLimitPerSecond: 2 }))("rate limit per API key (RATE_LIMIT_PER_SECOND=2)", (it) => {
  it.effect("the third request within a second is 429 rate_limited with Retry-After; a second later it passes", () =>
    Effect.gen(function*() {
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      const replies = yield* Effect.all(Array.from({ length: 5 }, () => TestMessages.list({}, { key: caller.key })), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(replies.map((r) => r.status).sort(), [200, 200, 429, 429, 429])
      for (const reply of replies.filter((r) => r.status === 429)) {
        Replies.assertError(reply, 429, "rate_limited")
        assert.strictEqual(reply.headers.get("retry-after"), "1")
      }
      yield* TestClock.adjust("500 millis")
      assert.strictEqual(
        (yield* TestMessages.list({}, { key: caller.key })).status,
        200,
        "half a second refills one token"
      )
      Replies.assertError(yield* TestMessages.list({}, { key: caller.key }), 429, "rate_limited")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* TestMessages.send(TestMessages.validSend, { key: caller.key })).status, 201)
      assert.strictEqual((yield* TestMessages.list({}, { key: caller.key })).status, 200)
    }))

  it.effect("each key has its own bucket", () =>
    Effect.gen(function*() {
      const a = yield* TestAccounts.newCaller()
      const b = yield* TestAccounts.newKey(a.accountId, ["messaging:read"])
      for (let i = 0; i < 2; i++) assert.strictEqual((yield* TestMessages.list({}, { key: a.key })).status, 200)
      Replies.assertError(yield* TestMessages.list({}, { key: a.key }), 429, "rate_limited")
      assert.strictEqual((yield* TestMessages.list({}, { key: b.key })).status, 200)
    }))

  it.effect("requests refused before authentication take no token", () =>
    Effect.gen(function*() {
      const a = yield* TestAccounts.newCaller()
      for (let i = 0; i < 5; i++) {
        Replies.assertError(yield* TestMessages.list({}, { key: null }), 401, "unauthenticated")
      }
      assert.strictEqual((yield* TestMessages.list({}, { key: a.key })).status, 200)
    }))
})
