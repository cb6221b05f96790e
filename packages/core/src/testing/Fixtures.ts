/**
 * The fixtures of the store suite: fresh ids for every test, fixed timestamps, and the builders
 * and helpers that the tests of every port share.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import type { Account } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import type { Event } from "../Event.js"
import { EventType } from "../Event.js"
import type { IdempotencyRecord } from "../idempotency/IdempotencyStore.js"
import type { Mail } from "../mail/Mail.js"
import { MailStore } from "../mail/MailStore.js"
import type { Keyset, Message, MessageFilter, MessageStatus } from "../messaging/Message.js"
import type { ClaimWork } from "../messaging/MessageStore.js"
import { MessageStore } from "../messaging/MessageStore.js"
import type { Registration } from "../senderIds/Registration.js"
import { type Holder, type SenderIdRecord, termMillis } from "../senderIds/SenderId.js"
import type { RegistrationFilter } from "../senderIds/SenderIdStore.js"
import { SenderIdStore } from "../senderIds/SenderIdStore.js"
import type { Delivery, Destination } from "../webhooks/Delivery.js"
import { DeliveryStore } from "../webhooks/DeliveryStore.js"
import type { Subscription } from "../webhooks/Subscription.js"
import { SubscriptionStore } from "../webhooks/SubscriptionStore.js"

// Digits and lower-case letters without the confusable ones (`SenderId.skeleton`), so that two fresh
// strings of one prefix are never look-alikes of each other.
const alphabet = "234679acdefghjknpqrtuvwxyz"
const encode = (n: number, width: number) => {
  let text = ""
  for (let rest = n; text.length < width; rest = Math.floor(rest / alphabet.length)) {
    text = alphabet[rest % alphabet.length] + text
  }
  return text
}
const run = encode(Math.floor(Math.random() * alphabet.length ** 6), 6)
let counter = 0
/**
 * A new id, unique within this process and very likely across runs on one file; as a Sender ID
 * string, no look-alike of another fresh one of its prefix.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const fresh = (prefix: string) => `${prefix}_t${run}${encode(++counter, 5)}`

/**
 * A legal entity of its own (`SenderId.Holder`), unique within this process: an ABN-typed
 * identifier the store does not check, made fresh.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const freshHolder = (): Holder => ({ identifierType: "ABN", identifierValue: fresh("ABN") })

/**
 * A valid legal identifier of a type each default market takes (`Identifier.checkIn` passes it),
 * for imports in tests: AU the ABR's example ABN, NZ, SG and GB made to pass their checks.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const exampleIdentifiers: Readonly<Record<string, Holder>> = {
  AU: { identifierType: "ABN", identifierValue: "51824753556" },
  NZ: { identifierType: "NZBN", identifierValue: "9429041561461" },
  SG: { identifierType: "UEN", identifierValue: "196800306E" },
  GB: { identifierType: "CRN", identifierValue: "12345678" }
}

/** The legal entity of the fixtures' Sender IDs and registrations: ABN 51 824 753 556. @since 0.1.0 @category fixtures */
export const acmeHolder: Holder = { identifierType: "ABN", identifierValue: "51824753556" }

/** The time every fixture starts from: 2026-11-22T07:00:00.000Z. @since 0.1.0 @category fixtures */
export const T = 1_795_330_800_000

/**
 * A brand account `id` created at `T`, owning one ABN-typed identifier of its own (an identifier
 * has one owner; the store does not check values, so it is made from the id).
 *
 * @since 0.1.0
 * @category fixtures
 */
export const makeAccount = (id: string): Account => ({
  id,
  name: "Acme Pty Ltd",
  type: "brand",
  adminEmail: "admin@acme.example",
  markets: [],
  identifiers: [{ identifierType: "ABN", identifierValue: `ABN-${id}` }],
  createdAt: T
})

