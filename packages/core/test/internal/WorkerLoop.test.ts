import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Logger, TestClock } from "effect"
import { loop } from "../../src/internal/worker.js"

interface Line {
  readonly level: string
  readonly text: string
  readonly withCause: boolean
}

describe("the worker loop", () => {
  it.effect("failing passes wait longer each time, up to 30 s, and are logged once, then every ten seconds, then on recovery", () =>
    Effect.gen(function*() {
      const lines: Array<Line> = []
      const keep = Logger.make(({ cause, logLevel, message }) => {
        lines.push({
          level: logLevel.label,
          text: Array.isArray(message) ? message.join(" ") : String(message),
          withCause: cause._tag !== "Empty"
        })
      })
      const passesAt: Array<number> = []
      let failing = true
      const pass = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        passesAt.push(now)
        return failing
          ? Effect.fail(new Error("the store is down"))
          : Effect.succeed({ taken: 0, full: false, backOff: false })
      })
      const worker = yield* Effect.fork(
        loop("Tester", pass, 1_000, () => Effect.void).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, keep)))
      )
      yield* TestClock.adjust(120_000)
      // 0, then waits of 1, 2, 4, 8, 16 s, then 30 s each
      assert.deepStrictEqual(passesAt, [0, 1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000])
      assert.deepStrictEqual(lines.map((l) => l.withCause), [true, false, false, false, false])
      assert.strictEqual(
        lines[0]!.text,
        "Tester: pass failed; retrying after 1000 ms, and less often while it keeps failing"
      )
      assert.deepStrictEqual(lines.slice(1).map((l) => l.text), [
        "Tester: 5 passes in a row failed (the store is down); the next in 16000 ms",
        "Tester: 6 passes in a row failed (the store is down); the next in 30000 ms",
        "Tester: 7 passes in a row failed (the store is down); the next in 30000 ms",
        "Tester: 8 passes in a row failed (the store is down); the next in 30000 ms"
      ])

      failing = false
      yield* TestClock.adjust(3_000)
      assert.deepStrictEqual(passesAt.slice(8), [121_000, 122_000, 123_000], "back to the poll interval")
      assert.strictEqual(lines.at(-1)!.text, "Tester: passes succeed again, after 8 failed")
      assert.strictEqual(lines.at(-1)!.level, "INFO")
      yield* Fiber.interrupt(worker)
    }))
})
