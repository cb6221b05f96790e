import { assert, describe, it } from "@effect/vitest"
import { CarrierMock } from "@sendline/carrier-mock"
import { Carrier, Dispatcher, Ids, MessageStore, Messaging, Timestamp } from "@sendline/core"
import { Clock, Effect, Fiber, Option, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

const day = 86_400_000

const sendTo = (suffix: string) =>
  Effect.gen(function*() {
    const { principal } = yield* TestCore.seedAccount()
    return yield* (yield* Messaging.Messaging).send(principal, { ...TestCore.auMessage, to: TestWorkers.to(suffix) })
  })

const dispatch = Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce)

for (const store of TestStores.all) {
  describe(`Dispatcher (${store.name})`, () => {
    const storeLayer = (options?: TestWorkers.LayerOptions) => TestWorkers.layer(options, store)
    it.effect("queued → sent: sent_at from the Clock, message.sent with its data, the message id as reference", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("5678")
        yield* TestClock.adjust("3 seconds")
        const now = yield* Clock.currentTimeMillis
        assert.strictEqual(yield* dispatch, 1)

        const sent = yield* TestWorkers.load(message)
        // the carrier's id stored with it, for reports that name only that
        assert.deepStrictEqual(sent, { ...message, status: "sent", sentAt: now, carrierMessageId: "mock_00000001" })
        const events = yield* TestWorkers.events(message)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.sent"])
        assert.deepStrictEqual(events[1]!.data, {
          id: message.id,
          status: "sent",
          to: message.to,
          sender_id: "Acme",
          market: "AU",
          segments: 1,
          reference: null,
          created_at: Timestamp.format(message.createdAt),
          sent_at: Timestamp.format(now)
        })
        const journal = yield* (yield* CarrierMock.CarrierMock).journal
        assert.strictEqual(journal.length, 1)
        assert.deepStrictEqual(
          { reference: journal[0]!.reference, accountId: journal[0]!.accountId, decision: journal[0]!.decision },
          { reference: message.id, accountId: message.accountId, decision: "accepted" }
        )
        assert.strictEqual(yield* dispatch, 0, "nothing left to dispatch")
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a backlog of 5,000 queued by one account: another account's later send goes in the first pass, not after them", () =>
      Effect.gen(function*() {
        const messages = yield* MessageStore.MessageStore
        const ids = yield* Ids.IdGenerator
        // 5,000 queued by one account (written straight to the store, as a batch's accepted messages are)
        const first = yield* sendTo("5678")
        const backlog = [
          first,
          ...(yield* Effect.forEach(
            Array.from({ length: 4_999 }),
            (_, i) => Effect.map(ids.make("msg"), (id) => ({ ...first, id, createdAt: first.createdAt + 1 + i }))
          ))
        ]
        yield* Effect.forEach(backlog.slice(1), (m) => messages.insert(m, Option.none()), {
          concurrency: 256,
          discard: true
        })
        yield* TestClock.adjust("10 seconds")
        const single = yield* sendTo("5679")
        assert.notStrictEqual(single.accountId, first.accountId)

        assert.strictEqual(yield* dispatch, 100, "a pass of the default batch")
        assert.strictEqual((yield* TestWorkers.load(single)).status, "sent", "the later send in the first pass")
        // the rest of the pass went to the backlog's oldest (its 300 oldest read back)
        const statuses = Effect.forEach(backlog.slice(0, 300), (m) => Effect.map(TestWorkers.load(m), (s) => s.status))
        const sentFirst = (count: number) => [...Array(count).fill("sent"), ...Array(300 - count).fill("queued")]
        assert.deepStrictEqual(yield* statuses, sentFirst(99))
        // and it goes on, a pass of 100 at a time, in its order
        assert.strictEqual(yield* dispatch, 100)
        assert.deepStrictEqual(yield* statuses, sentFirst(199))
      }).pipe(Effect.provide(storeLayer())))

    it.effect("carrier refusal → failed with the carrier's code and message.failed", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("9999")
        yield* dispatch
        const failed = yield* TestWorkers.load(message)
        assert.strictEqual(failed.status, "failed")
        assert.deepStrictEqual(failed.error, CarrierMock.refusedError)
        assert.isUndefined(failed.sentAt)
        const events = yield* TestWorkers.events(message)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.failed"])
        assert.deepStrictEqual(events[1]!.data.error, CarrierMock.refusedError)
        assert.strictEqual(yield* dispatch, 0, "a failed message is not tried again")
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a Sender ID that expired after acceptance → failed sender_id_not_registered, never submitted", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("5678")
        yield* TestClock.adjust(`${365 * day} millis`)
        yield* dispatch
        const failed = yield* TestWorkers.load(message)
        assert.strictEqual(failed.status, "failed")
        assert.strictEqual(failed.error?.code, "sender_id_not_registered")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued", "message.failed"])
        assert.deepStrictEqual(yield* TestWorkers.decisions(message), [])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a Sender ID that is not registered at all → failed sender_id_not_registered", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("5678")
        // a message under a Sender ID that was never registered (written past the send checks)
        const orphan = { ...message, id: yield* (yield* Ids.IdGenerator).make("msg"), senderId: "Ghost" }
        yield* (yield* MessageStore.MessageStore).insert(orphan, Option.none())
        assert.strictEqual(yield* dispatch, 2)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "sent")
        const failed = yield* TestWorkers.load(orphan)
        assert.strictEqual(failed.status, "failed")
        assert.strictEqual(failed.error?.code, "sender_id_not_registered")
        assert.deepStrictEqual(yield* TestWorkers.decisions(orphan), [])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("carrier unavailable → stays queued, claimed until the lease ends, then sent", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("7777")
        assert.strictEqual(yield* dispatch, 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued"])
        yield* TestClock.adjust("29999 millis")
        assert.strictEqual(yield* dispatch, 0, "held by its lease")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* dispatch, 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "sent")
        assert.deepStrictEqual(yield* TestWorkers.decisions(message), ["unavailable", "accepted"])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("throttled by the carrier's cap → retried after the lease, each message charged once", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const all = yield* Effect.forEach(
          Array.from({ length: 5 }),
          () => messaging.send(principal, TestCore.auMessage)
        )
        const statuses = Effect.forEach(all, (m) => Effect.map(TestWorkers.load(m), (s) => s.status))
        yield* dispatch
        assert.strictEqual((yield* statuses).filter((s) => s === "sent").length, 2)
        yield* TestClock.adjust("30 seconds")
        yield* dispatch
        assert.strictEqual((yield* statuses).filter((s) => s === "sent").length, 4)
        yield* TestClock.adjust("30 seconds")
        yield* dispatch
        assert.deepStrictEqual(yield* statuses, ["sent", "sent", "sent", "sent", "sent"])
        const mock = yield* CarrierMock.CarrierMock
        assert.strictEqual(yield* mock.charged, 5)
        assert.strictEqual((yield* mock.journal).filter((e) => e.decision === "throttled").length, 4)
      }).pipe(Effect.provide(storeLayer({ carrier: { maxPerSecond: 2 } }))))

    it.effect("a carrier too slow for the lease: submissions end by its deadline, the rest wait for the lease to end", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const all = yield* Effect.forEach(
          Array.from({ length: 5 }),
          () => messaging.send(principal, TestCore.auMessage)
        )
        const statuses = Effect.forEach(all, (m) => Effect.map(TestWorkers.load(m), (s) => s.status))
        // one at a time, 10 s each: two answers by the deadline (24 s of a 30 s lease), three interrupted
        const dispatcher = yield* Dispatcher.make({ concurrency: 1, leaseMillis: 30_000 })
        const submitting = TestWorkers.eventually("a submission under way", TestWorkers.sleepingFor(10_000))
        const pass = yield* Effect.fork(dispatcher.runOnce)
        yield* submitting // the claim may be real I/O: time moves once the pass waits on the carrier
        yield* TestClock.adjust("24 seconds")
        assert.strictEqual(yield* Fiber.join(pass), 5)
        assert.deepStrictEqual(yield* statuses, ["sent", "sent", "queued", "queued", "queued"])
        yield* TestClock.adjust("5999 millis")
        assert.strictEqual(yield* dispatcher.runOnce, 0, "still held by the lease")
        yield* TestClock.adjust("1 millis")
        const next = yield* Effect.fork(dispatcher.runOnce)
        yield* submitting
        yield* TestClock.adjust("24 seconds")
        assert.strictEqual(yield* Fiber.join(next), 3, "the three left, claimed again")
        assert.deepStrictEqual(yield* statuses, ["sent", "sent", "sent", "sent", "queued"])
        assert.strictEqual(
          yield* (yield* CarrierMock.CarrierMock).charged,
          4,
          "an interrupted submission was never accepted"
        )
      }).pipe(Effect.provide(storeLayer({ carrier: { submitLatency: "10 seconds" } }))))

    it.effect("the crash window: accepted by the carrier but never marked sent → resubmitted once the lease ends, not charged twice", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("5678")
        const store = yield* MessageStore.MessageStore
        const carrier = yield* Carrier.Carrier
        // a dispatcher claims the message, the carrier accepts it, and the process dies before `sent`
        const now = yield* Clock.currentTimeMillis
        assert.strictEqual((yield* store.claim("dispatch", now, 100, now + 30_000)).length, 1)
        const first = yield* carrier.submit(Carrier.outbound(message))
        assert.strictEqual(yield* dispatch, 0, "still claimed by the dead dispatcher")

        yield* TestClock.adjust("30 seconds")
        assert.strictEqual(yield* dispatch, 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "sent")
        assert.deepStrictEqual(yield* TestWorkers.decisions(message), ["accepted", "duplicate"])
        const journal = yield* (yield* CarrierMock.CarrierMock).journal
        assert.strictEqual(journal[1]!.carrierMessageId, first.carrierMessageId, "the same carrier message")
        assert.strictEqual(yield* (yield* CarrierMock.CarrierMock).charged, 1)
        assert.strictEqual((yield* (yield* CarrierMock.CarrierMock).pendingReports).length, 1, "one report to come")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued", "message.sent"])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("two dispatchers at once never submit the same message", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        const all = yield* Effect.forEach(
          Array.from({ length: 30 }),
          () => messaging.send(principal, TestCore.auMessage)
        )
        const other = yield* Dispatcher.make({ batchSize: 7, concurrency: 3 })
        const mine = yield* Dispatcher.make({ batchSize: 7, concurrency: 3 })
        const drain = (d: typeof mine) => Effect.repeat(d.runOnce, { until: (n) => n === 0 })
        const fiber = yield* Effect.fork(Effect.all([drain(other), drain(mine)], { concurrency: "unbounded" }))
        // every submission takes 100 ms of Clock time; the clock moves until both have drained, since
        // a move made while a dispatcher still waits on the database would not reach its sleeps
        while (Option.isNone(yield* Fiber.poll(fiber))) yield* TestClock.adjust("100 millis")
        yield* Fiber.join(fiber)
        const journal = yield* (yield* CarrierMock.CarrierMock).journal
        assert.deepStrictEqual(journal.map((e) => e.decision), all.map(() => "accepted"))
        assert.deepStrictEqual(journal.map((e) => e.reference).sort(), all.map((m) => m.id).sort())
        for (const m of all) assert.strictEqual((yield* TestWorkers.load(m)).status, "sent")
      }).pipe(Effect.provide(storeLayer({ carrier: { submitLatency: "100 millis" } }))))

    it.effect("a full pass in which the carrier did not take one message goes on at once, not a poll later", () =>
      Effect.gen(function*() {
        // 7777: unavailable on its first submission; it waits for its lease, the others need not
        yield* sendTo("7777")
        yield* sendTo("5678")
        const rest = [yield* sendTo("5679"), yield* sendTo("5680")]
        const dispatcher = yield* Dispatcher.make({ batchSize: 2, pollMillis: 60_000 })
        const running = yield* Effect.fork(dispatcher.run)
        yield* TestWorkers.eventually(
          "the next batch sent without waiting a poll",
          Effect.map(Effect.forEach(rest, TestWorkers.load), (loaded) => loaded.every((m) => m.status === "sent"))
        )
        yield* Fiber.interrupt(running)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a pass in which the carrier took nothing waits a poll before the next", () =>
      Effect.gen(function*() {
        // one account's: its two oldest, which the carrier cannot take, fill the first pass
        const { principal } = yield* TestCore.seedAccount()
        const send = (suffix: string) =>
          Effect.flatMap(
            Messaging.Messaging,
            (messaging) => messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to(suffix) })
          )
        yield* send("7777")
        yield* send("7777")
        const rest = [yield* send("5679")]
        const dispatcher = yield* Dispatcher.make({ batchSize: 2, pollMillis: 60_000 })
        const running = yield* Effect.fork(dispatcher.run)
        yield* TestWorkers.eventually(
          "the first pass done",
          Effect.map(Effect.flatMap(CarrierMock.CarrierMock, (mock) => mock.journal), (journal) => journal.length === 2)
        )
        yield* TestClock.adjust("59 seconds")
        assert.strictEqual((yield* TestWorkers.load(rest[0]!)).status, "queued", "not before the poll")
        yield* TestClock.adjust("1 second")
        yield* TestWorkers.eventually(
          "sent once the poll came",
          Effect.map(TestWorkers.load(rest[0]!), (m) => m.status === "sent")
        )
        yield* Fiber.interrupt(running)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("one pass claims at most batchSize messages", () =>
      Effect.gen(function*() {
        const { principal } = yield* TestCore.seedAccount()
        const messaging = yield* Messaging.Messaging
        yield* Effect.forEach(Array.from({ length: 12 }), () => messaging.send(principal, TestCore.auMessage))
        const dispatcher = yield* Dispatcher.make({ batchSize: 5 })
        assert.deepStrictEqual([yield* dispatcher.runOnce, yield* dispatcher.runOnce, yield* dispatcher.runOnce], [
          5,
          5,
          2
        ])
      }).pipe(Effect.provide(storeLayer())))
  })
}