/** A queued AU message of `accountId` created at `T`, with `fields` over it. @since 0.1.0 @category fixtures */
export const makeMessage = (accountId: string, id: string, fields: Partial<Message> = {}): Message => ({
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

/** A Sender ID "Acme" of `accountId` imported as registered in AU at `at` (`T` unless given) for a term, at version 0, with `fields` over it. @since 0.1.0 @category fixtures */
export const makeSenderId = (
  accountId: string,
  fields: Partial<SenderIdRecord> = {},
  at: number = T
): SenderIdRecord => ({
  id: fresh("sid"),
  accountId,
  senderId: "Acme",
  market: "AU",
  brandName: "Acme Pty Ltd",
  ...acmeHolder,
  status: "registered",
  createdAt: at,
  registeredAt: at,
  expiresAt: at + termMillis,
  version: 0,
  ...fields
})

/**
 * A Sender ID "Acme" of `accountId` submitted for registration in AU at `at` (`T` unless given):
 * pending, with its brand, use and match, at version 0, with `fields` over it.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const makeSubmittedSenderId = (
  accountId: string,
  fields: Partial<SenderIdRecord> = {},
  at: number = T
): SenderIdRecord => ({
  id: fresh("sid"),
  accountId,
  senderId: "Acme",
  market: "AU",
  brandName: "Acme Pty Ltd",
  ...acmeHolder,
  brandId: "brand_acme",
  useCase: "One-time passcodes for sign-in",
  matchType: "business_name",
  matchValue: "Acme Pty Ltd",
  status: "pending",
  createdAt: at,
  version: 0,
  ...fields
})

/**
 * The registration of `record` with `network`, awaiting its review since the record was created,
 * submitted by a CPaaS account, with `fields` over it.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const makeRegistration = (
  record: SenderIdRecord,
  network: string,
  fields: Partial<Registration> = {}
): Registration => ({
  id: fresh("opreg"),
  sidId: record.id,
  network,
  market: record.market,
  senderId: record.senderId,
  brand: {
    id: record.brandId ?? "brand_acme",
    name: record.brandName,
    identifierType: record.identifierType,
    identifierValue: record.identifierValue
  },
  status: "pending_operator_review",
  useCase: record.useCase ?? "One-time passcodes for sign-in",
  matchType: record.matchType ?? "business_name",
  matchValue: record.matchValue ?? record.brandName,
  submittedBy: { accountId: record.accountId, type: "cpaas", name: "Acme Messaging" },
  submittedAt: record.createdAt,
  ...fields
})

/** The `type` event of the Sender ID `record` at `createdAt`, with its status. @since 0.1.0 @category fixtures */
export const makeSenderIdEvent = (record: SenderIdRecord, type: EventType, createdAt: number): Event => ({
  id: fresh("evt"),
  accountId: record.accountId,
  type,
  subjectId: record.id,
  createdAt,
  data: { id: record.id, status: record.status }
})

/**
 * Claims every record the expiry watcher could claim (other tests' too: claims span accounts)
 * under a lease that never ends, so that a claim test sees only the records it inserts itself.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const drainWatched = Effect.gen(function*() {
  const senderIds = yield* SenderIdStore
  for (let i = 0; i < 1_000; i++) {
    if ((yield* senderIds.claimWatched(FOREVER - 1, 1_000, FOREVER)).length === 0) return
  }
})

/**
 * Every page of `listRegistrations` with `pageSize`, each continuing after the last row of the
 * previous one.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const listAllRegistrationPages = (filter: RegistrationFilter, pageSize: number) =>
  Effect.flatMap(SenderIdStore, (senderIds) =>
    allPages(
      (after, limit) => senderIds.listRegistrations(filter, after, limit),
      pageSize,
      (last) => ({ createdAt: last.submittedAt, id: last.id })
    ))

/** The keyset of a row listed by its `createdAt` and id. @since 0.1.0 @category fixtures */
export const createdAtKeyset = ({ createdAt, id }: Keyset): Keyset => ({ createdAt, id })

/**
 * Every page of a newest-first list of `pageSize` (`page(after, limit)`), each continuing after the
 * keyset (`keysetOf`) of the last row of the previous one, until one is short.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const allPages = <A, E, R>(
  page: (after: Option.Option<Keyset>, limit: number) => Effect.Effect<ReadonlyArray<A>, E, R>,
  pageSize: number,
  keysetOf: (row: A) => Keyset
) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<A>> = []
    let after: Option.Option<Keyset> = Option.none()
    for (let i = 0; i < 100; i++) {
      const found = yield* page(after, pageSize)
      pages.push(found)
      if (found.length < pageSize) break
      after = Option.some(keysetOf(found[found.length - 1]!))
    }
    return pages
  })

/** `makeMessage` of `accountId`, inserted without an event, with `fields` over it. @since 0.1.0 @category fixtures */
export const insertMessage = (accountId: string, fields: Partial<Message> = {}) =>
  Effect.flatMap(MessageStore, (messages) => {
    const message = makeMessage(accountId, fresh("msg"), fields)
    return Effect.as(messages.insert(message, Option.none()), message)
  })

/** The `message.<status>` event of `message` (`message.failed` for a status without one), with nested data. @since 0.1.0 @category fixtures */
export const makeEvent = (message: Message, id: string, createdAt: number): Event => ({
  id,
  accountId: message.accountId,
  type: (EventType.literals as ReadonlyArray<string>).includes(`message.${message.status}`)
    ? `message.${message.status}` as EventType
    : "message.failed",
  subjectId: message.id,
  createdAt,
  data: { id: message.id, status: message.status, nested: { list: [1, "two", null], flag: true } }
})

/** Inserts a new account and returns its id: every other row belongs to one. @since 0.1.0 @category fixtures */
export const freshAccount = Effect.gen(function*() {
  const accounts = yield* AccountStore
  const id = fresh("acct")
  yield* accounts.insertAccount(makeAccount(id))
  return id
})

/** The ids of `messages`, in their order. @since 0.1.0 @category fixtures */
export const ids = (messages: ReadonlyArray<Message>) => messages.map((m) => m.id)

/** The order the port promises: createdAt desc, then id desc. @since 0.1.0 @category fixtures */
export const newestFirst = (messages: ReadonlyArray<Message>) =>
  [...messages].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/**
 * Inserts a varied set of messages for one account: several share a `createdAt`, so that the id
 * breaks ties.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const seedMessages = (accountId: string) =>
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

/** Every page of `list` with `pageSize`, each continuing after the last row of the previous one. @since 0.1.0 @category fixtures */
export const listAllPages = (accountId: string, filter: MessageFilter, pageSize: number) =>
  Effect.flatMap(
    MessageStore,
    (messages) => allPages((after, limit) => messages.list(accountId, filter, after, limit), pageSize, createdAtKeyset)
  )

/** The latest time a Date can hold: leases this long never end within a test. @since 0.1.0 @category fixtures */
export const FOREVER = 8_640_000_000_000_000

/**
 * Claims every message still claimable for `work` (other tests' too: claims span accounts) under a
 * lease that never ends, so that a claim test sees only the messages it inserts itself.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const drainClaims = (work: ClaimWork) =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    for (let i = 0; i < 1_000; i++) {
      if ((yield* messages.claim(work, FOREVER - 1, 1_000, FOREVER)).length === 0) return
    }
  })

/** `drainClaims` for both kinds of work. @since 0.1.0 @category fixtures */
export const drainAllClaims = Effect.zipRight(drainClaims("dispatch"), drainClaims("schedule"))

/** The order claims promise: dispatch by createdAt, schedule by scheduledAt, then id. @since 0.1.0 @category fixtures */
export const oldestFirst = (work: ClaimWork) => (messages: ReadonlyArray<Message>) =>
  [...messages].sort((a, b) => {
    const at = (m: Message) => work === "schedule" ? m.scheduledAt ?? 0 : m.createdAt
    return at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  })

/** Reserve cutoffs that only replace rows created before `expired` (none counts as abandoned). @since 0.1.0 @category fixtures */
export const expiredBefore = (expired: number) => ({ expired, abandoned: 0 })

/** An in-progress idempotency record of `key`. @since 0.1.0 @category fixtures */
export const makeReservation = (
  accountId: string,
  key: string,
  fingerprint: string,
  createdAt: number
): IdempotencyRecord => ({
  accountId,
  key,
  fingerprint,
  createdAt,
  response: Option.none()
})

/** One move through `MessageStore.transition`: whether it happened. @since 0.1.0 @category fixtures */
export const transitionOne = (next: Message, from: MessageStatus, event: Option.Option<Event>) =>
  Effect.flatMap(
    MessageStore,
    (messages) => Effect.map(messages.transition([{ next, from, event }]), ([moved]) => moved!)
  )

/** A pending mail `id` created and due at `T`, with `fields` over it. @since 0.1.0 @category fixtures */
export const makeMail = (id: string, fields: Partial<Mail> = {}): Mail => ({
  id,
  to: "legal@acme.example",
  subject: "Approve Sendline's relationship with Acme Pty Ltd",
  text: "Acme Pty Ltd asks to send as \"Acme\" in AU.\nApprove: POST /v1/relationships/rel_1/approve\n",
  createdAt: T,
  status: "pending",
  attempts: 0,
  nextAttemptAt: T,
  ...fields
})

/**
 * Claims every mail still claimable (other tests' too: claims span the table) under a lease that
 * never ends, so that a claim test sees only the mails it inserts itself.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const drainMailClaims = Effect.gen(function*() {
  const mails = yield* MailStore
  for (let i = 0; i < 1_000; i++) {
    if ((yield* mails.claim(FOREVER - 1, 1_000, FOREVER)).length === 0) return
  }
})

/** An active subscription of `accountId` created at `at`, with `fields` over it. @since 0.1.0 @category fixtures */
export const makeSubscription = (accountId: string, at: number, fields: Partial<Subscription> = {}): Subscription => ({
  id: fresh("wh"),
  accountId,
  url: "https://hooks.acme.example/sendline",
  events: ["message.delivered", "message.failed"],
  secret: "whsec-first-0123456789",
  status: "active",
  createdAt: at,
  ...fields
})

/** Inserts `subscription`, whatever its account holds, and answers it. @since 0.1.0 @category fixtures */
export const insertSubscription = (subscription: Subscription) =>
  Effect.as(
    Effect.flatMap(SubscriptionStore, (store) => store.insert(subscription, Number.MAX_SAFE_INTEGER)),
    subscription
  )

/**
 * A new message of `accountId` (`fields` over `makeMessage`'s) inserted with its event made at
 * `createdAt`, not fanned out yet: both.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const insertMessageEvent = (accountId: string, createdAt: number, fields: Partial<Message> = {}) =>
  Effect.flatMap(MessageStore, (messages) => {
    const message = makeMessage(accountId, fresh("msg"), { createdAt, ...fields })
    const event = makeEvent(message, fresh("evt"), createdAt)
    return Effect.as(messages.insert(message, Option.some(event)), { message, event })
  })

/**
 * A pending first delivery of `event` to `destination` (a subscription's id, or a callback URL),
 * made and due at the event's time, with `fields` over it.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const makeDelivery = (event: Event, destination: Destination, fields: Partial<Delivery> = {}): Delivery => ({
  id: fresh("dlv"),
  accountId: event.accountId,
  eventId: event.id,
  eventType: event.type,
  ...(destination._tag === "Subscription"
    ? { subscriptionId: destination.subscriptionId }
    : { callbackUrl: destination.url }),
  attempt: 0,
  state: "pending",
  dueAt: event.createdAt,
  createdAt: event.createdAt,
  ...fields
})

/**
 * Fans out every event not fanned out yet (other tests' too: the outbox spans accounts) with no
 * deliveries, so that a test of `pendingEvents` sees only the events it inserts itself.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const drainPendingEvents = Effect.gen(function*() {
  const deliveries = yield* DeliveryStore
  for (let i = 0; i < 1_000; i++) {
    const pending = yield* deliveries.pendingEvents(1_000)
    if (pending.length === 0) return
    yield* deliveries.fanOut(pending.map(({ event }) => ({ eventId: event.id, deliveries: [] })), T)
  }
})

/**
 * Claims every delivery still claimable (other tests' too: claims span the table) under a lease
 * that never ends, so that a claim test sees only the deliveries it inserts itself.
 *
 * @since 0.1.0
 * @category fixtures
 */
export const drainDeliveryClaims = Effect.gen(function*() {
  const deliveries = yield* DeliveryStore
  for (let i = 0; i < 1_000; i++) {
    if ((yield* deliveries.claim(FOREVER - 1, 1_000, FOREVER, 1_000_000, 1_000_000)).length === 0) return
  }
})
