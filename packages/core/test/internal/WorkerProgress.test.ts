import { assert, describe, it } from "@effect/vitest"
import { DeliveryReports, Dispatcher, Messaging } from "@sendline/core"
import { Effect, Fiber, Logger, LogLevel, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

const dispatch = Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce)
const applyReports = Effect.flatMap(DeliveryReports.DeliveryReports, (d) => d.runOnce)

/** Runs `body` with a logger that keeps every info line; answers them with `body`'s result. */
const infoLines = <A, E, R>(body: (lines: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const keep = Logger.make(({ logLevel, message }) => {
    if (logLevel === LogLevel.Info) lines.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return body(lines).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, keep)))
}

const sendEach = (suffixes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { principal } = yield* TestCore.seedAccount()
    const messaging = yield* Messaging.Messaging
    for (const suffix of suffixes) {
      yield* messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to(suffix) })
    }
  })

const store = TestStores.all[0]!

describe("worker progress in the logs", () => {
  it.effect("the first moves are logged at once, later ones summed up at most every ten seconds", () =>
    infoLines((lines) =>
      Effect.gen(function*() {
        // 9999: the mock refuses it
        yield* sendEach(["5678", "5679", "9999"])
        yield* dispatch
        assert.deepStrictEqual(lines, ["Dispatcher: 2 messages sent, 1 failed"])

        yield* sendEach(["5680"])
        yield* dispatch
        assert.deepStrictEqual(lines.length, 1, "within ten seconds of the last line: counted, not logged")

        yield* TestClock.adjust("10 seconds")
        yield* sendEach(["5681"])
        yield* dispatch
        assert.deepStrictEqual(lines.slice(1), ["Dispatcher: 2 messages sent"])

        yield* applyReports
        assert.deepStrictEqual(lines.slice(2), ["DeliveryReports: 4 messages delivered"])
      })
    ).pipe(Effect.provide(TestWorkers.layer({ carrier: { reportDelay: 0 } }, store))))

  it.effect("messages the carrier did not take (7777: unavailable once) are logged with the pass, not only at debug level", () =>
    infoLines((lines) =>
      Effect.gen(function*() {
        yield* sendEach(["5678", "7777"])
        yield* dispatch
        assert.deepStrictEqual(lines, [
          "Dispatcher: 1 of 2 messages stay queued (the carrier was unavailable or throttled, or the Sender ID lookup failed); they are tried again when their lease ends",
          "Dispatcher: 1 message sent"
        ])
      })
    ).pipe(Effect.provide(TestWorkers.layer({}, store))))

  it.effect("moves not logged yet are logged by a later idle pass once ten seconds have passed, and when the worker stops", () =>
    infoLines((lines) =>
      Effect.gen(function*() {
        const dispatcher = yield* Dispatcher.Dispatcher
        yield* sendEach(["5678"])
        const running = yield* Effect.fork(dispatcher.run)
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(lines, ["Dispatcher: 1 message sent"])

        yield* sendEach(["5679", "9999"])
        yield* TestClock.adjust("1 second")
        assert.strictEqual(lines.length, 1, "within ten seconds of the last line: counted, not logged")
        yield* TestClock.adjust("9 seconds") // idle passes meanwhile
        assert.deepStrictEqual(lines.slice(1), ["Dispatcher: 1 message sent, 1 failed"])

        yield* sendEach(["5680"])
        yield* TestClock.adjust("1 second")
        assert.strictEqual(lines.length, 2)
        yield* Fiber.interrupt(running)
        assert.deepStrictEqual(lines.slice(2), ["Dispatcher: 1 message sent"], "logged as the worker stops")
      })
    ).pipe(Effect.provide(TestWorkers.layer({}, store))))

  it.effect("a pass that moves nothing writes nothing", () =>
    infoLines((lines) =>
      Effect.gen(function*() {
        yield* dispatch
        yield* applyReports
        assert.deepStrictEqual(lines, [])
      })
    ).pipe(Effect.provide(TestWorkers.layer({}, store))))
})
