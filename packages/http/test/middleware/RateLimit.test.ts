import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as H from "../support/Harness.js"

layer(H.layer({ rateLimitPerSecond: 2 }))("rate limit per API key (RATE_LIMIT_PER_SECOND=2)", (it) => {
  it.effect("the third request within a second is 429 rate_limited with Retry-After; a second later it passes", () =>
    Effect.gen(function*() {
      const caller = yield* H.newCaller({ senderIds: [["Acme", "AU"]] })
      const replies = yield* Effect.all(Array.from({ length: 5 }, () => H.list({}, { key: caller.key })), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(replies.map((r) => r.status).sort(), [200, 200, 429, 429, 429])
      for (const reply of replies.filter((r) => r.status === 429)) {
        H.assertError(reply, 429, "rate_limited")
        assert.strictEqual(reply.headers.get("retry-after"), "1")
      }
      yield* TestClock.adjust("500 millis")
      assert.strictEqual((yield* H.list({}, { key: caller.key })).status, 200, "half a second refills one token")
      H.assertError(yield* H.list({}, { key: caller.key }), 429, "rate_limited")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* H.send(H.validSend, { key: caller.key })).status, 201)
      assert.strictEqual((yield* H.list({}, { key: caller.key })).status, 200)
    }))

  it.effect("each key has its own bucket", () =>
    Effect.gen(function*() {
      const a = yield* H.newCaller()
      const b = yield* H.newKey(a.accountId, ["messaging:read"])
      for (let i = 0; i < 2; i++) assert.strictEqual((yield* H.list({}, { key: a.key })).status, 200)
      H.assertError(yield* H.list({}, { key: a.key }), 429, "rate_limited")
      assert.strictEqual((yield* H.list({}, { key: b.key })).status, 200)
    }))

  it.effect("requests refused before authentication take no token", () =>
    Effect.gen(function*() {
      const a = yield* H.newCaller()
      for (let i = 0; i < 5; i++) H.assertError(yield* H.list({}, { key: null }), 401, "unauthenticated")
      assert.strictEqual((yield* H.list({}, { key: a.key })).status, 200)
    }))
})
