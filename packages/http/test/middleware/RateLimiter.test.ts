import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import * as RateLimiter from "../../src/middleware/RateLimiter.js"

/** At each of `times` (ms of TestClock), one take of `key` of `account`: "ok", or the Retry-After in seconds. */
const takesAt = (times: ReadonlyArray<number>, key = "key_a", account = "acct_a") =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const answers: Array<string | number> = []
    for (const at of times) {
      yield* TestClock.setTime(at)
      const taken = yield* Effect.either(limiter.take(key, account))
      answers.push(Either.isRight(taken) ? "ok" : taken.left.retryAfterSeconds)
    }
    return answers
  })

/** The per-key limit alone. */
const perKey = (perSecond: number) => RateLimiter.layer({ perKey: perSecond, perAccount: 0 })

describe("RateLimiter", () => {
  it.effect("holds one second's worth: 3 a second lets three through at once, then one a third of a second", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* takesAt([0, 0, 0, 0, 333, 334]), ["ok", "ok", "ok", 1, 1, "ok"])
    }).pipe(Effect.provide(perKey(3))))

  it.effect("never holds more than a second's worth, however long it waits", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* takesAt([0, 0, 60_000, 60_000, 60_000]), ["ok", "ok", "ok", "ok", 1])
    }).pipe(Effect.provide(perKey(2))))

  it.effect("a rate below one a second lets one request through, then the next after its interval; Retry-After is the time left", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* takesAt([0, 0, 1500, 2000]), ["ok", 2, 1, "ok"])
    }).pipe(Effect.provide(perKey(0.5))))

  it.effect("a clock read out of order takes nothing back", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* takesAt([1000, 1000, 900, 2000]), ["ok", 1, 1, "ok"])
    }).pipe(Effect.provide(perKey(1))))

  it.effect("each key has its own bucket, and 0 turns the limit off", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* takesAt([0, 0], "key_a"), ["ok", 1])
      assert.deepStrictEqual(yield* takesAt([0], "key_b"), ["ok"])
      assert.deepStrictEqual(
        yield* Effect.provide(takesAt(Array.from({ length: 100 }, () => 0)), perKey(0)),
        Array.from({ length: 100 }, () => "ok")
      )
    }).pipe(Effect.provide(perKey(1))))

  it.effect("past a thousand keys the full buckets are dropped, which changes no answer", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimiter.RateLimiter
      for (let i = 0; i < 1_001; i++) yield* limiter.take(`key_${i}`, "acct_a")
      yield* TestClock.setTime(5_000) // every bucket full again: the next take sweeps them
      assert.deepStrictEqual(yield* takesAt([5_000, 5_000], "key_0"), ["ok", 1])
      assert.deepStrictEqual(yield* takesAt([5_000, 5_000], "key_1000"), ["ok", 1])
    }).pipe(Effect.provide(perKey(1))))

  it.effect("an account's keys share its bucket: rotating keys does not multiply its rate; other accounts are not slowed", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* takesAt([0, 0], "key_a", "acct_a"), ["ok", "ok"])
      assert.deepStrictEqual(yield* takesAt([0], "key_b", "acct_a"), ["ok"])
      assert.deepStrictEqual(
        yield* takesAt([0, 0], "key_c", "acct_a"),
        [1, 1],
        "the account's three a second are spent"
      )
      assert.deepStrictEqual(yield* takesAt([0, 0], "key_d", "acct_b"), ["ok", "ok"])
      assert.deepStrictEqual(yield* takesAt([1000], "key_c", "acct_a"), ["ok"])
    }).pipe(Effect.provide(RateLimiter.layer({ perKey: 2, perAccount: 3 }))))
})
