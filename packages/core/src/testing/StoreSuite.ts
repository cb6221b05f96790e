/**
 * The shared test suite of the storage ports: every store (`store-sqlite`, `store-postgres`, …)
 * runs it against a real database, so that they all behave alike.
 *
 * @since 0.1.0
 */
import { assert, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect, Option } from "effect"
import type { Account, ApiKey } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import type { Event } from "../Event.js"
import { EventType } from "../Event.js"
import { EventStore } from "../EventStore.js"
import type { IdempotencyRecord } from "../IdempotencyStore.js"
import { IdempotencyStore } from "../IdempotencyStore.js"
import type { Keyset, Message, MessageFilter, MessageStatus } from "../messaging/Message.js"
import type { ClaimWork } from "../messaging/MessageStore.js"
import { MessageStore } from "../messaging/MessageStore.js"
import type { SenderIdRecord } from "../senderIds/SenderId.js"
import { SenderIdStore } from "../senderIds/SenderIdStore.js"
import type { Stores } from "../Stores.js"
import { SubscriptionStore } from "../webhooks/SubscriptionStore.js"

// ---------------------------------------------------------------------------------------------
// fixtures: fresh ids for every test, fixed timestamps
// ---------------------------------------------------------------------------------------------

const run = Math.random().toString(36).slice(2, 8)
let counter = 0
/** A new id, unique within this process and very likely across runs on one file. */
const fresh = (prefix: string) => `${prefix}_t${run}${(++counter).toString(36).padStart(5, "0")}`

/** 2026-11-22T07:00:00.000Z */
const T = 1_795_330_800_000

const makeAccount = (id: string): Account => ({
  id,
  name: "Acme Pty Ltd",
  type: "brand",
  adminEmail: "admin@acme.example",
  markets: [],
  identifiers: [{ identifierType: "ABN", identifierValue: "51824753556" }],
  createdAt: T
})

const makeMessage = (accountId: string, id: string, fields: Partial<Message> = {}): Message => ({
  id,
  accountId,
  status: "queued",
  to: "+61412345678",
  senderId: "Acme",
  body: "Your code is 123456",
  segments: 1,
  encoding: "GSM-7",
  market: "AU",
  price: { amount: "0.0500", currency: "AUD" },
  createdAt: T,
  ...fields
})

const makeEvent = (message: Message, id: string, createdAt: number): Event => ({
  id,
  accountId: message.accountId,
  type: (EventType.literals as ReadonlyArray<string>).includes(`message.${message.status}`)
    ? `message.${message.status}` as EventType
    : "message.failed",
  subjectId: message.id,
  createdAt,
  data: { id: message.id, status: message.status, nested: { list: [1, "two", null], flag: true } }
})

/** Inserts a new account and returns its id: every other row belongs to one. */
const freshAccount = Effect.gen(function*() {
  const accounts = yield* AccountStore
  const id = fresh("acct")
  yield* accounts.insertAccount(makeAccount(id))
  return id
})

const ids = (messages: ReadonlyArray<Message>) => messages.map((m) => m.id)

/** The order the port promises: createdAt desc, then id desc. */
const newestFirst = (messages: ReadonlyArray<Message>) =>
  [...messages].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/**
 * Inserts a varied set of messages for one account: several share a `createdAt`, so that the id
 * breaks ties.
 */
const seedMessages = (accountId: string) =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    const base = fresh("msg")
    const spec: ReadonlyArray<Partial<Message>> = [
      { createdAt: T + 1_000, market: "AU", status: "queued", senderId: "Acme", reference: "order-1" },
      { createdAt: T + 2_000, market: "NZ", status: "sent", senderId: "Acme", reference: "order-10" },
      { createdAt: T + 2_000, market: "AU", status: "delivered", senderId: "Bolt" },
      { createdAt: T + 2_000, market: "AU", status: "queued", senderId: "Acme", reference: "order-1" },
      { createdAt: T + 3_000, market: "SG", status: "failed", senderId: "Bolt", reference: "Order-1" },
      { createdAt: T + 4_000, market: "AU", status: "scheduled", senderId: "Acme", scheduledAt: T + 90_000 },
      { createdAt: T + 4_000, market: "NZ", status: "queued", senderId: "Bolt", reference: "order-1" },
      { createdAt: T + 5_000, market: "AU", status: "sent", senderId: "Acme" },
      { createdAt: T + 6_000, market: "GB", status: "undelivered", senderId: "Acme", reference: "order-2" }
    ]
    // ids sort in a different order from the insertion order and from createdAt
    const suffixes = ["e", "b", "h", "a", "c", "i", "d", "g", "f"]
    const all = spec.map((fields, i) => makeMessage(accountId, `${base}${suffixes[i]}`, fields))
    for (const message of all) yield* messages.insert(message, Option.none())
    return all
  })

