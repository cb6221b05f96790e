import { assert, layer } from "@effect/vitest"
import { Idempotency } from "@sendline/core"
import { Effect, Either, TestClock } from "effect"
import * as TestCore from "../TestCore.js"

const outcome = <E extends { readonly code: string }>(effect: Effect.Effect<Idempotency.Begun, E>) =>
  Effect.map(Effect.either(effect), (r) => Either.isLeft(r) ? r.left.code : r.right._tag === "Replay" ? "replay" : "go")

/** The reservation `begin` made, which must have gone ahead. */
const reserved = (begun: Idempotency.Begun) => {
  assert.strictEqual(begun._tag, "Reserved")
  return (begun as Extract<Idempotency.Begun, { _tag: "Reserved" }>).reservation
}

layer(TestCore.layer)("Idempotency", (it) => {
  it.effect("first use goes ahead, a repeat while running is in progress, after completion it replays", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      const reservation = reserved(yield* idempotency.begin(account.id, "k1", "f1"))
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k1", "f1")), "idempotency_in_progress")
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k1", "f2")), "idempotency_conflict")
      yield* idempotency.complete(reservation, { status: 201, body: "{\"ok\":true}" })
      const replay = yield* idempotency.begin(account.id, "k1", "f1")
      assert.deepStrictEqual(replay, { _tag: "Replay", response: { _tag: "Body", status: 201, body: "{\"ok\":true}" } })
    }))

  it.effect("a key left in progress over a minute (its process died) is taken over by the same request only", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      const stalled = reserved(yield* idempotency.begin(account.id, "k-abandoned", "f1"))
      yield* TestClock.adjust(Idempotency.abandonedAfterMillis)
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k-abandoned", "f1")), "idempotency_in_progress")
      yield* TestClock.adjust(1)
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k-abandoned", "f2")), "idempotency_conflict")
      const retry = reserved(yield* idempotency.begin(account.id, "k-abandoned", "f1"))
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k-abandoned", "f1")), "idempotency_in_progress")

      // the stalled request, if it was alive after all, touches its own reservation only
      yield* idempotency.release(stalled)
      yield* idempotency.complete(stalled, { status: 500, body: "stalled" })
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k-abandoned", "f1")), "idempotency_in_progress")
      yield* idempotency.complete(retry, { status: 201, body: "retry" })
      assert.deepStrictEqual(
        yield* idempotency.begin(account.id, "k-abandoned", "f1"),
        { _tag: "Replay", response: { _tag: "Body", status: 201, body: "retry" } }
      )
    }))

  it.effect("a released key may be used again", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      yield* idempotency.release(reserved(yield* idempotency.begin(account.id, "k", "f")))
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k", "other")), "go")
    }))

  it.effect("keys are kept 24 hours, then forgotten", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      yield* idempotency.complete(reserved(yield* idempotency.begin(account.id, "k", "f")), { status: 201, body: "{}" })
      yield* TestClock.adjust("24 hours")
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k", "g")), "idempotency_conflict")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* outcome(idempotency.begin(account.id, "k", "g")), "go")
    }))

  it.effect("concurrent first uses of one key: exactly one goes ahead", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      const results = yield* Effect.all(
        Array.from({ length: 20 }, () => outcome(idempotency.begin(account.id, "same", "f"))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => r === "go").length, 1)
      assert.strictEqual(results.filter((r) => r === "idempotency_in_progress").length, 19)
    }))

  it("accepts 1–255 printable characters as a key", () => {
    assert.isTrue(Idempotency.isValidKey("a"))
    assert.isTrue(Idempotency.isValidKey("x".repeat(255)))
    assert.isFalse(Idempotency.isValidKey(""))
    assert.isFalse(Idempotency.isValidKey("x".repeat(256)))
    assert.isFalse(Idempotency.isValidKey("tab\there"))
    assert.isFalse(Idempotency.isValidKey("clé"))
    assert.isFalse(Idempotency.isValidKey("a\nb"))
  })
})
