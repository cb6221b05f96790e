/**
 * The store suite's tests of `IdempotencyStore`: idempotency keys.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { IdempotencyStore } from "../IdempotencyStore.js"
import type { Stores } from "../Stores.js"
import { fresh, T, freshAccount, expiredBefore, makeReservation } from "./Fixtures.js"

/** Registers the tests of `IdempotencyStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("IdempotencyStore: reserve is none first, then the row that holds the key", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const first = makeReservation(accountId, key, "fp-first", T)
      assert.isTrue(Option.isNone(yield* store.reserve(first, expiredBefore(T - 86_400_000))))
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-second", T + 10), expiredBefore(T - 86_400_000)),
        Option.some(first)
      )
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-first", T + 20), expiredBefore(T - 86_400_000)),
        Option.some(first)
      )
    }))

  it.effect("IdempotencyStore: keys are scoped to the account", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const key = fresh("idem")
      const a = makeReservation(yield* freshAccount, key, "fp", T)
      const b = makeReservation(yield* freshAccount, key, "fp", T)
      assert.isTrue(Option.isNone(yield* store.reserve(a, expiredBefore(0))))
      assert.isTrue(Option.isNone(yield* store.reserve(b, expiredBefore(0))))
    }))

  it.effect("IdempotencyStore: complete stores the response byte for byte", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const record = makeReservation(accountId, key, "fp", T)
      yield* store.reserve(record, expiredBefore(0))
      const body = "{\"ok\":true,\"data\":{\"body\":\"Grüße 👋\\n\",\"x\":  1.50}}\n\t "
      yield* store.complete(record, { status: 201, body })
      const held = yield* store.reserve(makeReservation(accountId, key, "fp", T + 5), expiredBefore(0))
      assert.deepStrictEqual(held, Option.some({ ...record, response: Option.some({ status: 201, body }) }))
      const response = Option.getOrThrow(Option.getOrThrow(held).response)
      assert.strictEqual(response.body, body)
      assert.strictEqual(response.status, 201)
    }))

  it.effect("IdempotencyStore: release frees the key", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const first = makeReservation(accountId, key, "fp-1", T)
      yield* store.reserve(first, expiredBefore(0))
      yield* store.release(first)
      const again = makeReservation(accountId, key, "fp-2", T + 1)
      assert.isTrue(Option.isNone(yield* store.reserve(again, expiredBefore(0))))
      assert.deepStrictEqual(yield* store.reserve(makeReservation(accountId, key, "fp-3", T + 2), expiredBefore(0)), Option.some(again))
      yield* store.release({ accountId, key: fresh("idem"), createdAt: T })
    }))

  it.effect("IdempotencyStore: a row created before expiredBefore is replaced", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const old = makeReservation(accountId, key, "fp-old", T)
      yield* store.reserve(old, expiredBefore(0))
      yield* store.complete(old, { status: 200, body: "{}" })

      // created exactly at expiredBefore: still live
      const early = makeReservation(accountId, key, "fp-new", T + 100)
      const held = yield* store.reserve(early, expiredBefore(T))
      assert.deepStrictEqual(Option.map(held, (r) => r.fingerprint), Option.some("fp-old"))

      const fresher = makeReservation(accountId, key, "fp-new", T + 200)
      assert.isTrue(Option.isNone(yield* store.reserve(fresher, expiredBefore(T + 1))))
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-other", T + 300), expiredBefore(T + 1)),
        Option.some(fresher),
        "the replacement holds no response of the stale row"
      )
    }))

  it.effect("IdempotencyStore: an abandoned reservation is taken over by the same request only", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const first = makeReservation(accountId, key, "fp-a", T)
      yield* store.reserve(first, expiredBefore(0))
      const abandonedBefore = (abandoned: number) => ({ expired: 0, abandoned })

      // created exactly at the cutoff: still running
      const atCutoff = yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 10), abandonedBefore(T))
      assert.deepStrictEqual(atCutoff, Option.some(first))
      // another request with the key: a conflict, abandoned or not
      const other = yield* store.reserve(makeReservation(accountId, key, "fp-b", T + 20), abandonedBefore(T + 1))
      assert.deepStrictEqual(other, Option.some(first))

      const retry = makeReservation(accountId, key, "fp-a", T + 30)
      assert.isTrue(Option.isNone(yield* store.reserve(retry, abandonedBefore(T + 1))))
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 40), abandonedBefore(T + 1)),
        Option.some(retry),
        "the retry holds the key now"
      )

      // the first holder, alive after all, reaches its own reservation only
      yield* store.complete(first, { status: 500, body: "stalled" })
      yield* store.release(first)
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 45), abandonedBefore(T + 1)),
        Option.some(retry),
        "the retry still holds the key, with no response"
      )

      // a completed key is never abandoned
      yield* store.complete(retry, { status: 201, body: "{}" })
      const done = yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 50), abandonedBefore(T + 45))
      assert.deepStrictEqual(Option.map(done, (r) => r.response), Option.some(Option.some({ status: 201, body: "{}" })))
    }))

  it.effect("IdempotencyStore: of 20 concurrent reserves of one key exactly one wins", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const attempts = Array.from({ length: 20 }, (_, i) => makeReservation(accountId, key, `fp-${i}`, T + i))
      const results = yield* Effect.all(attempts.map((r) => store.reserve(r, expiredBefore(0))), { concurrency: "unbounded" })
      const winners = results.filter(Option.isNone)
      assert.strictEqual(winners.length, 1)
      const winner = attempts[results.findIndex(Option.isNone)]!
      for (const result of results) {
        if (Option.isSome(result)) assert.deepStrictEqual(result.value, winner)
      }
    }))

  it.effect("IdempotencyStore: purge deletes up to a batch of the records created before a time, and none after", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      // long before any other test's records, which a purge must not touch
      const t0 = T - 10 * 365 * 86_400_000
      const old = [0, 1, 2].map((i) => makeReservation(accountId, fresh("old"), "fp", t0 + i))
      const kept = makeReservation(accountId, fresh("kept"), "fp", t0 + 1_000)
      for (const record of [...old, kept]) yield* store.reserve(record, expiredBefore(0))
      assert.deepStrictEqual(
        [yield* store.purge(t0 + 1_000, 2), yield* store.purge(t0 + 1_000, 2), yield* store.purge(t0 + 1_000, 2)],
        [2, 1, 0]
      )
      for (const record of old) assert.isTrue(Option.isNone(yield* store.reserve({ ...record, fingerprint: "other" }, expiredBefore(0))))
      const holder = yield* store.reserve({ ...kept, fingerprint: "other" }, expiredBefore(0))
      assert.strictEqual(Option.getOrThrow(holder).fingerprint, "fp", "a record after the time is kept")
    }))
}
