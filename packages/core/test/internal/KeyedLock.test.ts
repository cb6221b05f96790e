import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import * as KeyedLock from "../../src/internal/keyedLock.js"

describe("KeyedLock", () => {
  it.effect("effects of one key run one after another while another key runs meanwhile", () =>
    Effect.gen(function*() {
      const withKey = KeyedLock.make()
      const ran: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.fork(
        withKey("a", Effect.zipRight(Deferred.await(gate), Effect.sync(() => ran.push("a1"))))
      )
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(withKey("a", Effect.sync(() => ran.push("a2"))))
      yield* withKey("b", Effect.sync(() => ran.push("b1")))
      yield* Effect.yieldNow()
      assert.deepStrictEqual(ran, ["b1"], "a2 waits for a1; b1 does not")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(ran, ["b1", "a1", "a2"])
    }))

  it.effect("a holder that fails or is interrupted lets the next one run", () =>
    Effect.gen(function*() {
      const withKey = KeyedLock.make()
      assert.isTrue(Exit.isFailure(yield* Effect.exit(withKey("k", Effect.fail("boom")))))
      const holder = yield* Effect.fork(withKey("k", Effect.never))
      yield* Effect.yieldNow()
      const waiter = yield* Effect.fork(withKey("k", Effect.succeed("ran")))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(holder)
      assert.strictEqual(yield* Fiber.join(waiter), "ran")
    }))

  it.effect("an interrupted waiter neither runs nor blocks the ones after it", () =>
    Effect.gen(function*() {
      const withKey = KeyedLock.make()
      const gate = yield* Deferred.make<void>()
      const ran: Array<string> = []
      const holder = yield* Effect.fork(withKey("k", Deferred.await(gate)))
      yield* Effect.yieldNow()
      const impatient = yield* Effect.fork(withKey("k", Effect.sync(() => ran.push("impatient"))))
      const patient = yield* Effect.fork(withKey("k", Effect.sync(() => ran.push("patient"))))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(impatient)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(patient)
      assert.deepStrictEqual(ran, ["patient"])
    }))
})
