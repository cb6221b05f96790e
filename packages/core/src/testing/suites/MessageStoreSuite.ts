/**
 * The store suite's tests of `MessageStore`: messages: insert and find, list, transition, claim;
 * and the outbox, the transitions and the claims as the tables hold them (`TableReader`).
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Event } from "../../Event.js"
import { EventStore } from "../../EventStore.js"
import type { Message, MessageFilter } from "../../messaging/Message.js"
import { IdempotencyKeyTaken, MessageStore } from "../../messaging/MessageStore.js"
import type { Stores } from "../../Stores.js"
import {
  drainAllClaims,
  fresh,
  freshAccount,
  ids,
  insertMessage,
  listAllPages,
  makeEvent,
  makeMessage,
  newestFirst,
  oldestFirst,
  seedMessages,
  T,
  transitionOne
} from "../Fixtures.js"
import { type EventRow, type MessageRow, TableReader } from "../TableReader.js"

/** The row `message` is stored as, under a claim until `claimedUntil` (null: none). */
const messageRow = (message: Message, claimedUntil: number | null = null): MessageRow => ({
  id: message.id,
  accountId: message.accountId,
  status: message.status,
  recipient: message.to,
  body: message.body,
  createdAt: message.createdAt,
  sentAt: message.sentAt ?? null,
  claimedUntil
})

/** The row `event` is stored as. */
const eventRow = (event: Event): EventRow => ({
  id: event.id,
  accountId: event.accountId,
  subjectId: event.subjectId,
  type: event.type,
  createdAt: event.createdAt,
  data: event.data
})

/** The stored claim of the message `id`: none when there is no row. */
const storedClaim = (id: string) =>
  Effect.flatMap(TableReader, (tables) => Effect.map(tables.message(id), Option.map((row) => row.claimedUntil)))

