/**
 * Testing with a simulated clock: Sendline's core, its workers and the carrier mock all read time
 * from Effect's `Clock`. Under `it.effect` that Clock is `TestClock`, so nothing happens until the
 * test moves time, and a minute passes in a fraction of a second. (The workers poll every second
 * of simulated time, and each wake costs a few real milliseconds; a test that jumps days ahead
 * with them running gives all three longer intervals. docs/message-lifecycle.md, "Testing with
 * the Clock", says what else to know.)
 */
import { assert, it } from "@effect/vitest"
import { CarrierMock } from "@sendline/carrier-mock"
import { Admin, Auth, EventStore, Messaging, Services, UrlPolicy, Workers } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Clock, Effect, Layer, TestClock } from "effect"

// Sendline with its workers running, on SQLite :memory:, a carrier that reports delivery 3
// seconds after it accepts a message, and webhooks posted over HTTPS to public hosts (none here:
// the account subscribes to nothing).
const Sendline = Workers.layer().pipe(
  Layer.provideMerge(Services.layer),
  Layer.provideMerge(CarrierMock.layer({ reportDelay: "3 seconds" })),
  Layer.provideMerge(NodeWebhookTransport.layer({ policy: UrlPolicy.strict })),
  Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" }))
)

it.effect("a scheduled message goes scheduled → queued → sent → delivered as the clock moves", () =>
  Effect.gen(function*() {
    // Setup: an account with a registered Sender ID and a key.
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: "Acme", type: "cpaas", adminEmail: "ops@acme.example" })
    yield* admin.importSenderId({
      accountId: account.id,
      senderId: "Acme",
      market: "AU",
      identifier: { identifierType: "ABN", identifierValue: "51824753556" },
      brandName: "Acme Pty Ltd"
    })
    const { secret } = yield* admin.createKey({
      accountId: account.id,
      permissions: ["messaging:send", "messaging:read"]
    })
    const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${secret}`)
    const messaging = yield* Messaging.Messaging

    // Send a message scheduled one minute from now.
    const inOneMinute = (yield* Clock.currentTimeMillis) + 60_000
    const message = yield* messaging.send(principal, {
      to: "+61412345678",
      senderId: "Acme",
      body: "Your appointment is tomorrow at 10:00.",
      market: "AU",
      scheduledAt: inOneMinute
    })
    const status = Effect.map(messaging.get(principal, message.id), (m) => m.status)
    assert.strictEqual(message.status, "scheduled")

    yield* TestClock.adjust("59 seconds")
    assert.strictEqual(yield* status, "scheduled") // not yet

    yield* TestClock.adjust("1 second") // scheduled_at: the Scheduler queues it
    assert.strictEqual(yield* status, "queued")

    yield* TestClock.adjust("1 second") // the Dispatcher's next poll hands it to the carrier
    assert.strictEqual(yield* status, "sent")

    yield* TestClock.adjust("3 seconds") // the carrier's delivery report comes back
    const delivered = yield* messaging.get(principal, message.id)
    assert.strictEqual(delivered.status, "delivered")
    assert.strictEqual(delivered.deliveredAt! - delivered.sentAt!, 3_000)

    // Every step left its event, written with the status change: what webhooks will deliver.
    const events = yield* (yield* EventStore.EventStore).listBySubject(account.id, message.id)
    assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.sent", "message.delivered"])
    assert.deepStrictEqual(events[2]!.data.price, { amount: "0.0500", currency: "AUD" })

    // The carrier mock's journal: one submission, accepted once.
    const journal = yield* (yield* CarrierMock.CarrierMock).journal
    assert.deepStrictEqual(journal.map((entry) => [entry.reference, entry.decision]), [[message.id, "accepted"]])
  }).pipe(Effect.provide(Sendline)))
