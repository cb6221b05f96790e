/**
 * `Readiness.ready`: the store's check as it answers, bounded by 2 seconds of the Clock; a check
 * that has not answered by then fails `TimedOut` (and not a moment before).
 */
import { assert, describe, it } from "@effect/vitest"
import { Readiness } from "@sendline/core"
import { type Context, Effect, Either, Fiber, Option, TestClock } from "effect"

const answering = (check: Context.Tag.Service<Readiness.Readiness>["check"]) =>
  Effect.provideService(Readiness.ready, Readiness.Readiness, { check })

describe("Readiness", () => {
  it.effect("the store's answer, ready or not, as it gives it", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* answering(Effect.succeed({ migration: "0015_webhook_deliveries" })), {
        migration: "0015_webhook_deliveries"
      })
      const behind = new Readiness.NotReady({
        reason: "MigrationsBehind",
        message: "The test database lacks 1 of the 15 migrations"
      })
      assert.deepStrictEqual(yield* Effect.either(answering(Effect.fail(behind))), Either.left(behind))
    }))

  it.effect("a store that has not answered within 2 seconds is not ready: TimedOut, and not a moment before", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.either(answering(Effect.never)))
      yield* TestClock.adjust("1999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "still waiting at 1.999 s")
      yield* TestClock.adjust("1 millis")
      const answer = yield* Fiber.join(fiber)
      assert.isTrue(Either.isLeft(answer))
      const error = (answer as Either.Left<Readiness.NotReady, unknown>).left
      assert.deepStrictEqual([error.reason, error.message], ["TimedOut", "The store did not answer within 2 seconds"])
    }))
})