/** Every page of `list` with `pageSize`, each continuing after the last row of the previous one. */
const listAllPages = (accountId: string, filter: MessageFilter, pageSize: number) =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    const pages: Array<ReadonlyArray<Message>> = []
    let after: Option.Option<Keyset> = Option.none()
    for (let i = 0; i < 100; i++) {
      const page = yield* messages.list(accountId, filter, after, pageSize)
      pages.push(page)
      if (page.length < pageSize) break
      const last = page[page.length - 1]!
      after = Option.some({ createdAt: last.createdAt, id: last.id })
    }
    return pages
  })

/** The latest time a Date can hold: leases this long never end within a test. */
const FOREVER = 8_640_000_000_000_000

/**
 * Claims every message still claimable for `work` (other tests' too: claims span accounts) under a
 * lease that never ends, so that a claim test sees only the messages it inserts itself.
 */
const drainClaims = (work: ClaimWork) =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    for (let i = 0; i < 1_000; i++) {
      if ((yield* messages.claim(work, FOREVER - 1, 1_000, FOREVER)).length === 0) return
    }
  })

const drainAllClaims = Effect.zipRight(drainClaims("dispatch"), drainClaims("schedule"))

/** The order claims promise: dispatch by createdAt, schedule by scheduledAt, then id. */
const oldestFirst = (work: ClaimWork) => (messages: ReadonlyArray<Message>) =>
  [...messages].sort((a, b) => {
    const at = (m: Message) => work === "schedule" ? m.scheduledAt ?? 0 : m.createdAt
    return at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  })

/** Reserve cutoffs that only replace rows created before `expired` (none counts as abandoned). */
const expiredBefore = (expired: number) => ({ expired, abandoned: 0 })

const makeReservation = (accountId: string, key: string, fingerprint: string, createdAt: number): IdempotencyRecord => ({
  accountId,
  key,
  fingerprint,
  createdAt,
  response: Option.none()
})

// ---------------------------------------------------------------------------------------------
// the suite
// ---------------------------------------------------------------------------------------------

/** One move through `MessageStore.transition`: whether it happened. */
const transitionOne = (next: Message, from: MessageStatus, event: Option.Option<Event>) =>
  Effect.flatMap(MessageStore, (messages) => Effect.map(messages.transition([{ next, from, event }]), ([moved]) => moved!))

/**
 * Registers the storage-port tests for one store. `store` is built once for the whole suite;
 * every test works on fresh ids, so the tests never depend on each other's data.
 *
 * @since 0.1.0
 * @category suites
 */
