/**
 * The message workers over the SMPP carrier and an SMSC in the test's process, on the SQLite store:
 * the SMSC drops the connection while the Dispatcher's submits wait in the window; each in-doubt
 * message stays queued, is submitted again after its lease (at least once, docs/decisions.md), and
 * every one ends delivered from the SMSC's receipt. The Clock is the test's; the SMSC's I/O is real.
 */
import { assert, describe, it } from "@effect/vitest"
import { SmppCarrier } from "@sendline/carrier-smpp"
import { TestSmsc } from "@sendline/carrier-smpp/testing"
import {
  Auth,
  DeliveryReports,
  Demo,
  Dispatcher,
  MessageStore,
  Messaging,
  Services,
  UrlPolicy,
  Workers
} from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Context, Effect, Fiber, Layer, Option, Redacted, TestClock } from "effect"

/** Waits, in real time, until `condition` holds: for what the carrier does on events of its own. */
const eventually = (condition: Effect.Effect<boolean>): Effect.Effect<void> =>
  Effect.flatMap(
    condition,
    (holds) =>
      holds
        ? Effect.void
        : Effect.zipRight(Effect.promise(() => new Promise((r) => setTimeout(r, 5))), eventually(condition))
  )

describe("the workers over SMPP", () => {
  it.scoped(
    "the SMSC dropping the connection with submits in the window: none lost, the in-doubt ones sent again after the lease",
    () =>
      Effect.gen(function*() {
        const smsc = yield* TestSmsc.start({ answer: () => "hold" })
        const carrier = yield* Layer.build(SmppCarrier.layer({ url: Redacted.make(smsc.url("window=10")) }))
        const view = Context.get(carrier, SmppCarrier.SmppCarrier)
        const context = yield* Layer.build(
          Workers.layerServices({ dispatcher: { leaseMillis: 30_000 } }).pipe(
            Layer.provideMerge(Layer.succeedContext(carrier)),
            Layer.provideMerge(NodeWebhookTransport.layer({ policy: UrlPolicy.strict })),
            Layer.provideMerge(Services.withoutSpans(Services.layer)),
            Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" }))
          )
        )
        const dispatch = Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce).pipe(Effect.provide(context))
        const report = Effect.flatMap(DeliveryReports.DeliveryReports, (r) => r.runOnce).pipe(Effect.provide(context))

        const sent = yield* Effect.provide(
          Effect.gen(function*() {
            const { secret } = yield* Demo.ensure
            const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${secret}`)
            const messaging = yield* Messaging.Messaging
            return yield* Effect.forEach([1, 2, 3, 4, 5], (i) =>
              messaging.send(principal, {
                to: `+6141234567${i}`,
                senderId: Demo.senderId,
                body: `in the window ${i}`,
                market: "AU"
              }))
          }),
          context
        )

        const first = yield* Effect.fork(dispatch)
        yield* smsc.until(() => smsc.held() === 5)
        smsc.drop()
        assert.strictEqual(yield* Fiber.join(first), 5, "the pass claimed the five")
        assert.strictEqual(yield* view.inDoubt, 5)
        const load = Effect.flatMap(MessageStore.MessageStore, (store) =>
          Effect.forEach(sent, (m) =>
            Effect.map(store.findById(m.accountId, m.id), (found) =>
              Option.getOrThrow(found).status))).pipe(
            Effect.provide(context)
          )
        assert.deepStrictEqual(
          yield* load,
          ["queued", "queued", "queued", "queued", "queued"],
          "in doubt: still queued"
        )

        smsc.setAnswer(() =>
          "accept"
        )
        yield* eventually(Effect.map(view.state, (state) => state === "lost"))
        yield* TestClock.adjust("1 second") // the carrier binds again
        yield* eventually(Effect.map(view.state, (state) => state === "bound"))
        assert.strictEqual(yield* dispatch, 0, "the lease holds them")
        yield* TestClock.adjust("29 seconds")
        assert.strictEqual(yield* dispatch, 5, "claimed again when the lease ends")
        yield* smsc.until(() => smsc.receiptsAcknowledged() === 5)
        yield* report
        assert.deepStrictEqual(yield* load, ["delivered", "delivered", "delivered", "delivered", "delivered"])
        assert.strictEqual(smsc.submits.length, 10, "each in-doubt submit reached the SMSC again: at least once")
      }),
    60_000
  )
})