/** Registers the tests of `MessageStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores | TableReader>): void => {
  it.effect("MessageStore: insert writes the message and its event; every optional field round-trips", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const full = makeMessage(accountId, fresh("msg"), {
        status: "undelivered",
        body: "Grüße 👋 — \"quoted\" \\ { } €\nline two",
        segments: 2,
        encoding: "UCS-2",
        reference: "order-42 ✓",
        callbackUrl: "https://hooks.example.com/sms?x=1&y=2",
        scheduledAt: T + 60_000,
        sentAt: T + 61_000,
        deliveredAt: T + 62_000,
        error: { code: "carrier_rejected", message: "The network refused the message." },
        carrierMessageId: fresh("smsc"),
        price: { amount: "0.1000", currency: "AUD" }
      })
      const event = makeEvent(full, fresh("evt"), T + 62_000)
      yield* messages.insert(full, Option.some(event))
      assert.deepStrictEqual(yield* messages.findById(accountId, full.id), Option.some(full))
      assert.deepStrictEqual(yield* events.listBySubject(accountId, full.id), [event])

      const bare = yield* insertMessage(accountId)
      const found = yield* messages.findById(accountId, bare.id)
      assert.deepStrictEqual(found, Option.some(bare))
      for (
        const key of ["reference", "callbackUrl", "scheduledAt", "sentAt", "deliveredAt", "error", "carrierMessageId"]
      ) {
        assert.isFalse(key in Option.getOrThrow(found), `absent ${key} stays absent`)
      }
      assert.deepStrictEqual(yield* events.listBySubject(accountId, bare.id), [])
    }))

  it.effect("MessageStore: findMany answers each key in order, only with its own account's message", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const mine = makeMessage(accountId, fresh("msg"))
      const theirs = makeMessage(otherAccountId, fresh("msg"))
      yield* messages.insert(mine, Option.none())
      yield* messages.insert(theirs, Option.none())
      const found = yield* messages.findMany([
        { accountId: otherAccountId, id: theirs.id },
        { accountId, id: theirs.id },
        { accountId, id: fresh("msg") },
        { accountId, id: mine.id },
        { accountId, id: mine.id }
      ])
      assert.deepStrictEqual(found, [
        Option.some(theirs),
        Option.none(),
        Option.none(),
        Option.some(mine),
        Option.some(mine)
      ])
      assert.deepStrictEqual(yield* messages.findMany([]), [])
    }))

  it.effect("MessageStore: findByCarrierMessageIds answers each carrier id in order, whatever the account", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const queued = yield* insertMessage(accountId)
      const [first, second] = [fresh("smsc"), fresh("smsc")]
      const mine = { ...queued, status: "sent" as const, sentAt: T + 1_000, carrierMessageId: first }
      assert.isTrue(
        yield* transitionOne(mine, "queued", Option.none()),
        "the Dispatcher's move stores the carrier's id"
      )
      const theirs = makeMessage(otherAccountId, fresh("msg"), { status: "sent", sentAt: T, carrierMessageId: second })
      yield* messages.insert(theirs, Option.none())
      const unknown = fresh("smsc")
      const keys = [second, unknown, first, first].map((carrierMessageId) => ({ carrierMessageId }))
      const found = yield* messages.findByCarrierMessageIds(keys)
      assert.deepStrictEqual(found, [Option.some(theirs), Option.none(), Option.some(mine), Option.some(mine)])
      assert.deepStrictEqual(yield* messages.findByCarrierMessageIds([]), [])
    }))

  it.effect("MessageStore: findByCarrierMessageIds tells two carriers' equal ids apart by the carrier stored with each", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const shared = fresh("smsc")
      const sent = (carrier: string | undefined, at: number) =>
        makeMessage(accountId, fresh("msg"), {
          status: "sent",
          sentAt: at,
          createdAt: at,
          carrierMessageId: shared,
          ...(carrier === undefined ? {} : { carrier })
        })
      const [viaAcme, viaBackup] = [sent("acme", T), sent("backup", T + 1)]
      yield* messages.insert(viaAcme, Option.none())
      yield* messages.insert(viaBackup, Option.none())
      const found = yield* messages.findByCarrierMessageIds([
        { carrier: "acme", carrierMessageId: shared },
        { carrier: "backup", carrierMessageId: shared },
        { carrier: "sim", carrierMessageId: shared },
        { carrierMessageId: shared }
      ])
      assert.deepStrictEqual(found, [
        Option.some(viaAcme),
        Option.some(viaBackup),
        Option.none(),
        Option.some(viaBackup)
      ])
      const beforeRouting = sent(undefined, T + 2)
      yield* messages.insert(beforeRouting, Option.none())
      assert.deepStrictEqual(
        yield* messages.findByCarrierMessageIds([{ carrier: "sim", carrierMessageId: shared }]),
        [Option.some(beforeRouting)],
        "a message stored before routing matches any carrier"
      )
    }))

  it.effect("MessageStore: findByIdempotencyKey answers the account's message with the key if created at or after since", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const key = fresh("idem")
      const keyed = yield* insertMessage(accountId, { idempotencyKey: key, createdAt: T + 1_000 })
      yield* messages.insert(makeMessage(accountId, fresh("msg"), { createdAt: T + 2_000 }), Option.none())
      assert.deepStrictEqual(yield* messages.findByIdempotencyKey(accountId, key, T), Option.some(keyed))
      assert.deepStrictEqual(
        yield* messages.findByIdempotencyKey(accountId, key, T + 1_000),
        Option.some(keyed),
        "since is inclusive"
      )
      assert.isTrue(Option.isNone(yield* messages.findByIdempotencyKey(accountId, key, T + 1_001)))
      assert.isTrue(Option.isNone(yield* messages.findByIdempotencyKey(otherAccountId, key, 0)))
      assert.isTrue(Option.isNone(yield* messages.findByIdempotencyKey(accountId, fresh("idem"), 0)))
    }))

  it.effect("MessageStore: insert with a key another message of the account holds fails IdempotencyKeyTaken, writing nothing", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const key = fresh("idem")
      const holder = yield* insertMessage(accountId, { idempotencyKey: key })
      const again = makeMessage(accountId, fresh("msg"), { idempotencyKey: key, createdAt: T + 1 })
      const error = yield* Effect.flip(messages.insert(again, Option.some(makeEvent(again, fresh("evt"), T + 1))))
      assert.deepStrictEqual(error, new IdempotencyKeyTaken({ accountId, key }))
      assert.isTrue(Option.isNone(yield* messages.findById(accountId, again.id)))
      assert.deepStrictEqual(yield* events.listBySubject(accountId, again.id), [])
      assert.deepStrictEqual(yield* messages.findByIdempotencyKey(accountId, key, 0), Option.some(holder))
      // the key is the account's own; messages without one never collide
      const theirs = yield* insertMessage(otherAccountId, { idempotencyKey: key })
      assert.deepStrictEqual(yield* messages.findByIdempotencyKey(otherAccountId, key, 0), Option.some(theirs))
      for (const message of [makeMessage(accountId, fresh("msg")), makeMessage(accountId, fresh("msg"))]) {
        yield* messages.insert(message, Option.none())
      }
    }))

  it.effect("MessageStore: of concurrent inserts with one key exactly one is written; the others fail IdempotencyKeyTaken", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const attempts = Array.from(
        { length: 10 },
        (_, i) => makeMessage(accountId, fresh("msg"), { idempotencyKey: key, createdAt: T + i })
      )
      const unkeyed = Array.from({ length: 10 }, () => makeMessage(accountId, fresh("msg")))
      const results = yield* Effect.all(
        [...attempts, ...unkeyed].map((message) => Effect.either(messages.insert(message, Option.none()))),
        { concurrency: "unbounded" }
      )
      const written = attempts.filter((_, i) => results[i]!._tag === "Right")
      assert.strictEqual(written.length, 1)
      for (const [i, result] of results.entries()) {
        if (i >= attempts.length) assert.strictEqual(result._tag, "Right", "a send without a key is never refused")
        else if (result._tag === "Left") {
          assert.deepStrictEqual(result.left, new IdempotencyKeyTaken({ accountId, key }))
        }
      }
      assert.deepStrictEqual(yield* messages.findByIdempotencyKey(accountId, key, 0), Option.some(written[0]!))
    }))

  it.effect("MessageStore: releaseIdempotencyKey takes the key off the messages created before a time; then insert takes it", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const key = fresh("idem")
      const old = makeMessage(accountId, fresh("msg"), { idempotencyKey: key, createdAt: T, reference: "kept" })
      const theirs = makeMessage(otherAccountId, fresh("msg"), { idempotencyKey: key, createdAt: T })
      yield* messages.insert(old, Option.none())
      yield* messages.insert(theirs, Option.none())
      const next = makeMessage(accountId, fresh("msg"), { idempotencyKey: key, createdAt: T + 86_400_000 })

      yield* messages.releaseIdempotencyKey(accountId, key, T)
      assert.deepStrictEqual(yield* messages.findById(accountId, old.id), Option.some(old), "created at `before`: kept")
      assert.strictEqual((yield* Effect.flip(messages.insert(next, Option.none())))._tag, "IdempotencyKeyTaken")

      yield* messages.releaseIdempotencyKey(accountId, key, T + 1)
      const { idempotencyKey: _, ...released } = old
      assert.deepStrictEqual(yield* messages.findById(accountId, old.id), Option.some(released), "everything else kept")
      yield* messages.insert(next, Option.none())
      assert.deepStrictEqual(yield* messages.findByIdempotencyKey(accountId, key, 0), Option.some(next))
      assert.deepStrictEqual(
        yield* messages.findById(otherAccountId, theirs.id),
        Option.some(theirs),
        "another account's key"
      )
      yield* messages.releaseIdempotencyKey(accountId, fresh("idem"), T + 1)
    }))

  it.effect("MessageStore: another account's message is not found", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const message = yield* insertMessage(accountId)
      assert.isTrue(Option.isNone(yield* messages.findById(otherAccountId, message.id)))
      assert.isTrue(Option.isNone(yield* messages.findById(accountId, fresh("msg"))))
      assert.deepStrictEqual(yield* messages.list(otherAccountId, {}, Option.none(), 10), [])
    }))

  // --- MessageStore: list ------------------------------------------------------------------

  it.effect("MessageStore: list is newest first, createdAt desc then id desc, within the account", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const all = yield* seedMessages(accountId)
      yield* seedMessages(yield* freshAccount)
      const listed = yield* messages.list(accountId, {}, Option.none(), 100)
      assert.deepStrictEqual(ids(listed), ids(newestFirst(all)))
      assert.deepStrictEqual(listed, newestFirst(all))
    }))

  it.effect("MessageStore: list respects the limit", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const all = newestFirst(yield* seedMessages(accountId))
      assert.deepStrictEqual(ids(yield* messages.list(accountId, {}, Option.none(), 1)), ids(all.slice(0, 1)))
      assert.deepStrictEqual(ids(yield* messages.list(accountId, {}, Option.none(), 4)), ids(all.slice(0, 4)))
      assert.strictEqual((yield* messages.list(accountId, {}, Option.none(), all.length)).length, all.length)
    }))

  it.effect("MessageStore: list filters by market, status, senderId and exact reference", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const all = newestFirst(yield* seedMessages(accountId))
      const check = (filter: MessageFilter, keep: (m: Message) => boolean) =>
        Effect.gen(function*() {
          const expected = ids(all.filter(keep))
          assert.isAbove(expected.length, 0, `fixture covers ${JSON.stringify(filter)}`)
          assert.deepStrictEqual(ids(yield* messages.list(accountId, filter, Option.none(), 100)), expected)
        })
      yield* check({ market: "AU" }, (m) => m.market === "AU")
      yield* check({ market: "NZ" }, (m) => m.market === "NZ")
      yield* check({ status: "queued" }, (m) => m.status === "queued")
      yield* check({ status: "scheduled" }, (m) => m.status === "scheduled")
      yield* check({ senderId: "Bolt" }, (m) => m.senderId === "Bolt")
      yield* check({ reference: "order-1" }, (m) => m.reference === "order-1")
      yield* check({ reference: "Order-1" }, (m) => m.reference === "Order-1")
      yield* check({ market: "AU", status: "queued", senderId: "Acme", reference: "order-1" }, (m) =>
        m.market === "AU" && m.status === "queued" && m.senderId === "Acme" && m.reference === "order-1")
      assert.deepStrictEqual(yield* messages.list(accountId, { reference: "order" }, Option.none(), 100), [])
      assert.deepStrictEqual(yield* messages.list(accountId, { market: "FR" }, Option.none(), 100), [])
      assert.deepStrictEqual(yield* messages.list(accountId, { status: "cancelled" }, Option.none(), 100), [])
    }))

  it.effect("MessageStore: list filters by createdAt, from and to both inclusive", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const all = newestFirst(yield* seedMessages(accountId))
      const between = (from: number, to: number) => ids(all.filter((m) => m.createdAt >= from && m.createdAt <= to))
      const list = (filter: MessageFilter) => Effect.map(messages.list(accountId, filter, Option.none(), 100), ids)
      assert.deepStrictEqual(yield* list({ from: T + 2_000, to: T + 4_000 }), between(T + 2_000, T + 4_000))
      assert.deepStrictEqual(yield* list({ from: T + 2_001, to: T + 3_999 }), between(T + 2_001, T + 3_999))
      assert.deepStrictEqual(yield* list({ from: T + 4_000 }), between(T + 4_000, Infinity))
      assert.deepStrictEqual(yield* list({ to: T + 2_000 }), between(-Infinity, T + 2_000))
      assert.deepStrictEqual(yield* list({ from: T + 3_000, to: T + 3_000 }), between(T + 3_000, T + 3_000))
      assert.deepStrictEqual(yield* list({ from: T + 6_001 }), [])
      assert.deepStrictEqual(
        yield* list({ from: T + 2_000, to: T + 5_000, market: "AU" }),
        ids(all.filter((m) => m.createdAt >= T + 2_000 && m.createdAt <= T + 5_000 && m.market === "AU"))
      )
    }))

  it.effect("MessageStore: keyset pages continue exactly where the previous one stopped", () =>
    Effect.gen(function*() {
      const accountId = yield* freshAccount
      const all = newestFirst(yield* seedMessages(accountId))
      for (const pageSize of [1, 2, 3, 4, 9, 10]) {
        const pages = yield* listAllPages(accountId, {}, pageSize)
        assert.deepStrictEqual(ids(pages.flat()), ids(all), `page size ${pageSize}: no duplicates, no gaps`)
        for (const page of pages.slice(0, -1)) assert.strictEqual(page.length, pageSize)
      }
      const filtered = yield* listAllPages(accountId, { market: "AU" }, 2)
      assert.deepStrictEqual(ids(filtered.flat()), ids(all.filter((m) => m.market === "AU")))
    }))

  it.effect("MessageStore: after excludes the keyset row itself and everything newer", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const all = newestFirst(yield* seedMessages(accountId))
      for (let i = 0; i < all.length; i++) {
        const at = all[i]!
        const rest = yield* messages.list(accountId, {}, Option.some({ createdAt: at.createdAt, id: at.id }), 100)
        assert.deepStrictEqual(ids(rest), ids(all.slice(i + 1)))
      }
    }))

  // --- MessageStore: transition ------------------------------------------------------------

  it.effect("MessageStore: transition from the stored status replaces the message and writes the event", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const queued = makeMessage(accountId, fresh("msg"), { reference: "r-1" })
      const queuedEvent = makeEvent(queued, fresh("evt"), T)
      yield* messages.insert(queued, Option.some(queuedEvent))

      const sent: Message = { ...queued, status: "sent", sentAt: T + 1_000 }
      const sentEvent = makeEvent(sent, fresh("evt"), T + 1_000)
      assert.isTrue(yield* transitionOne(sent, "queued", Option.some(sentEvent)))
      assert.deepStrictEqual(yield* messages.findById(accountId, queued.id), Option.some(sent))

      const { reference: _, ...withoutReference } = sent
      const failed: Message = { ...withoutReference, status: "undelivered", error: { code: "x", message: "y" } }
      assert.isTrue(yield* transitionOne(failed, "sent", Option.none()))
      assert.deepStrictEqual(yield* messages.findById(accountId, queued.id), Option.some(failed))
      assert.deepStrictEqual(yield* events.listBySubject(accountId, queued.id), [queuedEvent, sentEvent])
    }))

  it.effect("MessageStore: transition from a stale status returns false and writes nothing", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const queued = yield* insertMessage(accountId)

      const cancelled: Message = { ...queued, status: "cancelled" }
      assert.isFalse(yield* transitionOne(cancelled, "scheduled", Option.some(makeEvent(cancelled, fresh("evt"), T))))
      const delivered: Message = { ...queued, status: "delivered", deliveredAt: T + 5 }
      assert.isFalse(yield* transitionOne(delivered, "sent", Option.some(makeEvent(delivered, fresh("evt"), T))))
      const foreign: Message = { ...queued, accountId: otherAccountId, status: "sent" }
      assert.isFalse(
        yield* transitionOne(foreign, "queued", Option.some(makeEvent(foreign, fresh("evt"), T))),
        "another account's message"
      )
      const unknown = makeMessage(accountId, fresh("msg"), { status: "sent" })
      assert.isFalse(yield* transitionOne(unknown, "queued", Option.some(makeEvent(unknown, fresh("evt"), T))))

      assert.deepStrictEqual(yield* messages.findById(accountId, queued.id), Option.some(queued))
      assert.deepStrictEqual(yield* events.listBySubject(accountId, queued.id), [])
      assert.deepStrictEqual(yield* events.listBySubject(otherAccountId, queued.id), [])
      assert.deepStrictEqual(yield* events.listBySubject(accountId, unknown.id), [])
    }))

  it.effect("MessageStore: of concurrent transitions from one status exactly one wins", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const queued = yield* insertMessage(accountId)
      const attempts = Array.from({ length: 10 }, (_, i) => {
        const next: Message = i % 2 === 0
          ? { ...queued, status: "sent", sentAt: T + i }
          : { ...queued, status: "failed", error: { code: "c" + i, message: "m" } }
        return { next, event: makeEvent(next, fresh("evt"), T + i) }
      })
      const results = yield* Effect.all(
        attempts.map(({ event, next }) => transitionOne(next, "queued", Option.some(event))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((won) => won).length, 1)
      const winner = attempts[results.indexOf(true)]!
      assert.deepStrictEqual(yield* messages.findById(accountId, queued.id), Option.some(winner.next))
      assert.deepStrictEqual(yield* events.listBySubject(accountId, queued.id), [winner.event])
    }))

  it.effect("MessageStore: one transition call moves each message only from its own status", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const stored = Array.from(
        { length: 8 },
        (_, i) => makeMessage(accountId, fresh("msg"), { reference: `batch-${i}` })
      )
      for (const message of stored) yield* messages.insert(message, Option.none())
      // even ones move from the status they are in; odd ones name a stale status and stay
      const moves = stored.map((message, i) => {
        const { reference: _, ...rest } = message
        const next: Message = { ...rest, status: "sent", sentAt: T + i }
        return {
          next,
          from: i % 2 === 0 ? message.status : "scheduled" as const,
          event: makeEvent(next, fresh("evt"), T + i)
        }
      })
      const results = yield* messages.transition(
        moves.map(({ event, from, next }) => ({ next, from, event: Option.some(event) }))
      )
      assert.deepStrictEqual(results, stored.map((_, i) => i % 2 === 0))
      for (const [i, { event, next }] of moves.entries()) {
        const moved = i % 2 === 0
        assert.deepStrictEqual(yield* messages.findById(accountId, next.id), Option.some(moved ? next : stored[i]!))
        assert.deepStrictEqual(yield* events.listBySubject(accountId, next.id), moved ? [event] : [])
      }
    }))

  it.effect("MessageStore: a message moved twice in one transition call moves from where the first move left it", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const queued = makeMessage(accountId, fresh("msg"))
      const other = makeMessage(accountId, fresh("msg"))
      yield* messages.insert(queued, Option.none())
      yield* messages.insert(other, Option.none())
      const sent: Message = { ...queued, status: "sent", sentAt: T + 1 }
      const delivered: Message = { ...sent, status: "delivered", deliveredAt: T + 2 }
      const failed: Message = { ...queued, status: "failed", error: { code: "c", message: "m" } }
      const otherSent: Message = { ...other, status: "sent", sentAt: T + 3 }
      const moves = [
        { next: sent, from: "queued" as const, event: Option.some(makeEvent(sent, fresh("evt"), T + 1)) },
        { next: failed, from: "queued" as const, event: Option.some(makeEvent(failed, fresh("evt"), T + 1)) },
        { next: otherSent, from: "queued" as const, event: Option.some(makeEvent(otherSent, fresh("evt"), T + 3)) },
        { next: delivered, from: "sent" as const, event: Option.some(makeEvent(delivered, fresh("evt"), T + 2)) }
      ]
      assert.deepStrictEqual(yield* messages.transition(moves), [true, false, true, true])
      assert.deepStrictEqual(yield* messages.findById(accountId, queued.id), Option.some(delivered))
      assert.deepStrictEqual(yield* messages.findById(accountId, other.id), Option.some(otherSent))
      assert.deepStrictEqual(
        yield* events.listBySubject(accountId, queued.id),
        [moves[0]!.event, moves[3]!.event].map(Option.getOrThrow)
      )
      assert.deepStrictEqual(yield* messages.transition([]), [])
    }))

  // --- MessageStore: claim -----------------------------------------------------------------

  it.effect("MessageStore: claim takes only due work: queued for dispatch, scheduled whose time has come", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const now = T + 10_000
      const queued = makeMessage(accountId, fresh("msg"), {
        reference: "claim-me",
        callbackUrl: "https://x.example/cb"
      })
      const dueEarlier = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: now - 1 })
      const dueNow = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: now })
      const later = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: now + 1 })
      const done: ReadonlyArray<Message> = [
        makeMessage(accountId, fresh("msg"), { status: "sent", sentAt: T }),
        makeMessage(accountId, fresh("msg"), { status: "delivered", sentAt: T, deliveredAt: T }),
        makeMessage(accountId, fresh("msg"), { status: "undelivered", error: { code: "c", message: "m" } }),
        makeMessage(accountId, fresh("msg"), { status: "failed", error: { code: "c", message: "m" } }),
        makeMessage(accountId, fresh("msg"), { status: "cancelled", scheduledAt: now - 5 })
      ]
      for (const m of [queued, dueEarlier, dueNow, later, ...done]) yield* messages.insert(m, Option.none())

      assert.deepStrictEqual(yield* messages.claim("dispatch", now, 100, now + 30_000), [queued], "the whole message")
      assert.deepStrictEqual(
        yield* messages.claim("schedule", now, 100, now + 30_000),
        [dueEarlier, dueNow],
        "scheduledAt <= now"
      )
      assert.deepStrictEqual(yield* messages.claim("schedule", now + 1, 100, now + 30_000), [later])
      assert.deepStrictEqual(yield* messages.claim("dispatch", now + 2, 100, now + 30_000), [], "nothing else is due")
      assert.deepStrictEqual(yield* messages.claim("schedule", now + 2, 100, now + 30_000), [])
      assert.deepStrictEqual(
        yield* messages.findById(accountId, queued.id),
        Option.some(queued),
        "claiming changes nothing else"
      )
    }))

  it.effect("MessageStore: claim is oldest first and takes at most limit", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const base = fresh("msg")
      // ids, creation times and schedules each sort in a different order
      const queued = [
        makeMessage(accountId, `${base}c`, { createdAt: T + 3 }),
        makeMessage(accountId, `${base}a`, { createdAt: T + 5 }),
        makeMessage(accountId, `${base}e`, { createdAt: T + 1 }),
        makeMessage(accountId, `${base}b`, { createdAt: T + 3 }),
        makeMessage(accountId, `${base}d`, { createdAt: T + 2 })
      ]
      const scheduled = [
        makeMessage(accountId, `${base}f`, { status: "scheduled", createdAt: T + 1, scheduledAt: T + 300 }),
        makeMessage(accountId, `${base}g`, { status: "scheduled", createdAt: T + 2, scheduledAt: T + 100 }),
        makeMessage(accountId, `${base}h`, { status: "scheduled", createdAt: T + 3, scheduledAt: T + 200 })
      ]
      for (const m of [...queued, ...scheduled]) yield* messages.insert(m, Option.none())
      const now = T + 1_000
      const lease = now + 30_000

      const dispatchOrder = oldestFirst("dispatch")(queued)
      assert.deepStrictEqual(ids(dispatchOrder), [`${base}e`, `${base}d`, `${base}b`, `${base}c`, `${base}a`])
      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", now, 2, lease)), ids(dispatchOrder.slice(0, 2)))
      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", now, 2, lease)), ids(dispatchOrder.slice(2, 4)))
      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", now, 2, lease)), ids(dispatchOrder.slice(4)))
      assert.deepStrictEqual(yield* messages.claim("dispatch", now, 2, lease), [])

      assert.deepStrictEqual(ids(yield* messages.claim("schedule", now, 2, lease)), [`${base}g`, `${base}h`])
      assert.deepStrictEqual(ids(yield* messages.claim("schedule", now, 2, lease)), [`${base}f`])
    }))

  it.effect("MessageStore: a claimed message is not claimed again until its lease ends, then it is", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const queued = makeMessage(accountId, fresh("msg"))
      const scheduled = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: T })
      yield* messages.insert(queued, Option.none())
      yield* messages.insert(scheduled, Option.none())

      assert.deepStrictEqual(yield* messages.claim("dispatch", T, 10, T + 30_000), [queued])
      assert.deepStrictEqual(yield* messages.claim("schedule", T, 10, T + 30_000), [scheduled])
      assert.deepStrictEqual(yield* messages.claim("dispatch", T, 10, T + 30_000), [], "held")
      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 29_999, 10, T + 60_000), [], "held to the end")
      assert.deepStrictEqual(yield* messages.claim("schedule", T + 29_999, 10, T + 60_000), [])

      // the lease ends at leaseUntil: a claimer that died loses the message then
      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 30_000, 10, T + 90_000), [queued])
      assert.deepStrictEqual(yield* messages.claim("schedule", T + 30_000, 10, T + 90_000), [scheduled])
      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 89_999, 10, T + 120_000), [], "held again")
      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 90_000, 10, T + 120_000), [queued])
    }))

  it.effect("MessageStore: concurrent claimers never get the same message", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const all = Array.from({ length: 20 }, (_, i) => makeMessage(accountId, fresh("msg"), { createdAt: T + i }))
      for (const m of all) yield* messages.insert(m, Option.none())
      const now = T + 1_000
      const claims = yield* Effect.all(
        Array.from({ length: 8 }, () => messages.claim("dispatch", now, 3, now + 30_000)),
        { concurrency: "unbounded" }
      )
      for (const claim of claims) assert.isAtMost(claim.length, 3)
      const concurrent = claims.flat().map((m) => m.id)
      assert.strictEqual(new Set(concurrent).size, concurrent.length, "no message claimed twice")
      // a claimer may find fewer rows than it asked for while others hold them, never the same ones
      const rest = ids(yield* messages.claim("dispatch", now, 100, now + 30_000))
      assert.deepStrictEqual([...concurrent, ...rest].sort(), ids(all).sort(), "every message claimed exactly once")
    }))

  it.effect("MessageStore: a dispatch claim is fair per account: another account's later send is in the first claim, each account oldest first", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const busy = yield* freshAccount
      const other = yield* freshAccount
      // one account's backlog queued first, then another account's single send
      const backlog = Array.from({ length: 30 }, (_, i) => makeMessage(busy, fresh("msg"), { createdAt: T + 1 + i }))
      const single = makeMessage(other, fresh("msg"), { createdAt: T + 100 })
      for (const m of [...backlog, single]) yield* messages.insert(m, Option.none())
      const now = T + 1_000
      const lease = now + 30_000

      const first = yield* messages.claim("dispatch", now, 10, lease)
      assert.deepStrictEqual(
        ids(first),
        [backlog[0]!.id, single.id, ...ids(backlog.slice(1, 9))],
        "the later send in the first claim, worked in turns: each account's oldest first"
      )
      assert.deepStrictEqual(yield* storedClaim(single.id), Option.some(lease), "held under the claim's lease")
      // the backlog goes on oldest first, and nothing claimed is claimed again within its lease
      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", now, 10, lease)), ids(backlog.slice(9, 19)))
      const late = makeMessage(other, fresh("msg"), { createdAt: T + 200 })
      yield* messages.insert(late, Option.none())
      assert.deepStrictEqual(
        ids(yield* messages.claim("dispatch", now, 10, lease)),
        [backlog[19]!.id, late.id, ...ids(backlog.slice(20, 28))]
      )
      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", now, 10, lease)), ids(backlog.slice(28)))
      assert.deepStrictEqual(yield* messages.claim("dispatch", now + 29_999, 10, lease), [], "all held")
      // once the lease ends, they are due again, fairly again
      assert.deepStrictEqual(
        ids(yield* messages.claim("dispatch", lease, 3, lease + 30_000)),
        [backlog[0]!.id, single.id, backlog[1]!.id]
      )
    }))

  it.effect("MessageStore: a dispatch claim of fewer than the accounts queued takes one message each, their oldest", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accounts = [yield* freshAccount, yield* freshAccount, yield* freshAccount]
      // each account's messages all older than the next one's: oldest first would take the first's two
      const queued = accounts.flatMap((accountId, a) =>
        Array.from({ length: 3 }, (_, i) => makeMessage(accountId, fresh("msg"), { createdAt: T + 10 * a + i }))
      )
      for (const m of queued) yield* messages.insert(m, Option.none())
      const now = T + 1_000
      const oldestOf = new Map(
        accounts.map((accountId) => [accountId, queued.find((m) => m.accountId === accountId)!.id])
      )

      const claimed = yield* messages.claim("dispatch", now, 2, now + 30_000)
      assert.strictEqual(new Set(claimed.map((m) => m.accountId)).size, 2, "two accounts, one message each")
      for (const m of claimed) assert.strictEqual(m.id, oldestOf.get(m.accountId), "each its account's oldest")
      const rest = ids(yield* messages.claim("dispatch", now, 100, now + 30_000))
      assert.deepStrictEqual([...ids(claimed), ...rest].sort(), ids(queued).sort(), "every message claimed once")
    }))

  it.effect("MessageStore: concurrent fair claimers never get the same message", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accounts = [yield* freshAccount, yield* freshAccount, yield* freshAccount]
      const all = Array.from(
        { length: 30 },
        (_, i) => makeMessage(accounts[i % 3]!, fresh("msg"), { createdAt: T + i })
      )
      for (const m of all) yield* messages.insert(m, Option.none())
      const now = T + 1_000
      const claims = yield* Effect.all(
        Array.from({ length: 8 }, () => messages.claim("dispatch", now, 4, now + 30_000)),
        { concurrency: "unbounded" }
      )
      for (const claim of claims) assert.isAtMost(claim.length, 4)
      const concurrent = claims.flat().map((m) => m.id)
      assert.strictEqual(new Set(concurrent).size, concurrent.length, "no message claimed twice")
      const rest = ids(yield* messages.claim("dispatch", now, 100, now + 30_000))
      assert.deepStrictEqual([...concurrent, ...rest].sort(), ids(all).sort(), "every message claimed exactly once")
    }))

  it.effect("MessageStore: a transitioned message is no longer claimable for its old work", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const queued = makeMessage(accountId, fresh("msg"))
      const scheduled = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: T })
      const cancelled = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: T })
      for (const m of [queued, scheduled, cancelled]) yield* messages.insert(m, Option.none())

      assert.deepStrictEqual(yield* messages.claim("dispatch", T, 10, T + 30_000), [queued])
      assert.isTrue(yield* transitionOne({ ...queued, status: "sent", sentAt: T + 1 }, "queued", Option.none()))
      assert.isTrue(yield* transitionOne({ ...cancelled, status: "cancelled" }, "scheduled", Option.none()))
      assert.deepStrictEqual(ids(yield* messages.claim("schedule", T, 10, T + 30_000)), [scheduled.id])

      // The claim was for the work of the old status: once queued, the message is due for
      // dispatch at once, while the schedule lease still runs.
      const nowQueued: Message = { ...scheduled, status: "queued" }
      assert.isTrue(yield* transitionOne(nowQueued, "scheduled", Option.none()))
      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 1, 10, T + 30_000), [nowQueued])

      // after every lease has ended: the sent message is not dispatched again, the cancelled and
      // the formerly scheduled ones are not scheduled again; only the queued one is due, again
      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 60_000, 10, T + 90_000), [nowQueued])
      assert.deepStrictEqual(yield* messages.claim("schedule", T + 60_000, 10, T + 90_000), [])
    }))

  // --- MessageStore: as the tables hold it (the store's test reads them, not the store) ------

  it.effect("MessageStore: insert writes the message row and its event row, alone and beside concurrent inserts", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const tables = yield* TableReader
      const accountId = yield* freshAccount
      const message = makeMessage(accountId, fresh("msg"), { to: "+61498765432", body: "Read from the table ✓" })
      const event = makeEvent(message, fresh("evt"), T + 1)
      const bare = makeMessage(accountId, fresh("msg"))
      yield* messages.insert(message, Option.some(event))
      yield* messages.insert(bare, Option.none())
      assert.deepStrictEqual(yield* tables.message(message.id), Option.some(messageRow(message)))
      assert.deepStrictEqual(yield* tables.events(message.id), [eventRow(event)])
      assert.deepStrictEqual(yield* tables.message(bare.id), Option.some(messageRow(bare)))
      assert.deepStrictEqual(yield* tables.events(bare.id), [], "no event given, none written")

      // concurrent sends share one write (group commit): each message with its own event
      const sends = Array.from({ length: 6 }, (_, i) => {
        const sent = makeMessage(accountId, fresh("msg"), { createdAt: T + i })
        return { message: sent, event: makeEvent(sent, fresh("evt"), T + i) }
      })
      yield* Effect.forEach(sends, ({ event, message }) => messages.insert(message, Option.some(event)), {
        concurrency: "unbounded"
      })
      for (const send of sends) {
        assert.deepStrictEqual(yield* tables.message(send.message.id), Option.some(messageRow(send.message)))
        assert.deepStrictEqual(yield* tables.events(send.message.id), [eventRow(send.event)])
      }
    }))

  it.effect("MessageStore: an insert refused IdempotencyKeyTaken writes neither its message row nor its event row; concurrent inserts beside it write both", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const tables = yield* TableReader
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const holder = makeMessage(accountId, fresh("msg"), { idempotencyKey: key })
      yield* messages.insert(holder, Option.none())
      const sends = Array.from({ length: 5 }, (_, i) => {
        // the first takes the holder's key; the others have none
        const keyed = i === 0 ? { idempotencyKey: key } : {}
        const message = makeMessage(accountId, fresh("msg"), { ...keyed, createdAt: T + 1 })
        return { message, event: makeEvent(message, fresh("evt"), T + 1) }
      })
      const results = yield* Effect.forEach(
        sends,
        ({ event, message }) => Effect.either(messages.insert(message, Option.some(event))),
        { concurrency: "unbounded" }
      )
      const [refused, ...beside] = sends
      assert.deepStrictEqual(results.map((result) => result._tag), ["Left", "Right", "Right", "Right", "Right"])
      assert.deepStrictEqual(yield* Effect.flip(results[0]!), new IdempotencyKeyTaken({ accountId, key }))
      assert.isTrue(Option.isNone(yield* tables.message(refused!.message.id)), "no message row")
      assert.deepStrictEqual(yield* tables.events(refused!.message.id), [], "no event row")
      assert.deepStrictEqual(
        yield* tables.message(holder.id),
        Option.some(messageRow(holder)),
        "the holder's as it was"
      )
      for (const { event, message } of beside) {
        assert.deepStrictEqual(yield* tables.message(message.id), Option.some(messageRow(message)))
        assert.deepStrictEqual(yield* tables.events(message.id), [eventRow(event)])
      }
    }))

  it.effect("MessageStore: transition rewrites a row only while it holds the move's from status, ends its claim, and writes the event rows of the moves that applied only", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const tables = yield* TableReader
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const moving = makeMessage(accountId, fresh("msg"))
      const staying = makeMessage(accountId, fresh("msg"))
      const unknown = makeMessage(accountId, fresh("msg"))
      yield* messages.insert(moving, Option.none())
      yield* messages.insert(staying, Option.none())
      const lease = T + 30_000
      const claimed = ids(yield* messages.claim("dispatch", T, 10, lease))
      assert.deepStrictEqual(claimed.sort(), [moving.id, staying.id].sort())
      assert.deepStrictEqual(yield* tables.message(staying.id), Option.some(messageRow(staying, lease)))

      const sent: Message = { ...moving, status: "sent", sentAt: T + 1 }
      const delivered: Message = { ...sent, status: "delivered", deliveredAt: T + 2 }
      const stale: Message = { ...staying, status: "sent", sentAt: T + 3 }
      const unknownSent: Message = { ...unknown, status: "sent", sentAt: T + 4 }
      const move = (next: Message, from: Message["status"], at: number) => ({
        next,
        from,
        event: Option.some(makeEvent(next, fresh("evt"), at))
      })
      const moves = [
        move(sent, "queued", T + 1),
        move(stale, "scheduled", T + 3), // the row is queued
        move(unknownSent, "queued", T + 4), // no such row
        move(delivered, "sent", T + 2) // from where the first move left it
      ]
      assert.deepStrictEqual(yield* messages.transition(moves), [true, false, false, true])

      assert.deepStrictEqual(
        yield* tables.message(moving.id),
        Option.some(messageRow(delivered)),
        "moved twice; no claim"
      )
      assert.deepStrictEqual(
        yield* tables.events(moving.id),
        [moves[0]!, moves[3]!].map(({ event }) => eventRow(Option.getOrThrow(event)))
      )
      assert.deepStrictEqual(
        yield* tables.message(staying.id),
        Option.some(messageRow(staying, lease)),
        "left as it was"
      )
      assert.deepStrictEqual(yield* tables.events(staying.id), [])
      assert.isTrue(Option.isNone(yield* tables.message(unknown.id)), "no row made")
      assert.deepStrictEqual(yield* tables.events(unknown.id), [])
    }))

  it.effect("MessageStore: claim writes its lease into the claimed rows only; a claim within the lease takes none of them and leaves the lease as it was", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      yield* drainAllClaims
      const accountId = yield* freshAccount
      const queued = makeMessage(accountId, fresh("msg"))
      const due = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: T })
      const later = makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: T + 60_000 })
      const sent = makeMessage(accountId, fresh("msg"), { status: "sent", sentAt: T })
      const all = [queued, due, later, sent]
      for (const message of all) yield* messages.insert(message, Option.none())
      const claims = Effect.forEach(all, (message) => storedClaim(message.id))
      assert.deepStrictEqual(yield* claims, all.map(() => Option.some(null)), "inserted unclaimed")

      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", T, 10, T + 30_000)), [queued.id])
      assert.deepStrictEqual(ids(yield* messages.claim("schedule", T, 10, T + 30_000)), [due.id])
      const leased = [Option.some(T + 30_000), Option.some(T + 30_000), Option.some(null), Option.some(null)]
      assert.deepStrictEqual(yield* claims, leased)

      assert.deepStrictEqual(yield* messages.claim("dispatch", T + 29_999, 10, T + 60_000), [])
      assert.deepStrictEqual(yield* messages.claim("schedule", T + 29_999, 10, T + 60_000), [])
      assert.deepStrictEqual(yield* claims, leased, "the first lease stands")

      assert.deepStrictEqual(ids(yield* messages.claim("dispatch", T + 30_000, 10, T + 90_000)), [queued.id])
      assert.deepStrictEqual(yield* storedClaim(queued.id), Option.some(T + 90_000), "taken again once the lease ended")
    }))
}