export const suite = (name: string, store: Layer.Layer<Stores, unknown>): void =>
  layer(store)(`StoreSuite (${name})`, (it) => {
    // --- AccountStore ------------------------------------------------------------------------

    it.effect("AccountStore: inserts and finds accounts, optional fields exactly", () =>
      Effect.gen(function*() {
        const accounts = yield* AccountStore
        const brand = makeAccount(fresh("acct"))
        const operator: Account = {
          ...makeAccount(fresh("acct")),
          type: "operator",
          network: "telstra",
          markets: ["AU", "NZ"],
          identifiers: []
        }
        yield* accounts.insertAccount(brand)
        yield* accounts.insertAccount(operator)
        assert.deepStrictEqual(yield* accounts.findAccount(brand.id), Option.some(brand))
        assert.deepStrictEqual(yield* accounts.findAccount(operator.id), Option.some(operator))
        assert.isTrue(Option.isNone(yield* accounts.findAccount(fresh("acct"))))
      }))

    it.effect("AccountStore: inserts a key and finds it by digest", () =>
      Effect.gen(function*() {
        const accounts = yield* AccountStore
        const accountId = yield* freshAccount
        const withExpiry: ApiKey = {
          id: fresh("key"),
          accountId,
          digest: fresh("digest"),
          permissions: ["messaging:send", "messaging:read"],
          expiresAt: T + 86_400_000,
          createdAt: T
        }
        const plain: ApiKey = { id: fresh("key"), accountId, digest: fresh("digest"), permissions: [], createdAt: T + 1 }
        yield* accounts.insertKey(withExpiry)
        yield* accounts.insertKey(plain)
        assert.deepStrictEqual(yield* accounts.findKeyByDigest(withExpiry.digest), Option.some(withExpiry))
        assert.deepStrictEqual(yield* accounts.findKeyByDigest(plain.digest), Option.some(plain))
        assert.isTrue(Option.isNone(yield* accounts.findKeyByDigest(fresh("digest"))))
      }))

    it.effect("AccountStore: revokes a key once; an unknown key is not revoked", () =>
      Effect.gen(function*() {
        const accounts = yield* AccountStore
        const accountId = yield* freshAccount
        const key: ApiKey = {
          id: fresh("key"),
          accountId,
          digest: fresh("digest"),
          permissions: ["sids:read"],
          createdAt: T
        }
        yield* accounts.insertKey(key)
        assert.isTrue(yield* accounts.revokeKey(key.id, T + 500))
        assert.isFalse(yield* accounts.revokeKey(key.id, T + 900))
        assert.deepStrictEqual(yield* accounts.findKeyByDigest(key.digest), Option.some({ ...key, revokedAt: T + 500 }))
        assert.isFalse(yield* accounts.revokeKey(fresh("key"), T + 500))
      }))

    // --- SenderIdStore -----------------------------------------------------------------------

    it.effect("SenderIdStore: inserts and finds records by id within their account", () =>
      Effect.gen(function*() {
        const senderIds = yield* SenderIdStore
        const accountId = yield* freshAccount
        const otherAccountId = yield* freshAccount
        const registered: SenderIdRecord = {
          id: fresh("sid"),
          accountId,
          senderId: "Acme",
          market: "AU",
          brandName: "Acme Pty Ltd",
          status: "registered",
          createdAt: T,
          registeredAt: T + 10,
          expiresAt: T + 31_536_000_000
        }
        const pending: SenderIdRecord = {
          id: fresh("sid"),
          accountId,
          senderId: "Acme Alerts",
          market: "NZ",
          brandName: "Acme NZ",
          status: "pending",
          createdAt: T + 1
        }
        yield* senderIds.insert(registered)
        yield* senderIds.insert(pending)
        assert.deepStrictEqual(yield* senderIds.findById(accountId, registered.id), Option.some(registered))
        assert.deepStrictEqual(yield* senderIds.findById(accountId, pending.id), Option.some(pending))
        assert.isTrue(Option.isNone(yield* senderIds.findById(otherAccountId, registered.id)))
        assert.isTrue(Option.isNone(yield* senderIds.findById(accountId, fresh("sid"))))
      }))

    it.effect("SenderIdStore: findRegistered needs the account, the market and status registered", () =>
      Effect.gen(function*() {
        const senderIds = yield* SenderIdStore
        const accountId = yield* freshAccount
        const otherAccountId = yield* freshAccount
        const base = {
          accountId,
          brandName: "Acme Pty Ltd",
          createdAt: T,
          registeredAt: T,
          expiresAt: T + 31_536_000_000
        }
        const registered: SenderIdRecord = { ...base, id: fresh("sid"), senderId: "Acme", market: "AU", status: "registered" }
        yield* senderIds.insert(registered)
        for (const status of ["pending", "info_requested", "rejected", "expired"] as const) {
          yield* senderIds.insert({ ...base, id: fresh("sid"), senderId: "Bolt", market: "AU", status })
        }
        yield* senderIds.insert({ ...base, id: fresh("sid"), senderId: "Acme", market: "NZ", status: "pending" })

        assert.deepStrictEqual(yield* senderIds.findRegistered(accountId, "Acme", "AU"), Option.some(registered))
        assert.isTrue(Option.isNone(yield* senderIds.findRegistered(otherAccountId, "Acme", "AU")), "wrong account")
        assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Acme", "NZ")), "wrong market")
        assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Acme", "SG")), "no record")
        assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Bolt", "AU")), "not registered")
      }))

    it.effect("SenderIdStore: findHeld answers every account's records of the string in the market, but rejected and expired ones", () =>
      Effect.gen(function*() {
        const senderIds = yield* SenderIdStore
        const senderId = fresh("H")
        const base = { brandName: "Acme Pty Ltd", createdAt: T, senderId, market: "AU" }
        const held: Array<SenderIdRecord> = []
        for (const status of ["registered", "pending", "info_requested"] as const) {
          const record: SenderIdRecord = { ...base, id: fresh("sid"), accountId: yield* freshAccount, status }
          yield* senderIds.insert(record)
          held.push(record)
        }
        for (const status of ["rejected", "expired"] as const) {
          yield* senderIds.insert({ ...base, id: fresh("sid"), accountId: yield* freshAccount, status })
        }
        yield* senderIds.insert({ ...base, id: fresh("sid"), accountId: yield* freshAccount, market: "NZ", status: "registered" })
        const found = yield* senderIds.findHeld(senderId, "AU")
        assert.deepStrictEqual([...found].sort((a, b) => a.id.localeCompare(b.id)), held)
        assert.deepStrictEqual(yield* senderIds.findHeld(fresh("H"), "AU"), [])
      }))

    it.effect("SenderIdStore: findRegistered answers the newest of several registered records", () =>
      Effect.gen(function*() {
        const senderIds = yield* SenderIdStore
        const accountId = yield* freshAccount
        const record = (createdAt: number): SenderIdRecord => ({
          id: fresh("sid"),
          accountId,
          senderId: "Acme",
          market: "AU",
          brandName: "Acme Pty Ltd",
          status: "registered",
          createdAt,
          registeredAt: createdAt,
          expiresAt: createdAt + 31_536_000_000
        })
        const [older, newest, old] = [record(T + 1_000), record(T + 2_000), record(T)]
        for (const r of [older, newest, old]) yield* senderIds.insert(r)
        assert.deepStrictEqual(yield* senderIds.findRegistered(accountId, "Acme", "AU"), Option.some(newest))
      }))

    // --- MessageStore: insert and find -------------------------------------------------------

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
          price: { amount: "0.1000", currency: "AUD" }
        })
        const event = makeEvent(full, fresh("evt"), T + 62_000)
        yield* messages.insert(full, Option.some(event))
        assert.deepStrictEqual(yield* messages.findById(accountId, full.id), Option.some(full))
        assert.deepStrictEqual(yield* events.listBySubject(accountId, full.id), [event])

        const bare = makeMessage(accountId, fresh("msg"))
        yield* messages.insert(bare, Option.none())
        const found = yield* messages.findById(accountId, bare.id)
        assert.deepStrictEqual(found, Option.some(bare))
        for (const key of ["reference", "callbackUrl", "scheduledAt", "sentAt", "deliveredAt", "error"]) {
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
        assert.deepStrictEqual(found, [Option.some(theirs), Option.none(), Option.none(), Option.some(mine), Option.some(mine)])
        assert.deepStrictEqual(yield* messages.findMany([]), [])
      }))

    it.effect("MessageStore: findByIdempotencyKey answers the account's newest message with the key since a time", () =>
      Effect.gen(function*() {
        const messages = yield* MessageStore
        const accountId = yield* freshAccount
        const otherAccountId = yield* freshAccount
        const key = fresh("idem")
        const older = makeMessage(accountId, fresh("msg"), { idempotencyKey: key, createdAt: T })
        const newer = makeMessage(accountId, fresh("msg"), { idempotencyKey: key, createdAt: T + 86_400_001 })
        yield* messages.insert(older, Option.none())
        yield* messages.insert(newer, Option.none())
        yield* messages.insert(makeMessage(accountId, fresh("msg"), { createdAt: T + 86_400_002 }), Option.none())
        assert.deepStrictEqual(yield* messages.findByIdempotencyKey(accountId, key, T), Option.some(newer))
        assert.deepStrictEqual(yield* messages.findById(accountId, older.id), Option.some(older), "the key is kept")
        assert.isTrue(Option.isNone(yield* messages.findByIdempotencyKey(accountId, key, T + 86_400_002)))
        assert.isTrue(Option.isNone(yield* messages.findByIdempotencyKey(otherAccountId, key, 0)))
        assert.isTrue(Option.isNone(yield* messages.findByIdempotencyKey(accountId, fresh("idem"), 0)))
      }))

    it.effect("MessageStore: another account's message is not found", () =>
      Effect.gen(function*() {
        const messages = yield* MessageStore
        const accountId = yield* freshAccount
        const otherAccountId = yield* freshAccount
        const message = makeMessage(accountId, fresh("msg"))
        yield* messages.insert(message, Option.none())
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
        const queued = makeMessage(accountId, fresh("msg"))
        yield* messages.insert(queued, Option.none())

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
        const queued = makeMessage(accountId, fresh("msg"))
        yield* messages.insert(queued, Option.none())
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
        const stored = Array.from({ length: 8 }, (_, i) => makeMessage(accountId, fresh("msg"), { reference: `batch-${i}` }))
        for (const message of stored) yield* messages.insert(message, Option.none())
        // even ones move from the status they are in; odd ones name a stale status and stay
        const moves = stored.map((message, i) => {
          const { reference: _, ...rest } = message
          const next: Message = { ...rest, status: "sent", sentAt: T + i }
          return { next, from: i % 2 === 0 ? message.status : "scheduled" as const, event: makeEvent(next, fresh("evt"), T + i) }
        })
        const results = yield* messages.transition(moves.map(({ event, from, next }) => ({ next, from, event: Option.some(event) })))
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
        const queued = makeMessage(accountId, fresh("msg"), { reference: "claim-me", callbackUrl: "https://x.example/cb" })
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
        assert.deepStrictEqual(yield* messages.findById(accountId, queued.id), Option.some(queued), "claiming changes nothing else")
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

    // --- EventStore --------------------------------------------------------------------------

    it.effect("EventStore: listBySubject is oldest first and scoped to the account", () =>
      Effect.gen(function*() {
        const messages = yield* MessageStore
        const events = yield* EventStore
        const accountId = yield* freshAccount
        const otherAccountId = yield* freshAccount
        const queued = makeMessage(accountId, fresh("msg"))
        // written out of time order: the list follows createdAt, not insertion
        const e3 = makeEvent(queued, fresh("evt"), T + 3_000)
        yield* messages.insert(queued, Option.some(e3))
        const sent: Message = { ...queued, status: "sent", sentAt: T + 1_000 }
        const e1 = makeEvent(sent, fresh("evt"), T + 1_000)
        yield* transitionOne(sent, "queued", Option.some(e1))
        const delivered: Message = { ...sent, status: "delivered", deliveredAt: T + 2_000 }
        const e2 = makeEvent(delivered, fresh("evt"), T + 2_000)
        yield* transitionOne(delivered, "sent", Option.some(e2))
        const other = makeMessage(accountId, fresh("msg"))
        yield* messages.insert(other, Option.some(makeEvent(other, fresh("evt"), T + 1_500)))

        assert.deepStrictEqual(yield* events.listBySubject(accountId, queued.id), [e1, e2, e3])
        assert.deepStrictEqual(yield* events.listBySubject(otherAccountId, queued.id), [])
        assert.deepStrictEqual(yield* events.listBySubject(accountId, fresh("msg")), [])
      }))

    // --- SubscriptionStore -------------------------------------------------------------------

    it.effect("SubscriptionStore: a fresh account has no active subscription", () =>
      Effect.gen(function*() {
        const subscriptions = yield* SubscriptionStore
        assert.isFalse(yield* subscriptions.hasActive(yield* freshAccount))
        assert.isFalse(yield* subscriptions.hasActive(fresh("acct")))
      }))

    // --- IdempotencyStore --------------------------------------------------------------------

    it.effect("IdempotencyStore: reserve is none first, then the row that holds the key", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const accountId = yield* freshAccount
        const key = fresh("idem")
        const first = makeReservation(accountId, key, "fp-first", T)
        assert.isTrue(Option.isNone(yield* store.reserve(first, expiredBefore(T - 86_400_000))))
        assert.deepStrictEqual(
          yield* store.reserve(makeReservation(accountId, key, "fp-second", T + 10), expiredBefore(T - 86_400_000)),
          Option.some(first)
        )
        assert.deepStrictEqual(
          yield* store.reserve(makeReservation(accountId, key, "fp-first", T + 20), expiredBefore(T - 86_400_000)),
          Option.some(first)
        )
      }))

    it.effect("IdempotencyStore: keys are scoped to the account", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const key = fresh("idem")
        const a = makeReservation(yield* freshAccount, key, "fp", T)
        const b = makeReservation(yield* freshAccount, key, "fp", T)
        assert.isTrue(Option.isNone(yield* store.reserve(a, expiredBefore(0))))
        assert.isTrue(Option.isNone(yield* store.reserve(b, expiredBefore(0))))
      }))

    it.effect("IdempotencyStore: complete stores the response byte for byte", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const accountId = yield* freshAccount
        const key = fresh("idem")
        const record = makeReservation(accountId, key, "fp", T)
        yield* store.reserve(record, expiredBefore(0))
        const body = "{\"ok\":true,\"data\":{\"body\":\"Grüße 👋\\n\",\"x\":  1.50}}\n\t "
        yield* store.complete(record, { status: 201, body })
        const held = yield* store.reserve(makeReservation(accountId, key, "fp", T + 5), expiredBefore(0))
        assert.deepStrictEqual(held, Option.some({ ...record, response: Option.some({ status: 201, body }) }))
        const response = Option.getOrThrow(Option.getOrThrow(held).response)
        assert.strictEqual(response.body, body)
        assert.strictEqual(response.status, 201)
      }))

    it.effect("IdempotencyStore: release frees the key", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const accountId = yield* freshAccount
        const key = fresh("idem")
        const first = makeReservation(accountId, key, "fp-1", T)
        yield* store.reserve(first, expiredBefore(0))
        yield* store.release(first)
        const again = makeReservation(accountId, key, "fp-2", T + 1)
        assert.isTrue(Option.isNone(yield* store.reserve(again, expiredBefore(0))))
        assert.deepStrictEqual(yield* store.reserve(makeReservation(accountId, key, "fp-3", T + 2), expiredBefore(0)), Option.some(again))
        yield* store.release({ accountId, key: fresh("idem"), createdAt: T })
      }))

    it.effect("IdempotencyStore: a row created before expiredBefore is replaced", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const accountId = yield* freshAccount
        const key = fresh("idem")
        const old = makeReservation(accountId, key, "fp-old", T)
        yield* store.reserve(old, expiredBefore(0))
        yield* store.complete(old, { status: 200, body: "{}" })

        // created exactly at expiredBefore: still live
        const early = makeReservation(accountId, key, "fp-new", T + 100)
        const held = yield* store.reserve(early, expiredBefore(T))
        assert.deepStrictEqual(Option.map(held, (r) => r.fingerprint), Option.some("fp-old"))

        const fresher = makeReservation(accountId, key, "fp-new", T + 200)
        assert.isTrue(Option.isNone(yield* store.reserve(fresher, expiredBefore(T + 1))))
        assert.deepStrictEqual(
          yield* store.reserve(makeReservation(accountId, key, "fp-other", T + 300), expiredBefore(T + 1)),
          Option.some(fresher),
          "the replacement holds no response of the stale row"
        )
      }))

    it.effect("IdempotencyStore: an abandoned reservation is taken over by the same request only", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const accountId = yield* freshAccount
        const key = fresh("idem")
        const first = makeReservation(accountId, key, "fp-a", T)
        yield* store.reserve(first, expiredBefore(0))
        const abandonedBefore = (abandoned: number) => ({ expired: 0, abandoned })

        // created exactly at the cutoff: still running
        const atCutoff = yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 10), abandonedBefore(T))
        assert.deepStrictEqual(atCutoff, Option.some(first))
        // another request with the key: a conflict, abandoned or not
        const other = yield* store.reserve(makeReservation(accountId, key, "fp-b", T + 20), abandonedBefore(T + 1))
        assert.deepStrictEqual(other, Option.some(first))

        const retry = makeReservation(accountId, key, "fp-a", T + 30)
        assert.isTrue(Option.isNone(yield* store.reserve(retry, abandonedBefore(T + 1))))
        assert.deepStrictEqual(
          yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 40), abandonedBefore(T + 1)),
          Option.some(retry),
          "the retry holds the key now"
        )

        // the first holder, alive after all, reaches its own reservation only
        yield* store.complete(first, { status: 500, body: "stalled" })
        yield* store.release(first)
        assert.deepStrictEqual(
          yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 45), abandonedBefore(T + 1)),
          Option.some(retry),
          "the retry still holds the key, with no response"
        )

        // a completed key is never abandoned
        yield* store.complete(retry, { status: 201, body: "{}" })
        const done = yield* store.reserve(makeReservation(accountId, key, "fp-a", T + 50), abandonedBefore(T + 45))
        assert.deepStrictEqual(Option.map(done, (r) => r.response), Option.some(Option.some({ status: 201, body: "{}" })))
      }))

    it.effect("IdempotencyStore: of 20 concurrent reserves of one key exactly one wins", () =>
      Effect.gen(function*() {
        const store = yield* IdempotencyStore
        const accountId = yield* freshAccount
        const key = fresh("idem")
        const attempts = Array.from({ length: 20 }, (_, i) => makeReservation(accountId, key, `fp-${i}`, T + i))
        const results = yield* Effect.all(attempts.map((r) => store.reserve(r, expiredBefore(0))), { concurrency: "unbounded" })
        const winners = results.filter(Option.isNone)
        assert.strictEqual(winners.length, 1)
        const winner = attempts[results.findIndex(Option.isNone)]!
        for (const result of results) {
          if (Option.isSome(result)) assert.deepStrictEqual(result.value, winner)
        }
      }))
  })
