import { assert, describe, it, layer } from "@effect/vitest"
import { Admin, EventStore, Idempotency, Markets, Messaging, MessagingConfig, SenderId, Webhooks } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Clock, Effect, Option, TestClock } from "effect"
import * as CountryCode from "../../src/internal/countryCode.js"
import * as TestCore from "../TestCore.js"

const hour = 3_600_000
const day = 24 * hour

layer(TestCore.layer)("Messaging", (it) => {
  it.effect("send queues the message and writes message.queued in the same store", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const message = yield* messaging.send(principal, TestCore.auMessage)
      assert.strictEqual(message.status, "queued")
      assert.strictEqual(message.segments, 1)
      assert.deepStrictEqual(message.price, { amount: "0.0500", currency: "AUD" })
      const events = yield* (yield* EventStore.EventStore).listBySubject(principal.accountId, message.id)
      assert.deepStrictEqual(events.map((e) => e.type), ["message.queued"])
      assert.strictEqual(events[0]!.data.sender_id, "Acme")
    }))

  it.effect("a send with an idempotency key the account used within 24 hours answers that message, sending nothing", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const keyed = { ...TestCore.auMessage, idempotencyKey: Idempotency.Key.make("order-7") }
      const first = yield* messaging.send(principal, keyed)
      assert.strictEqual(first.idempotencyKey, "order-7")
      yield* TestClock.adjust(day - 1)
      assert.deepStrictEqual(yield* messaging.send(principal, keyed), first)
      assert.strictEqual((yield* messaging.list(principal, { filter: {} })).items.length, 1)
      yield* TestClock.adjust(2)
      const later = yield* messaging.send(principal, keyed)
      assert.notStrictEqual(later.id, first.id, "after 24 hours the key starts afresh")
    }))

  it.effect("sends of one idempotency key at the same moment create one message, the answer to all of them", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const keyed = { ...TestCore.auMessage, idempotencyKey: Idempotency.Key.make("order-9") }
      const answers = yield* Effect.all(Array.from({ length: 8 }, () => messaging.send(principal, keyed)), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(new Set(answers.map((m) => m.id)).size, 1)
      assert.strictEqual((yield* messaging.list(principal, { filter: {} })).items.length, 1)
    }))

  it.effect("a retry with the idempotency key of another message fails idempotency_conflict, sending nothing", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const keyed = { ...TestCore.auMessage, idempotencyKey: Idempotency.Key.make("order-8") }
      yield* messaging.send(principal, keyed)
      const now = yield* Clock.currentTimeMillis
      for (
        const other of [
          { to: "+61412345679" },
          { body: "Hello again" },
          { reference: "r-1" },
          { scheduledAt: now + hour }
        ]
      ) {
        assert.strictEqual(
          yield* TestCore.outcome(messaging.send(principal, { ...keyed, ...other })),
          "idempotency_conflict"
        )
      }
      assert.strictEqual((yield* messaging.list(principal, { filter: {} })).items.length, 1)
    }))

  it.effect("a body or reference with half of a surrogate pair is invalid_parameter, in send and preview", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      for (
        const [input, field] of [[{ body: "x\ud83d" }, "body"], [{ body: "\ude00x" }, "body"], [{
          reference: "r\udbff"
        }, "reference"]] as const
      ) {
        const error = yield* Effect.flip(messaging.send(principal, { ...TestCore.auMessage, ...input }))
        assert.strictEqual(error._tag, "InvalidRequest")
        assert.strictEqual("field" in error ? error.field : undefined, field)
      }
      assert.strictEqual((yield* Effect.flip(messaging.preview(principal, { body: "a\ud800" })))._tag, "InvalidRequest")
      assert.strictEqual(
        yield* TestCore.outcome(messaging.send(principal, { ...TestCore.auMessage, body: "Hi 😀" })),
        "ok"
      )
      assert.strictEqual((yield* messaging.list(principal, { filter: {} })).items.length, 1)
    }))

  it.effect("a scheduled send emits no event until it is queued", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const now = yield* Clock.currentTimeMillis
      const message = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: now + day })
      assert.strictEqual(message.status, "scheduled")
      assert.strictEqual(message.scheduledAt, now + day)
      const events = yield* (yield* EventStore.EventStore).listBySubject(principal.accountId, message.id)
      assert.strictEqual(events.length, 0)
    }))

  it.effect("scheduled_at is allowed exactly 7 days ahead and refused one millisecond later", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const now = yield* Clock.currentTimeMillis
      const send = (scheduledAt: number) =>
        TestCore.outcome(messaging.send(principal, { ...TestCore.auMessage, scheduledAt }))
      assert.strictEqual(yield* send(now + 7 * day), "ok")
      assert.strictEqual(yield* send(now + 7 * day + 1), "schedule_too_far")
      assert.strictEqual(yield* send(now), "schedule_in_past")
      assert.strictEqual(yield* send(now + 1), "ok")
    }))

  it.effect("schedule_too_far names the configured limit, in the largest whole unit", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const now = yield* Clock.currentTimeMillis
      const refusal = (maxScheduleAheadMillis: number) =>
        Effect.gen(function*() {
          const messaging = yield* Messaging.make.pipe(
            Effect.provideService(MessagingConfig.MessagingConfig, {
              ...MessagingConfig.defaults,
              maxScheduleAheadMillis
            }),
            Effect.provide(Webhooks.layerCallbacks)
          )
          const scheduledAt = now + maxScheduleAheadMillis + 1
          const error = yield* Effect.flip(messaging.send(principal, { ...TestCore.auMessage, scheduledAt }))
          assert.strictEqual(error._tag === "RuleViolation" && error.code, "schedule_too_far")
          return error.message
        })
      assert.strictEqual(
        yield* refusal(MessagingConfig.defaults.maxScheduleAheadMillis),
        "scheduled_at must be at most 7 days ahead."
      )
      assert.strictEqual(yield* refusal(36 * hour), "scheduled_at must be at most 36 hours ahead.")
      assert.strictEqual(yield* refusal(day), "scheduled_at must be at most 1 day ahead.")
      assert.strictEqual(yield* refusal(90 * 60_000), "scheduled_at must be at most 90 minutes ahead.")
    }))

  it.effect("send and the Sender ID import refuse a malformed Sender ID with the same message", () =>
    Effect.gen(function*() {
      const { account, principal } = yield* TestCore.seedAccount()
      const malformed = "Twelve chars"
      const sent = yield* Effect.flip(
        (yield* Messaging.Messaging).send(principal, { ...TestCore.auMessage, senderId: malformed })
      )
      const imported = yield* Effect.flip(
        (yield* Admin.Admin).importSenderId({
          accountId: account.id,
          senderId: malformed,
          market: "AU",
          identifier: TestCore.acme,
          brandName: "Acme"
        })
      )
      assert.strictEqual(sent.message, SenderId.invalidFormatMessage)
      assert.strictEqual(imported.message, SenderId.invalidFormatMessage)
    }))

  it.effect("a Sender ID stops sending when its 365-day term ends", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      yield* TestClock.adjust(`${365 * day - 1} millis`)
      assert.strictEqual(yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)), "ok")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(
        yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)),
        "sender_id_not_registered"
      )
    }))

  it.effect("a number of another country's plan is told which country it belongs to", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const refused = yield* Effect.flip(
        (yield* Messaging.Messaging).send(principal, { ...TestCore.auMessage, to: "+64211234567" })
      )
      assert.deepInclude(refused, {
        code: "phone_market_mismatch",
        field: "to",
        message: "+64211234567 is a number of NZ, not of market AU."
      })
    }))

  it.effect("a market is invalid_market unless an assigned ISO 3166-1 code, then unsupported_market unless configured", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const preview = (market: string) => TestCore.outcome(messaging.preview(principal, { body: "Hi", market }))
      for (const market of ["UK", "EU", "XK", "ZZ", "AN", "YU", "au", "A1", "AUS", ""]) {
        assert.strictEqual(yield* preview(market), "invalid_market", market)
      }
      for (const market of ["US", "FR", "SX", "AQ"]) {
        assert.strictEqual(yield* preview(market), "unsupported_market", market)
      }
      assert.strictEqual(yield* preview("GB"), "ok")
      const uk = yield* Effect.flip(messaging.preview(principal, { body: "Hi", market: "UK" }))
      assert.include(uk.message, "the United Kingdom's is GB")
      assert.strictEqual(CountryCode.isAssigned("GB"), true)
    }))

  it.effect("checks run in CONTRACT order: the first broken rule wins", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const send = (patch: Partial<Messaging.SendInput>) =>
        TestCore.outcome(messaging.send(principal, { ...TestCore.auMessage, ...patch }))
      assert.strictEqual(yield* send({ market: "au", to: "nope", body: "" }), "invalid_market")
      assert.strictEqual(yield* send({ market: "US", to: "nope" }), "unsupported_market")
      assert.strictEqual(yield* send({ to: "0412345678", senderId: "" }), "invalid_phone_number")
      assert.strictEqual(yield* send({ to: "+61298765432" }), "not_a_mobile_number")
      assert.strictEqual(yield* send({ to: "+64211234567" }), "phone_market_mismatch")
      assert.strictEqual(yield* send({ senderId: "Twelve chars", body: "" }), "invalid_sender_id")
      assert.strictEqual(yield* send({ senderId: "Other", body: "" }), "sender_id_not_registered")
      assert.strictEqual(yield* send({ body: "", reference: "x".repeat(300) }), "empty_body")
      assert.strictEqual(yield* send({ body: "a".repeat(153 * 10 + 1) }), "body_too_long")
      assert.strictEqual(yield* send({ body: "a".repeat(153 * 10) }), "ok")
      assert.strictEqual(yield* send({ reference: "é".repeat(256) }), "reference_too_long")
      assert.strictEqual(yield* send({ reference: "😀".repeat(255) }), "ok")
      assert.strictEqual(yield* send({ callbackUrl: "http://example.com/hook" }), "invalid_callback_url")
      assert.strictEqual(yield* send({ callbackUrl: "https://10.0.0.1/hook" }), "invalid_callback_url")
      assert.strictEqual(yield* send({ callbackUrl: "https://example.com/hook" }), "no_signing_secret")
    }))

  it.effect("send needs messaging:send; get and list need messaging:read", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount(["messaging:read"])
      const messaging = yield* Messaging.Messaging
      assert.strictEqual(yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)), "permission_denied")
      const writer = yield* TestCore.seedAccount(["messaging:send"])
      const sent = yield* messaging.send(writer.principal, TestCore.auMessage)
      assert.strictEqual(yield* TestCore.outcome(messaging.get(writer.principal, sent.id)), "permission_denied")
      assert.strictEqual(yield* TestCore.outcome(messaging.list(writer.principal, { filter: {} })), "permission_denied")
      assert.strictEqual(
        yield* TestCore.outcome(messaging.get(principal, sent.id)),
        "not_found",
        "a reader passes the check"
      )
      assert.strictEqual(yield* TestCore.outcome(messaging.list(principal, { filter: {} })), "ok")
    }))

  it.effect("another account's message is not found", () =>
    Effect.gen(function*() {
      const a = yield* TestCore.seedAccount()
      const b = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const sent = yield* messaging.send(a.principal, TestCore.auMessage)
      assert.strictEqual(yield* TestCore.outcome(messaging.get(b.principal, sent.id)), "not_found")
    }))

  it.effect("cancel moves scheduled to cancelled and refuses anything else", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const scheduled = yield* messaging.send(principal, {
        ...TestCore.auMessage,
        scheduledAt: (yield* Clock.currentTimeMillis) + day
      })
      assert.strictEqual((yield* messaging.cancel(principal, scheduled.id)).status, "cancelled")
      assert.strictEqual((yield* messaging.get(principal, scheduled.id)).status, "cancelled")
      assert.strictEqual(yield* TestCore.outcome(messaging.cancel(principal, scheduled.id)), "invalid_state_transition")
      const queued = yield* messaging.send(principal, TestCore.auMessage)
      assert.strictEqual(yield* TestCore.outcome(messaging.cancel(principal, queued.id)), "invalid_state_transition")
    }))

  it.effect("concurrent cancels of one message: exactly one wins", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const scheduled = yield* messaging.send(principal, {
        ...TestCore.auMessage,
        scheduledAt: (yield* Clock.currentTimeMillis) + day
      })
      const results = yield* Effect.all(
        Array.from({ length: 8 }, () => TestCore.outcome(messaging.cancel(principal, scheduled.id))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => r === "ok").length, 1)
      assert.strictEqual(results.filter((r) => r === "invalid_state_transition").length, 7)
    }))

  it.effect("list pages newest first with keyset cursors, clamped to 100", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const sent: Array<string> = []
      for (let i = 0; i < 7; i++) {
        sent.push((yield* messaging.send(principal, { ...TestCore.auMessage, reference: `r${i}` })).id)
        yield* TestClock.adjust(i % 2 === 0 ? "0 millis" : "1 second") // some share a millisecond
      }
      const seen: Array<string> = []
      let cursor: string | undefined
      for (;;) {
        const page = yield* messaging.list(principal, { filter: {}, cursor, pageSize: 3 })
        for (const m of page.items) seen.push(m.id)
        assert.strictEqual(page.nextCursor === null, !page.hasMore)
        if (page.nextCursor === null) break
        cursor = page.nextCursor
      }
      assert.deepStrictEqual(seen, [...sent].reverse())
      assert.strictEqual((yield* messaging.list(principal, { filter: {}, pageSize: 500 })).pageSize, 100)
      assert.strictEqual((yield* messaging.list(principal, { filter: {}, pageSize: Infinity })).pageSize, 100)
    }))

  it.effect("a page size that is not an integer of at least 1 is refused with invalid_parameter", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      for (const pageSize of [0, -5, 2.5, Number.NaN]) {
        const refused = yield* Effect.flip(messaging.list(principal, { filter: {}, pageSize }))
        assert.deepInclude(refused, { code: "invalid_parameter", field: "page_size" }, String(pageSize))
      }
    }))

  it.effect("a cursor is refused with other filters or when altered", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      yield* messaging.send(principal, TestCore.auMessage)
      yield* messaging.send(principal, TestCore.auMessage)
      const page = yield* messaging.list(principal, { filter: { market: "AU" }, pageSize: 1 })
      const cursor = page.nextCursor!
      assert.strictEqual(
        yield* TestCore.outcome(messaging.list(principal, { filter: { market: "NZ" }, cursor })),
        "invalid_cursor"
      )
      const altered = cursor.slice(0, -2) + (cursor.endsWith("A") ? "BB" : "AA")
      assert.strictEqual(
        yield* TestCore.outcome(messaging.list(principal, { filter: { market: "AU" }, cursor: altered })),
        "invalid_cursor"
      )
      assert.strictEqual(yield* TestCore.outcome(messaging.list(principal, { filter: { market: "AU" }, cursor })), "ok")
    }))

  it.effect("preview counts any body and prices it only with a market", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const long = yield* messaging.preview(principal, { body: "a".repeat(153 * 20), market: "NZ" })
      assert.strictEqual(long.segments, 20)
      assert.deepStrictEqual(Option.getOrThrow(long.price), { amount: "1.2000", currency: "NZD" })
      const ucs2 = yield* messaging.preview(principal, { body: "It’s 😀" })
      assert.strictEqual(ucs2.encoding, "UCS-2")
      assert.deepStrictEqual(ucs2.ucs2Characters, ["’", "😀"])
      assert.isTrue(Option.isNone(ucs2.price))
    }))
})

