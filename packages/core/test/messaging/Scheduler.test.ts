import { assert, describe, it } from "@effect/vitest"
import { Dispatcher, MessageStore, Messaging, Scheduler } from "@sendline/core"
import { Clock, Deferred, Effect, Fiber, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

const day = 86_400_000

const schedule = Effect.flatMap(Scheduler.Scheduler, (s) => s.runOnce)

for (const store of TestStores.all) {
  describe(`Scheduler (${store.name})`, () => {
    const storeLayer = (options?: TestWorkers.LayerOptions) => TestWorkers.layer(options, store)
    it.effect("scheduled → queued at scheduled_at, not a millisecond before, with message.queued; then dispatched", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const at = (yield* Clock.currentTimeMillis) + 90_000
        const message = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: at })
        yield* TestClock.adjust("89999 millis")
        assert.strictEqual(yield* schedule, 0)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "scheduled")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* schedule, 1)
        const queued = yield* TestWorkers.load(message)
        assert.deepStrictEqual(queued, { ...message, status: "queued" })
        const events = yield* TestWorkers.events(message)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued"])
        assert.strictEqual(events[0]!.createdAt, at)
        assert.strictEqual(events[0]!.data.status, "queued")
        assert.strictEqual(yield* schedule, 0, "queued once")

        yield* Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "sent")
      }).pipe(Effect.provide(storeLayer())))

    it.effect("the 7-day edge: a message scheduled exactly 7 days ahead is queued exactly then", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const now = yield* Clock.currentTimeMillis
        const message = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: now + 7 * day })
        yield* TestClock.adjust(`${7 * day - 1} millis`)
        assert.strictEqual(yield* schedule, 0)
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* schedule, 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
      }).pipe(Effect.provide(storeLayer())))

    it.effect("due messages are queued oldest scheduled_at first, a batch at a time", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const now = yield* Clock.currentTimeMillis
        const late = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: now + 3_000 })
        const early = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: now + 1_000 })
        const middle = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: now + 2_000 })
        yield* TestClock.adjust("3 seconds")
        const scheduler = yield* Scheduler.make({ batchSize: 2 })
        assert.strictEqual(yield* scheduler.runOnce, 2)
        assert.deepStrictEqual(
          yield* Effect.forEach([early, middle, late], (m) => Effect.map(TestWorkers.load(m), (s) => s.status)),
          ["queued", "queued", "scheduled"]
        )
        assert.strictEqual(yield* scheduler.runOnce, 1)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a cancelled message is never queued", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const message = yield* messaging.send(principal, {
          ...TestCore.auMessage,
          scheduledAt: (yield* Clock.currentTimeMillis) + 1_000
        })
        yield* messaging.cancel(principal, message.id)
        yield* TestClock.adjust("1 hour")
        assert.strictEqual(yield* schedule, 0)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "cancelled")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), [])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("cancel vs scheduler, cancel first: the scheduler's claim loses, no message.queued", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const message = yield* messaging.send(principal, {
          ...TestCore.auMessage,
          scheduledAt: (yield* Clock.currentTimeMillis) + 1_000
        })
        yield* TestClock.adjust("1 second")
        // a scheduler that stops between its claim and its transition until the cancel is through
        const store = yield* MessageStore.MessageStore
        const claimed = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const gated = MessageStore.MessageStore.of({
          ...store,
          transition: (moves) =>
            Deferred.succeed(claimed, undefined).pipe(
              Effect.zipRight(Deferred.await(gate)),
              Effect.zipRight(store.transition(moves))
            )
        })
        const scheduler = yield* Scheduler.make().pipe(Effect.provideService(MessageStore.MessageStore, gated))
        const fiber = yield* Effect.fork(scheduler.runOnce)
        yield* Deferred.await(claimed)
        assert.strictEqual((yield* messaging.cancel(principal, message.id)).status, "cancelled")
        yield* Deferred.succeed(gate, undefined)
        assert.strictEqual(yield* Fiber.join(fiber), 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "cancelled")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), [])
        assert.strictEqual(yield* Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce), 0, "nothing to dispatch")
      }).pipe(Effect.provide(storeLayer())))

    it.effect("cancel vs scheduler, scheduler first: the cancel is refused with invalid_state_transition", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const message = yield* messaging.send(principal, {
          ...TestCore.auMessage,
          scheduledAt: (yield* Clock.currentTimeMillis) + 1_000
        })
        yield* TestClock.adjust("1 second")
        assert.strictEqual(yield* schedule, 1)
        assert.strictEqual(yield* TestCore.outcome(messaging.cancel(principal, message.id)), "invalid_state_transition")
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued"])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("cancels racing the scheduler on 20 due messages: for each, exactly one wins", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const at = (yield* Clock.currentTimeMillis) + 1_000
        const all = yield* Effect.forEach(
          Array.from({ length: 20 }),
          () => messaging.send(principal, { ...TestCore.auMessage, scheduledAt: at })
        )
        yield* TestClock.adjust("1 second")
        const scheduler = yield* Scheduler.make({ batchSize: 3 })
        const [, cancels] = yield* Effect.all([
          Effect.repeat(scheduler.runOnce, { until: (n) => n === 0 }),
          Effect.all(all.map((m) => TestCore.outcome(messaging.cancel(principal, m.id))), { concurrency: "unbounded" })
        ], { concurrency: "unbounded" })
        for (const [i, m] of all.entries()) {
          const status = (yield* TestWorkers.load(m)).status
          const events = yield* TestWorkers.eventTypes(m)
          if (cancels[i] === "ok") {
            assert.strictEqual(status, "cancelled")
            assert.deepStrictEqual(events, [])
          } else {
            assert.strictEqual(cancels[i], "invalid_state_transition")
            assert.strictEqual(status, "queued")
            assert.deepStrictEqual(events, ["message.queued"])
          }
        }
      }).pipe(Effect.provide(storeLayer())))
  })
}
