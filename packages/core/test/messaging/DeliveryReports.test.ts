import { assert, describe, it } from "@effect/vitest"
import { CarrierMock } from "@sendline/carrier-mock"
import {
  Carrier,
  DeliveryReportInbox,
  DeliveryReports,
  Dispatcher,
  Errors,
  MessageStore,
  Messaging,
  Timestamp
} from "@sendline/core"
import { Chunk, Clock, Effect, Fiber, Option, Queue, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

const adjust = (millis: number) => TestClock.adjust(`${millis} millis`)
const dispatch = Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce)
const report = Effect.flatMap(DeliveryReports.DeliveryReports, (r) => r.runOnce)

const sendTo = (suffix: string) =>
  Effect.gen(function*() {
    const { principal } = yield* TestCore.seedAccount()
    return yield* (yield* Messaging.Messaging).send(principal, { ...TestCore.auMessage, to: TestWorkers.to(suffix) })
  })

/** Sends and dispatches a message, returning it as `sent`. */
const sentTo = (suffix: string) =>
  Effect.gen(function*() {
    const message = yield* sendTo(suffix)
    yield* dispatch
    return yield* TestWorkers.load(message)
  })

for (const store of TestStores.all) {
  describe(`DeliveryReports (${store.name})`, () => {
    const storeLayer = (options?: TestWorkers.LayerOptions) => TestWorkers.layer(options, store)
    it.effect("sent → delivered at the carrier's time, the price quoted at send, message.delivered with price", () =>
      Effect.gen(function*() {
        const sent = yield* sentTo("5678")
        yield* adjust(1_999)
        assert.strictEqual(yield* report, 0, "the report is not due yet")
        yield* adjust(1)
        yield* adjust(500) // the worker takes it a little later than the network sent it
        assert.strictEqual(yield* report, 1)
        const delivered = yield* TestWorkers.load(sent)
        assert.deepStrictEqual(delivered, { ...sent, status: "delivered", deliveredAt: sent.sentAt! + 2_000 })
        assert.deepStrictEqual(delivered.price, { amount: "0.0500", currency: "AUD" })
        const events = yield* TestWorkers.events(sent)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.sent", "message.delivered"])
        assert.deepStrictEqual(events[2]!.data, {
          id: sent.id,
          status: "delivered",
          to: sent.to,
          sender_id: "Acme",
          market: "AU",
          segments: 1,
          reference: null,
          created_at: Timestamp.format(sent.createdAt),
          delivered_at: Timestamp.format(sent.sentAt! + 2_000),
          price: { amount: "0.0500", currency: "AUD" }
        })
        assert.strictEqual(events[2]!.createdAt, sent.sentAt! + 2_500)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("sent → undelivered with the carrier's error and message.undelivered", () =>
      Effect.gen(function*() {
        const sent = yield* sentTo("0000")
        yield* adjust(2_000)
        assert.strictEqual(yield* report, 1)
        const undelivered = yield* TestWorkers.load(sent)
        assert.strictEqual(undelivered.status, "undelivered")
        assert.deepStrictEqual(undelivered.error, CarrierMock.undeliveredError)
        assert.isUndefined(undelivered.deliveredAt)
        const events = yield* TestWorkers.events(sent)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.sent", "message.undelivered"])
        assert.deepStrictEqual(events[2]!.data.error, CarrierMock.undeliveredError)
        assert.isFalse("price" in events[2]!.data)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("an undelivered report without an error → carrier_error, a normalised code (CONTRACT §11)", () =>
      Effect.gen(function*() {
        const mock = yield* CarrierMock.CarrierMock
        const sent = yield* sentTo("5555")
        const now = yield* Clock.currentTimeMillis
        yield* mock.injectReport({ carrierMessageId: sent.carrierMessageId!, outcome: "undelivered", at: now })
        assert.strictEqual(yield* report, 1)
        const undelivered = yield* TestWorkers.load(sent)
        assert.deepStrictEqual([undelivered.status, undelivered.error?.code], ["undelivered", "carrier_error"])
        const events = yield* TestWorkers.events(sent)
        assert.deepStrictEqual(events[2]!.data.error, undelivered.error)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a message the network never reports stays sent", () =>
      Effect.gen(function*() {
        const sent = yield* sentTo("5555")
        yield* adjust(86_400_000)
        assert.strictEqual(yield* report, 0)
        assert.strictEqual((yield* TestWorkers.load(sent)).status, "sent")
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a report naming only the carrier's id finds its message by the id the Dispatcher stored; an unknown id is held, then dropped", () =>
      Effect.gen(function*() {
        const mock = yield* CarrierMock.CarrierMock
        const sent = yield* sentTo("5555")
        assert.strictEqual(
          sent.carrierMessageId,
          (yield* mock.journal)[0]!.carrierMessageId,
          "stored with the sent message"
        )
        const now = yield* Clock.currentTimeMillis
        yield* mock.injectReport({
          carrierMessageId: sent.carrierMessageId!,
          outcome: "undelivered",
          error: { code: "expired", message: "Expired." },
          at: now
        })
        yield* mock.injectReport({ carrierMessageId: "smsc-unknown", outcome: "delivered", at: now })
        assert.strictEqual(yield* report, 2)
        const undelivered = yield* TestWorkers.load(sent)
        assert.deepStrictEqual([undelivered.status, undelivered.error], ["undelivered", {
          code: "expired",
          message: "Expired."
        }])
        const held = yield* Effect.flatMap(DeliveryReports.DeliveryReports, (r) => r.held)
        assert.deepStrictEqual(
          held.map((r) => r.carrierMessageId),
          ["smsc-unknown"],
          "perhaps not recorded yet by another dispatcher"
        )
        yield* adjust(DeliveryReports.defaults.holdMillis)
        yield* report
        assert.deepStrictEqual(yield* Effect.flatMap(DeliveryReports.DeliveryReports, (r) => r.held), [])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("reports for unknown messages, other accounts' ids, or messages already final are ignored", () =>
      Effect.gen(function*() {
        const mock = yield* CarrierMock.CarrierMock
        const sent = yield* sentTo("5678")
        yield* adjust(2_000)
        assert.strictEqual(yield* report, 1)
        const now = yield* Clock.currentTimeMillis
        const base = { carrierMessageId: "mock_x", at: now }
        yield* mock.injectReport({ ...base, reference: "msg_unknown", accountId: sent.accountId, outcome: "delivered" })
        yield* mock.injectReport({ ...base, reference: sent.id, accountId: "acct_other", outcome: "undelivered" })
        yield* mock.injectReport({ ...base, reference: sent.id, accountId: sent.accountId, outcome: "undelivered" })
        assert.strictEqual(yield* report, 3)
        assert.strictEqual((yield* TestWorkers.load(sent)).status, "delivered")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(sent), [
          "message.queued",
          "message.sent",
          "message.delivered"
        ])
        assert.deepStrictEqual(yield* (yield* DeliveryReports.DeliveryReports).held, [])
      }).pipe(Effect.provide(storeLayer())))

    it.effect("two reports for one message in one batch: exactly one moves it", () =>
      Effect.gen(function*() {
        const mock = yield* CarrierMock.CarrierMock
        const sent = yield* sentTo("5678")
        const now = yield* Clock.currentTimeMillis
        yield* mock.injectReport({
          reference: sent.id,
          accountId: sent.accountId,
          carrierMessageId: "c",
          outcome: "undelivered",
          at: now
        })
        yield* adjust(2_000)
        assert.strictEqual(yield* report, 2)
        const events = yield* TestWorkers.eventTypes(sent)
        assert.strictEqual(events.length, 3)
        assert.strictEqual(events[2], `message.${(yield* TestWorkers.load(sent)).status}`)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a report that overtakes its `sent` (the crash window) is held until the message is sent", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("5678")
        const store = yield* MessageStore.MessageStore
        const now = yield* Clock.currentTimeMillis
        // a dispatcher claims it, the carrier accepts it, the dispatcher dies before writing `sent`
        yield* store.claim("dispatch", now, 100, now + 30_000)
        yield* (yield* Carrier.Carrier).submit(Carrier.outbound(message))
        yield* adjust(2_000)
        assert.strictEqual(yield* report, 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
        assert.deepStrictEqual((yield* (yield* DeliveryReports.DeliveryReports).held).map((r) => r.reference), [
          message.id
        ])

        yield* adjust(28_000) // the lease ends: another dispatcher resubmits; the carrier dedupes
        assert.strictEqual(yield* dispatch, 1)
        assert.strictEqual(yield* report, 0, "nothing new from the carrier, but the held report applies")
        const delivered = yield* TestWorkers.load(message)
        assert.strictEqual(delivered.status, "delivered")
        assert.strictEqual(delivered.deliveredAt, delivered.sentAt, "never delivered before it was sent")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), [
          "message.queued",
          "message.sent",
          "message.delivered"
        ])
        assert.deepStrictEqual(yield* (yield* DeliveryReports.DeliveryReports).held, [])
        assert.strictEqual(yield* (yield* CarrierMock.CarrierMock).charged, 1)
      }).pipe(Effect.provide(storeLayer())))

    it.effect("while the store fails, reports are held however long and the rest stay with the carrier", () =>
      Effect.gen(function*() {
        const sent = yield* Effect.forEach(["5678", "5679", "5680", "5681", "5682"], sentTo)
        yield* adjust(2_000) // the carrier has a report for each
        const store = yield* MessageStore.MessageStore
        let failing = true
        const flaky = MessageStore.MessageStore.of({
          ...store,
          findMany: (keys) =>
            Effect.suspend(() =>
              failing ? Effect.fail(new Errors.StoreUnavailable({ message: "down" })) : store.findMany(keys)
            )
        })
        const reports = yield* Effect.provideService(
          DeliveryReports.make({ batchSize: 2, holdMillis: 60_000 }),
          MessageStore.MessageStore,
          flaky
        )
        assert.strictEqual(yield* reports.runOnce, 2, "one batch taken; the store fails")
        assert.strictEqual(yield* reports.runOnce, 0, "no more taken while it fails")
        yield* adjust(600_000) // far past holdMillis
        assert.strictEqual(yield* reports.runOnce, 0)
        assert.strictEqual((yield* reports.held).length, 2, "held, not dropped")

        failing = false
        assert.strictEqual(yield* reports.runOnce, 0, "the held reports first")
        assert.deepStrictEqual(yield* reports.held, [])
        assert.strictEqual(yield* reports.runOnce, 2)
        assert.strictEqual(yield* reports.runOnce, 1)
        for (const message of sent) {
          assert.strictEqual((yield* TestWorkers.load(message)).status, "delivered", message.to)
        }
      }).pipe(Effect.provide(storeLayer())))

    it.effect("over a push-based inbox (a bounded queue), a failing store makes the network's pushes wait", () =>
      Effect.gen(function*() {
        const sent = yield* Effect.forEach(["5678", "5679", "5680"], sentTo)
        const queue = yield* Queue.bounded<DeliveryReportInbox.DeliveryReport>(1)
        const now = yield* Clock.currentTimeMillis
        const pushing = yield* Effect.fork(
          Effect.forEach(sent, (m) =>
            Queue.offer(queue, {
              reference: m.id,
              accountId: m.accountId,
              carrierMessageId: "c",
              outcome: "delivered",
              at: now
            }))
        )
        yield* Effect.yieldNow() // the network pushes what the inbox takes
        const store = yield* MessageStore.MessageStore
        let failing = true
        const flaky = MessageStore.MessageStore.of({
          ...store,
          findMany: (keys) =>
            Effect.suspend(() =>
              failing ? Effect.fail(new Errors.StoreUnavailable({ message: "down" })) : store.findMany(keys)
            )
        })
        const reports = yield* DeliveryReports.make({ batchSize: 1 }).pipe(
          Effect.provideService(MessageStore.MessageStore, flaky),
          Effect.provideService(DeliveryReportInbox.DeliveryReportInbox, {
            take: (max) => Effect.map(Queue.takeUpTo(queue, max), Chunk.toReadonlyArray)
          })
        )
        assert.strictEqual(yield* reports.runOnce, 1, "one taken; the store fails")
        assert.strictEqual(yield* reports.runOnce, 0, "no more taken while it fails")
        yield* Effect.yieldNow()
        assert.isTrue(yield* Queue.isFull(queue), "the inbox is full")
        assert.isTrue(Option.isNone(yield* Fiber.poll(pushing)), "the last push waits")

        failing = false
        assert.strictEqual(yield* reports.runOnce, 0, "the held report first")
        assert.strictEqual(yield* reports.runOnce, 1)
        assert.strictEqual(yield* reports.runOnce, 1)
        yield* Fiber.join(pushing)
        for (const message of sent) {
          assert.strictEqual((yield* TestWorkers.load(message)).status, "delivered", message.to)
        }
      }).pipe(Effect.provide(storeLayer())))

    it.effect("a held report whose message never becomes sent is dropped after holdMillis", () =>
      Effect.gen(function*() {
        const message = yield* sendTo("5678")
        const mock = yield* CarrierMock.CarrierMock
        const reports = yield* DeliveryReports.make({ holdMillis: 60_000 })
        const now = yield* Clock.currentTimeMillis
        yield* mock.injectReport({
          reference: message.id,
          accountId: message.accountId,
          carrierMessageId: "c",
          outcome: "delivered",
          at: now
        })
        assert.strictEqual(yield* reports.runOnce, 1)
        assert.strictEqual((yield* reports.held).length, 1)
        yield* adjust(59_999)
        yield* reports.runOnce
        assert.strictEqual((yield* reports.held).length, 1)
        yield* adjust(1)
        yield* reports.runOnce
        assert.deepStrictEqual(yield* reports.held, [])
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
      }).pipe(Effect.provide(storeLayer())))
  })
}