describe("Markets.layerFrom", () => {
  it.effect("an embedder's own markets are the only ones served, at their prices", () =>
    Effect.gen(function*() {
      const messaging = yield* Messaging.Messaging
      const principal = { accountId: "acct_x", keyId: "key_x", permissions: new Set(["messaging:send" as const]) }
      const nz = {
        code: "NZ",
        currency: "NZD",
        pricePerSegment: "0.1000",
        identifierTypes: ["NZBN"],
        networks: ["spark"]
      }
      const preview = yield* messaging.preview(principal, { body: "a".repeat(161), market: "NZ" })
      assert.deepStrictEqual(preview.price, Option.some({ amount: "0.2000", currency: "NZD" }))
      assert.strictEqual(
        yield* TestCore.outcome(messaging.preview(principal, { body: "Hi", market: "AU" })),
        "unsupported_market"
      )
      assert.deepStrictEqual((yield* Markets.Markets).all, [nz])
    }).pipe(Effect.provide(TestCore.layerOn(
      SqliteStore.layerSqlite({ filename: ":memory:" }),
      Markets.layerFrom([{
        code: "NZ",
        currency: "NZD",
        pricePerSegment: "0.1000",
        identifierTypes: ["NZBN"],
        networks: ["spark"]
      }])
    ))))
})
