import { assert, describe, it } from "@effect/vitest"
import { CarrierMock } from "@sendline/carrier-mock"
import { Dispatcher, Messaging, Workers } from "@sendline/core"
import { CapturingMailer, CapturingTransport } from "@sendline/core/testing"
import { Clock, Effect, Exit, Fiber, Layer, Scope, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

/** Use cases, the carrier mock, a capturing mailer and the workers running in the background. */
const running = (store: TestStores.TestStore, options: Workers.Options = {}) =>
  Workers.layer(options).pipe(
    Layer.provideMerge(
      Layer.mergeAll(CarrierMock.layer({ reportDelay: "5 seconds" }), CapturingMailer.layer, CapturingTransport.layer)
    ),
    Layer.provideMerge(TestCore.layerOn(store.layer()))
  )

for (const store of TestStores.all) {
  describe(`Lifecycle (workers running on the Clock) (${store.name})`, () => {
    it.effect("every path: scheduled → queued → sent → delivered, undelivered, failed, cancelled", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const now = yield* Clock.currentTimeMillis
        const send = (suffix: string, scheduledAt?: number) =>
          messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to(suffix), scheduledAt })
        const scheduled = yield* send("5678", now + 60_000)
        const cancelled = yield* send("5678", now + 60_000)
        const undelivered = yield* send("0000")
        const refused = yield* send("9999")
        const silent = yield* send("5555")
        yield* messaging.cancel(principal, cancelled.id)

        const status = (m: typeof scheduled) => Effect.map(TestWorkers.load(m), (s) => s.status)
        yield* TestClock.adjust("1 second")
        yield* TestWorkers.eventually("undelivered sent", TestWorkers.hasStatus(undelivered, "sent"))
        yield* TestWorkers.eventually("refused failed", TestWorkers.hasStatus(refused, "failed"))
        assert.strictEqual(yield* status(scheduled), "scheduled")
        yield* TestClock.adjust("6 seconds")
        yield* TestWorkers.eventually("undelivered reported", TestWorkers.hasStatus(undelivered, "undelivered"))

        yield* TestClock.adjust("52 seconds") // a second before scheduled_at
        assert.strictEqual(yield* status(scheduled), "scheduled")
        yield* TestWorkers.advanceUntil("scheduled sent", TestWorkers.hasStatus(scheduled, "sent"))
        yield* TestWorkers.advanceUntil("scheduled delivered", TestWorkers.hasStatus(scheduled, "delivered"))
        const delivered = yield* TestWorkers.load(scheduled)
        assert.strictEqual(delivered.deliveredAt, delivered.sentAt! + 5_000)
        assert.isAtMost(delivered.sentAt! - delivered.scheduledAt!, 3_000, "sent within three polls of scheduled_at")

        assert.deepStrictEqual(yield* TestWorkers.eventTypes(scheduled), [
          "message.queued",
          "message.sent",
          "message.delivered"
        ])
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(undelivered), [
          "message.queued",
          "message.sent",
          "message.undelivered"
        ])
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(refused), ["message.queued", "message.failed"])
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(cancelled), [])
        assert.strictEqual(yield* status(cancelled), "cancelled")
        assert.strictEqual(yield* status(silent), "sent")
      }).pipe(Effect.provide(running(store))))

    it.effect("a full batch is followed at once by the next: a backlog drains within one poll", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const all = yield* Effect.forEach(
          Array.from({ length: 23 }),
          () => messaging.send(principal, TestCore.auMessage)
        )
        yield* TestClock.adjust("1 second")
        for (const m of all) yield* TestWorkers.eventually(`${m.id} sent`, TestWorkers.hasStatus(m, "sent"))
      }).pipe(Effect.provide(running(store, { dispatcher: { batchSize: 5 } }))))

    it.effect("closing the workers' scope stops them; the store stays usable", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(Workers.layer(), scope)
        const first = yield* messaging.send(principal, TestCore.auMessage)
        yield* TestClock.adjust("1 second")
        yield* TestWorkers.eventually("first sent", TestWorkers.hasStatus(first, "sent"))

        yield* Scope.close(scope, Exit.void)
        const second = yield* messaging.send(principal, TestCore.auMessage)
        yield* TestClock.adjust("1 minute")
        assert.strictEqual((yield* TestWorkers.load(second)).status, "queued", "no dispatcher runs any more")
        assert.strictEqual((yield* TestWorkers.load(first)).status, "sent", "nor a delivery-report worker")
      }).pipe(
        Effect.provide(
          Layer.mergeAll(CarrierMock.layer(), CapturingMailer.layer, CapturingTransport.layer).pipe(
            Layer.provideMerge(TestCore.layerOn(store.layer()))
          )
        )
      ))

    it.effect("stopping during a submission leaves the message queued for whoever claims it next", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const message = yield* (yield* Messaging.Messaging).send(principal, TestCore.auMessage)
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(Workers.layer(), scope)
        yield* TestWorkers.eventually("the dispatcher is submitting", TestWorkers.sleepingFor(500))
        yield* TestClock.adjust("200 millis") // the dispatcher submitted at once; the carrier answers at 500 ms
        yield* Scope.close(scope, Exit.void)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
        assert.deepStrictEqual(yield* TestWorkers.decisions(message), [], "the carrier never answered")

        const next = yield* Dispatcher.make()
        yield* TestClock.adjust("29799 millis")
        assert.strictEqual(yield* next.runOnce, 0, "still under the stopped dispatcher's lease")
        yield* TestClock.adjust("1 millis")
        const fiber = yield* Effect.fork(next.runOnce)
        yield* TestWorkers.eventually("the next dispatcher is submitting", TestWorkers.sleepingFor(500))
        yield* TestClock.adjust("500 millis")
        assert.strictEqual(yield* Fiber.join(fiber), 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "sent")
      }).pipe(Effect.provide(
        Layer.mergeAll(
          CarrierMock.layer({ submitLatency: "500 millis" }),
          CapturingMailer.layer,
          CapturingTransport.layer
        ).pipe(
          Layer.provideMerge(TestCore.layerOn(store.layer()))
        )
      )))
  })
}
