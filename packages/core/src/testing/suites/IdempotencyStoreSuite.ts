/**
 * The store suite's tests of `IdempotencyStore`: idempotency keys.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { Buffer } from "node:buffer"
import * as Idempotency from "../../idempotency/Idempotency.js"
import { IdempotencyStore, type Reservation } from "../../idempotency/IdempotencyStore.js"
import type { Stores } from "../../Stores.js"
import { expiredBefore, fresh, freshAccount, makeReservation, T } from "../Fixtures.js"

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
      yield* store.complete(record, { _tag: "Body", status: 201, body })
      const held = yield* store.reserve(makeReservation(accountId, key, "fp", T + 5), expiredBefore(0))
      assert.deepStrictEqual(
        held,
        Option.some({ ...record, response: Option.some({ _tag: "Body" as const, status: 201, body }) })
      )
      const response = Option.getOrThrow(Option.getOrThrow(held).response)
      assert.strictEqual(response._tag === "Body" ? response.body : undefined, body)
      assert.strictEqual(response.status, 201)
    }))

  it.effect("IdempotencyStore: a response too large to keep is held as what recomputes it; one of the most bytes, whole", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const idempotency = yield* Idempotency.make
      const accountId = yield* freshAccount
      const reserved = (key: string) => {
        const reservation = makeReservation(accountId, key, "fp", T)
        return Effect.as(store.reserve(reservation, expiredBefore(0)), reservation)
      }
      const heldBy = (reservation: Reservation) =>
        Effect.map(
          store.reserve({ ...reservation, fingerprint: "other", response: Option.none() }, expiredBefore(0)),
          Option.getOrThrow
        )
      const meta = { requestId: "req_01kq0v0jr0a4kqm3x0vyz2r7yd", answeredAt: T + 3 }

      // ~126 KB of three-byte characters: held in a few hundred bytes, without its body
      const large = yield* reserved(fresh("idem"))
      const answer = { status: 200, body: JSON.stringify({ ok: true, data: "語".repeat(42_000) }), recompute: meta }
      yield* idempotency.complete(large, answer)
      const response = Option.getOrThrow((yield* heldBy(large)).response)
      if (response._tag !== "Recompute") return assert.fail("held as what recomputes it")
      assert.deepStrictEqual({ ...response, digest: response.digest.length }, {
        _tag: "Recompute",
        status: 200,
        ...meta,
        digest: 64
      })
      assert.isTrue(Idempotency.isRecomputed(response, answer))
      assert.isAtMost(Buffer.byteLength(JSON.stringify(response)), Idempotency.maxKeptBytes)

      // exactly the most bytes: kept whole, byte for byte
      const most = yield* reserved(fresh("idem"))
      const body = "é".repeat(Idempotency.maxKeptBytes / 2)
      yield* idempotency.complete(most, { status: 201, body, recompute: meta })
      assert.deepStrictEqual((yield* heldBy(most)).response, Option.some({ _tag: "Body" as const, status: 201, body }))

      // a byte more from an endpoint with effects (no `recompute`): a defect, and nothing kept
      const over = yield* reserved(fresh("idem"))
      const exit = yield* Effect.exit(idempotency.complete(over, { status: 201, body: `${body}!` }))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), "a defect")
      assert.deepStrictEqual((yield* heldBy(over)).response, Option.none())
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
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-3", T + 2), expiredBefore(0)),
        Option.some(again)
      )
      yield* store.release({ accountId, key: fresh("idem"), createdAt: T })
    }))

  it.effect("IdempotencyStore: a row created before expiredBefore is replaced", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const old = makeReservation(accountId, key, "fp-old", T)
      yield* store.reserve(old, expiredBefore(0))
      yield* store.complete(old, { _tag: "Body", status: 200, body: "{}" })

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
      yield* store.complete(first, { _tag: "Body", status: 500, body: "stalled" })
      yield* store.release(first)
      assert.deepStrictEqual(
        yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 45), abandonedBefore(T + 1)),
        Option.some(retry),
        "the retry still holds the key, with no response"
      )

      // a completed key is never abandoned
      yield* store.complete(retry, { _tag: "Body", status: 201, body: "{}" })
      const done = yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 50), abandonedBefore(T + 45))
      assert.deepStrictEqual(
        Option.map(done, (r) => r.response),
        Option.some(Option.some({ _tag: "Body" as const, status: 201, body: "{}" }))
      )
    }))

  it.effect("IdempotencyStore: of 20 concurrent reserves of one key exactly one wins", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const attempts = Array.from({ length: 20 }, (_, i) => makeReservation(accountId, key, `fp-${i}`, T + i))
      const results = yield* Effect.all(attempts.map((r) => store.reserve(r, expiredBefore(0))), {
        concurrency: "unbounded"
      })
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
      for (const record of old) {
        assert.isTrue(Option.isNone(yield* store.reserve({ ...record, fingerprint: "other" }, expiredBefore(0))))
      }
      const holder = yield* store.reserve({ ...kept, fingerprint: "other" }, expiredBefore(0))
      assert.strictEqual(Option.getOrThrow(holder).fingerprint, "fp", "a record after the time is kept")
    }))
}
