/**
 * The ExpiryWatcher on `TestClock`: `sid.expiring` exactly 30 days before `expires_at` and
 * `expired` (with `sid.status_changed`) exactly at it, each once; a renewal starts a term that is
 * warned again; an expired Sender ID sends no more.
 */
import { assert, layer } from "@effect/vitest"
import { EventStore, ExpiryWatcher, Messaging, SenderId, SenderIds, SenderIdStore } from "@sendline/core"
import { Effect, Either, Layer, Option, TestClock } from "effect"
import * as TestCore from "../TestCore.js"

const day = 86_400_000

/** A new account with "Acme" imported as registered now, and its record. */
const seeded = Effect.gen(function*() {
  const { principal } = yield* TestCore.seedAccount(["messaging:send", "sids:read", "sids:write"])
  const store = yield* SenderIdStore.SenderIdStore
  const record = Option.getOrThrow(yield* store.findRegistered(principal.accountId, "Acme", "AU"))
  return { principal, record }
})

/** The event types of `sidId`, oldest first. */
const eventTypes = (accountId: string, sidId: string) =>
  Effect.map(
    Effect.flatMap(EventStore.EventStore, (events) => events.listBySubject(accountId, sidId)),
    (events) => events.map((e) => e.type)
  )

/** Moves the clock to `at` and runs one pass of the watcher. */
const passAt = (at: number) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(at)
    return yield* (yield* ExpiryWatcher.ExpiryWatcher).runOnce
  })

const watching = Layer.provideMerge(ExpiryWatcher.layer(), TestCore.layer)

layer(watching)("ExpiryWatcher", (it) => {
  it.effect("sid.expiring exactly 30 days before expires_at, once; expired exactly at expires_at, once; then it sends no more", () =>
    Effect.gen(function*() {
      const { principal, record } = yield* seeded
      const expiresAt = record.expiresAt!
      yield* passAt(expiresAt - 30 * day - 1)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), [])
      yield* passAt(expiresAt - 30 * day)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), ["sid.expiring"])
      yield* passAt(expiresAt - 30 * day + 1)
      yield* passAt(expiresAt - 1)
      assert.deepStrictEqual(
        yield* eventTypes(principal.accountId, record.id),
        ["sid.expiring"],
        "warned once per term"
      )
      const messaging = yield* Messaging.Messaging
      assert.isTrue(
        Either.isRight(yield* Effect.either(messaging.send(principal, TestCore.auMessage))),
        "sends until expires_at"
      )
      yield* passAt(expiresAt)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), ["sid.expiring", "sid.status_changed"])
      const events = yield* (yield* EventStore.EventStore).listBySubject(principal.accountId, record.id)
      assert.deepStrictEqual([events[1]!.data.previous_status, events[1]!.data.status], ["registered", "expired"])
      const stored = Option.getOrThrow(yield* (yield* SenderIdStore.SenderIdStore).findById(record.id))
      assert.strictEqual(stored.record.status, "expired")
      yield* passAt(expiresAt + day)
      assert.strictEqual((yield* eventTypes(principal.accountId, record.id)).length, 2, "expired once")
      assert.strictEqual(
        yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)),
        "sender_id_not_registered"
      )
    }))

  it.effect("a renewal starts a new term: warned again 30 days before its new expires_at, and not expired at the old one", () =>
    Effect.gen(function*() {
      const { principal, record } = yield* seeded
      const expiresAt = record.expiresAt!
      yield* passAt(expiresAt - 30 * day)
      const renewed = yield* (yield* SenderIds.SenderIds).renew(principal, record.id)
      assert.strictEqual(renewed.record.expiresAt, expiresAt + SenderId.termMillis)
      yield* passAt(expiresAt)
      assert.deepStrictEqual(
        yield* eventTypes(principal.accountId, record.id),
        ["sid.expiring"],
        "no expiry at the old date"
      )
      yield* passAt(renewed.record.expiresAt! - 30 * day - 1)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), ["sid.expiring"])
      yield* passAt(renewed.record.expiresAt! - 30 * day)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), ["sid.expiring", "sid.expiring"])
      yield* passAt(renewed.record.expiresAt!)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), [
        "sid.expiring",
        "sid.expiring",
        "sid.status_changed"
      ])
    }))

  it.effect("the watcher's loop warns on time by the Clock alone (run, driven by TestClock.adjust)", () =>
    Effect.gen(function*() {
      const { principal, record } = yield* seeded
      const watcher = yield* ExpiryWatcher.ExpiryWatcher
      yield* TestClock.setTime(record.expiresAt! - 30 * day - 5_000)
      yield* Effect.forkScoped(watcher.run)
      yield* TestClock.adjust(4_000)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), [])
      yield* TestClock.adjust(1_000)
      assert.deepStrictEqual(yield* eventTypes(principal.accountId, record.id), ["sid.expiring"])
    }).pipe(Effect.scoped))
})
