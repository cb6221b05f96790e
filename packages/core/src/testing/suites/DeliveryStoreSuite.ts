/**
 * The store suite's tests of `DeliveryStore`: the fan-out of the event log into webhook
 * deliveries, their claims and settlements, the delivery log and redelivery, and what a
 * subscription's end does to its pending deliveries.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Event } from "../../Event.js"
import { MailStore } from "../../mail/MailStore.js"
import type { Keyset } from "../../Pagination.js"
import { SenderIdStore } from "../../senderIds/SenderIdStore.js"
import type { Stores } from "../../Stores.js"
import type { Delivery, Destination } from "../../webhooks/Delivery.js"
import { DeliveryStore } from "../../webhooks/DeliveryStore.js"
import type { Subscription } from "../../webhooks/Subscription.js"
import { SubscriptionStore } from "../../webhooks/SubscriptionStore.js"
import {
  allPages,
  createdAtKeyset,
  drainDeliveryClaims,
  drainPendingEvents,
  fresh,
  freshAccount,
  insertMessageEvent,
  insertSubscription,
  makeDelivery,
  makeMail,
  makeSenderId,
  makeSenderIdEvent,
  makeSubscription,
  T,
  transitionOne
} from "../Fixtures.js"
import { TableReader } from "../TableReader.js"

/** The destination of `subscription`'s deliveries. */
const to = (subscription: Subscription): Destination => ({ _tag: "Subscription", subscriptionId: subscription.id })

/** A callback URL of its own. */
const callback = (): Destination => ({ _tag: "Callback", url: `https://${fresh("cb")}.example/in` })

/** The ids of `items`, in their order. */
const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

/** The ids of the claimed deliveries, in their order. */
const claimedIds = (claimed: ReadonlyArray<{ readonly delivery: Delivery }>) =>
  claimed.map(({ delivery }) => delivery.id)

/** The order of the delivery log: createdAt desc, then id desc. */
const newestFirst = (deliveries: ReadonlyArray<Delivery>) =>
  [...deliveries].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/** `delivery` attempted at `at` and failed with HTTP 500 (failing since then), its retry due at `nextAttemptAt` if given. */
const failedAt = (delivery: Delivery, at: number, nextAttemptAt?: number): Delivery => ({
  ...delivery,
  state: "failed",
  attemptedAt: at,
  url: "https://hooks.acme.example/sendline",
  statusCode: 500,
  error: "http_500",
  durationMillis: 12,
  responseBody: "{\"error\": \"busy\"}",
  failingSince: delivery.failingSince ?? at,
  ...(nextAttemptAt === undefined ? {} : { nextAttemptAt })
})

/** `delivery` attempted at `at` and answered 204. */
const succeededAt = (delivery: Delivery, at: number): Delivery => ({
  ...delivery,
  state: "succeeded",
  attemptedAt: at,
  url: "https://hooks.acme.example/sendline",
  statusCode: 204,
  durationMillis: 3,
  responseBody: ""
})

/** The settlement of `attempted` with no retry and no disable, `fields` over it. */
const settlement = (
  attempted: Delivery,
  fields: { readonly retry?: Delivery; readonly disable?: ReturnType<typeof makeMail> } = {}
) => ({
  attempted,
  retry: Option.fromNullable(fields.retry),
  disable: Option.fromNullable(fields.disable)
})

/** A new account with an active subscription, and a message event of it made at `T`, not fanned out. */
const subscribed = Effect.gen(function*() {
  const accountId = yield* freshAccount
  const subscription = yield* insertSubscription(makeSubscription(accountId, T))
  const { event } = yield* insertMessageEvent(accountId, T)
  return { accountId, subscription, event }
})

/** A cap per account no test of another cap reaches. */
const unlimited = 1_000_000

/** A lease that outlasts the test. */
const FAR = T + 86_400_000

/** Registers the tests of `DeliveryStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores | TableReader>): void => {
  it.effect("DeliveryStore: pending events are listed oldest first, a message's with its callback URL, and leave the list once fanned out", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainPendingEvents
      const accountId = yield* freshAccount
      const url = "https://app.acme.example/sms/status"
      const called = yield* insertMessageEvent(accountId, T + 2_000, { callbackUrl: url })
      const plain = yield* insertMessageEvent(accountId, T + 1_000)
      const sent = { ...called.message, status: "sent" as const, sentAt: T + 3_000 }
      const sentEvent: Event = { ...called.event, id: fresh("evt"), type: "message.sent", createdAt: T + 3_000 }
      yield* transitionOne(sent, "queued", Option.some(sentEvent))
      // a Sender ID's event at the time of another: the id decides; and one whose subject is the
      // message with a callback URL (no store writes such a one): not a message's event, so no URL
      const record = makeSenderId(accountId, {}, T + 1_000)
      const sidEvent = makeSenderIdEvent(record, "sid.registered", T + 1_000)
      const odd: Event = { ...makeSenderIdEvent(record, "sid.expiring", T + 4_000), subjectId: called.message.id }
      yield* (yield* SenderIdStore).insert(record, [], [sidEvent, odd])

      const [tiedFirst, tiedSecond] = plain.event.id < sidEvent.id ? [plain.event, sidEvent] : [sidEvent, plain.event]
      const expected = [
        { event: tiedFirst },
        { event: tiedSecond },
        { event: called.event, callbackUrl: url },
        { event: sentEvent, callbackUrl: url },
        { event: odd }
      ]
      assert.deepStrictEqual(yield* store.pendingEvents(10), expected)
      assert.deepStrictEqual(yield* store.pendingEvents(2), expected.slice(0, 2))
      assert.deepStrictEqual(
        yield* store.fanOut(
          expected.slice(0, 2).map(({ event }) => ({ eventId: event.id, deliveries: [] })),
          T + 5_000
        ),
        [true, true]
      )
      assert.deepStrictEqual(yield* store.pendingEvents(10), expected.slice(2))
    }))

  it.effect("DeliveryStore: fanOut marks an event once: a second fanOut of it returns false and inserts nothing", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const { accountId, event, subscription } = yield* subscribed
      const other = (yield* insertMessageEvent(accountId, T + 1)).event
      const first = makeDelivery(event, to(subscription))
      const callbackDelivery = makeDelivery(event, callback())
      assert.deepStrictEqual(
        yield* store.fanOut([{ eventId: event.id, deliveries: [first, callbackDelivery] }], T + 5),
        [true]
      )

      const again = makeDelivery(event, to(subscription))
      const ofOther = makeDelivery(other, to(subscription))
      const twice = makeDelivery(other, to(subscription))
      assert.deepStrictEqual(
        yield* store.fanOut([
          { eventId: event.id, deliveries: [again] },
          { eventId: other.id, deliveries: [ofOther] },
          { eventId: other.id, deliveries: [twice] }, // the same event twice in one call: its first fan-out only
          { eventId: fresh("evt"), deliveries: [] }
        ], T + 6),
        [false, true, false, false]
      )
      assert.deepStrictEqual(yield* store.fanOut([], T + 7), [])
      for (const written of [first, callbackDelivery, ofOther]) {
        assert.deepStrictEqual(yield* store.findById(accountId, written.id), Option.some(written))
      }
      for (const refused of [again, twice]) assert.isTrue(Option.isNone(yield* store.findById(accountId, refused.id)))
      const pending = yield* store.pendingEvents(100_000)
      assert.isFalse(pending.some(({ event: e }) => e.id === event.id || e.id === other.id), "no longer pending")
    }))

  it.effect("DeliveryStore: insert and findById keep every field of a delivery, only for its account; insert writes all or none", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const { accountId, event, subscription } = yield* subscribed
      const full = makeDelivery(event, to(subscription), {
        attempt: 3,
        state: "failed",
        dueAt: T + 100,
        createdAt: T + 50,
        failingSince: T + 10,
        attemptedAt: T + 101,
        url: "https://hooks.acme.example/sendline?x=1",
        statusCode: 503,
        error: "http_503",
        durationMillis: 9_999,
        responseBody: "Grüße 👋\r\n{\"busy\": true}\t",
        nextAttemptAt: T + 3_600_101
      })
      const toCallback = makeDelivery(event, callback())
      const timedOut = makeDelivery(event, to(subscription), {
        state: "failed",
        attemptedAt: T,
        url: "https://x.example",
        error: "timeout",
        durationMillis: 10_000
      })
      yield* store.insert([full, toCallback, timedOut])
      yield* store.insert([])
      for (const delivery of [full, toCallback, timedOut]) {
        assert.deepStrictEqual(yield* store.findById(accountId, delivery.id), Option.some(delivery))
      }
      assert.isTrue(Option.isNone(yield* store.findById(yield* freshAccount, full.id)), "another account's delivery")
      assert.isTrue(Option.isNone(yield* store.findById(accountId, fresh("dlv"))))

      // a NUL in a receiver's answer (which PostgreSQL's text cannot hold) reads back as U+FFFD in every store
      const nul = { ...failedAt(makeDelivery(event, to(subscription)), T), responseBody: "a\u0000b" }
      yield* store.insert([nul])
      assert.deepStrictEqual(
        yield* store.findById(accountId, nul.id),
        Option.some({ ...nul, responseBody: "a\uFFFDb" })
      )

      const next = makeDelivery(event, to(subscription))
      const failed = yield* Effect.either(store.insert([next, makeDelivery(event, to(subscription), { id: full.id })]))
      assert.strictEqual(failed._tag, "Left", "a duplicate id fails the insert")
      assert.isTrue(
        Option.isNone(yield* store.findById(accountId, next.id)),
        "and the other delivery of it was not written"
      )
    }))

  it.effect("DeliveryStore: claim takes pending deliveries due now, the longest due first, at most limit", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainDeliveryClaims
      const { accountId, event, subscription } = yield* subscribed
      const now = T + 10_000
      const base = fresh("dlv")
      // ids and due times sort in different orders
      const make = (suffix: string, fields: Partial<Delivery>) =>
        makeDelivery(event, to(subscription), { id: `${base}${suffix}`, ...fields })
      const longestDue = make("c", { dueAt: now - 5_000 })
      const dueEarlier = make("a", { dueAt: now - 1 })
      const dueNowB = make("e", { dueAt: now })
      const dueNowA = make("b", { dueAt: now })
      const later = make("d", { dueAt: now + 1 })
      const done = [
        succeededAt(make("f", { dueAt: T }), T),
        failedAt(make("g", { dueAt: T }), T),
        make("h", { dueAt: T, state: "skipped" })
      ]
      yield* store.insert([dueNowB, later, longestDue, ...done, dueNowA, dueEarlier])

      const signed = (delivery: Delivery) => ({ delivery, event, signer: Option.some(subscription) })
      assert.deepStrictEqual(yield* store.claim(now, 2, now + 30_000, 100, unlimited), [
        signed(longestDue),
        signed(dueEarlier)
      ])
      assert.deepStrictEqual(claimedIds(yield* store.claim(now, 10, now + 30_000, 100, unlimited)), [
        dueNowA.id,
        dueNowB.id
      ], "then by id")
      assert.deepStrictEqual(
        yield* store.claim(now, 10, now + 30_000, 100, unlimited),
        [],
        "one due later, a succeeded, failed or skipped one, is not"
      )
      assert.deepStrictEqual(yield* store.claim(now + 1, 10, now + 30_000, 100, unlimited), [signed(later)])
      assert.deepStrictEqual(
        yield* store.findById(accountId, later.id),
        Option.some(later),
        "claiming changes nothing else"
      )
    }))

  it.effect("DeliveryStore: a claimed delivery is not claimed again until its lease ends, then it is", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainDeliveryClaims
      const { event, subscription } = yield* subscribed
      const delivery = makeDelivery(event, to(subscription))
      yield* store.insert([delivery])
      assert.deepStrictEqual(claimedIds(yield* store.claim(T, 10, T + 30_000, 100, unlimited)), [delivery.id])
      assert.deepStrictEqual(yield* store.claim(T, 10, T + 30_000, 100, unlimited), [], "held")
      assert.deepStrictEqual(yield* store.claim(T + 29_999, 10, T + 60_000, 100, unlimited), [], "held to the end")
      // the lease ends at leaseUntil: a claimer that died loses the delivery then
      assert.deepStrictEqual(claimedIds(yield* store.claim(T + 30_000, 10, T + 90_000, 100, unlimited)), [delivery.id])
      assert.deepStrictEqual(yield* store.claim(T + 89_999, 10, T + 120_000, 100, unlimited), [], "held again")
    }))

  it.effect("DeliveryStore: claim writes its lease into the claimed rows only; a claim within the lease takes none and leaves the lease as it was; settle ends it", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const tables = yield* TableReader
      yield* drainDeliveryClaims
      const { event, subscription } = yield* subscribed
      const due = makeDelivery(event, to(subscription))
      const later = makeDelivery(event, callback(), { dueAt: T + 60_000 })
      yield* store.insert([due, later])
      const stored = Effect.forEach(
        [due, later],
        (delivery) =>
          Effect.map(tables.delivery(delivery.id), Option.map(({ claimedUntil, state }) => ({ state, claimedUntil })))
      )
      const unclaimed = { state: "pending", claimedUntil: 0 }
      assert.deepStrictEqual(yield* stored, [Option.some(unclaimed), Option.some(unclaimed)], "inserted unclaimed")

      assert.deepStrictEqual(claimedIds(yield* store.claim(T, 10, T + 30_000, 100, unlimited)), [due.id])
      const leased = [Option.some({ state: "pending", claimedUntil: T + 30_000 }), Option.some(unclaimed)]
      assert.deepStrictEqual(yield* stored, leased)
      assert.deepStrictEqual(yield* store.claim(T + 29_999, 10, T + 60_000, 100, unlimited), [])
      assert.deepStrictEqual(yield* stored, leased, "the first lease stands")

      assert.deepStrictEqual(yield* store.settle([settlement(succeededAt(due, T + 1))]), [true])
      const attempted = { id: due.id, eventId: event.id, state: "succeeded", attempt: 0, dueAt: T, claimedUntil: 0 }
      assert.deepStrictEqual(yield* tables.delivery(due.id), Option.some(attempted), "attempted, its claim ended")
    }))

  it.effect("DeliveryStore: concurrent claimers never get the same delivery", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainDeliveryClaims
      const { event, subscription } = yield* subscribed
      const all = Array.from({ length: 20 }, (_, i) =>
        makeDelivery(event, i % 2 === 0 ? to(subscription) : callback(), { dueAt: T + i }))
      yield* store.insert(all)
      const now = T + 1_000
      const claims = yield* Effect.all(
        Array.from({ length: 8 }, () =>
          store.claim(now, 3, now + 30_000, 100, unlimited)),
        { concurrency: "unbounded" }
      )
      for (const claim of claims) assert.isAtMost(claim.length, 3)
      const concurrent = claims.flatMap(claimedIds)
      assert.strictEqual(new Set(concurrent).size, concurrent.length, "no delivery claimed twice")
      // a claimer may find fewer rows than it asked for while others hold them, never the same ones
      const rest = claimedIds(yield* store.claim(now, 100, now + 30_000, 100, unlimited))
      assert.deepStrictEqual([...concurrent, ...rest].sort(), ids(all).sort(), "every delivery claimed exactly once")
    }))

  it.effect("DeliveryStore: claim holds at most perDestination in flight to a destination, counting other claims, and a backlog of one hides no other's", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainDeliveryClaims
      const { event, subscription } = yield* subscribed
      const now = T + 10_000
      const lease = now + 30_000
      // a backlog to the subscription, longer than a claim ranks, all due before the callback's delivery
      const backlog = Array.from(
        { length: 300 },
        (_, i) => makeDelivery(event, to(subscription), { dueAt: now - 1_000 + i })
      )
      const other = makeDelivery(event, callback(), { dueAt: now })
      yield* store.insert([...backlog, other])

      const first = yield* store.claim(now, 5, lease, 2, unlimited)
      const second = yield* store.claim(now, 5, lease, 2, unlimited)
      assert.deepStrictEqual(claimedIds([...first, ...second]), ids([backlog[0]!, backlog[1]!, other]))
      assert.deepStrictEqual(
        yield* store.claim(now, 5, lease, 2, unlimited),
        [],
        "the subscription holds its share, the callback URL has no more"
      )
      assert.deepStrictEqual(
        claimedIds(yield* store.claim(now, 5, lease, 3, unlimited)),
        [backlog[2]!.id],
        "its claims count: one more to 3"
      )
      // a settled delivery's claim ends: its place is free
      assert.deepStrictEqual(yield* store.settle([settlement(succeededAt(backlog[0]!, now))]), [true])
      assert.deepStrictEqual(claimedIds(yield* store.claim(now, 5, lease, 3, unlimited)), [backlog[3]!.id])
      // once the leases end, nothing is held: the oldest of each destination again, to the cap
      const again = [
        ...yield* store.claim(lease, 5, lease + 30_000, 2, unlimited),
        ...yield* store.claim(lease, 5, lease + 30_000, 2, unlimited)
      ]
      assert.deepStrictEqual(claimedIds(again), ids([backlog[1]!, backlog[2]!, other]))
    }))

  it.effect("DeliveryStore: claim returns each delivery's event and signer: its subscription as stored, a callback's the oldest active one of its account, else none", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const subscriptions = yield* SubscriptionStore
      yield* drainDeliveryClaims
      const accountId = yield* freshAccount
      const disabled = yield* insertSubscription(makeSubscription(accountId, T, { status: "disabled" }))
      const older = yield* insertSubscription(makeSubscription(accountId, T + 1, { secret: "whsec-older-0123456789" }))
      const newer = yield* insertSubscription(makeSubscription(accountId, T + 2))
      const deleted = yield* insertSubscription(makeSubscription(accountId, T + 3))
      yield* subscriptions.delete(deleted.id, T + 4)
      const rotated = Option.getOrThrow(
        yield* subscriptions.update(newer.id, { secret: "whsec-second-0123456789", reactivate: false }, T + 5)
      )
      const { event } = yield* insertMessageEvent(accountId, T + 10)
      // an account whose only subscription is disabled: no signer for its callbacks
      const unsigned = yield* freshAccount
      yield* insertSubscription(makeSubscription(unsigned, T, { status: "disabled" }))
      const { event: unsignedEvent } = yield* insertMessageEvent(unsigned, T + 10)

      const now = T + 10_000
      const toNewer = makeDelivery(event, to(newer), { dueAt: now - 5 })
      const toDisabled = makeDelivery(event, to(disabled), { dueAt: now - 4 })
      const toDeleted = makeDelivery(event, to(deleted), { dueAt: now - 3 })
      const toCallback = makeDelivery(event, callback(), { dueAt: now - 2 })
      const toUnsigned = makeDelivery(unsignedEvent, callback(), { dueAt: now - 1 })
      yield* store.insert([toUnsigned, toCallback, toDeleted, toDisabled, toNewer])

      assert.deepStrictEqual(yield* store.claim(now, 10, now + 30_000, 100, unlimited), [
        { delivery: toNewer, event, signer: Option.some(rotated) },
        { delivery: toDisabled, event, signer: Option.some(disabled) },
        { delivery: toDeleted, event, signer: Option.none() },
        { delivery: toCallback, event, signer: Option.some(older) },
        { delivery: toUnsigned, event: unsignedEvent, signer: Option.none() }
      ])
    }))

  it.effect("DeliveryStore: settle records attempts over pending deliveries only, ends their claims and inserts their retries", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainDeliveryClaims
      const { accountId, event, subscription } = yield* subscribed
      const now = T + 10_000
      const failing = makeDelivery(event, to(subscription), { dueAt: now })
      const succeeding = makeDelivery(event, callback(), { dueAt: now })
      yield* store.insert([failing, succeeding])
      assert.strictEqual((yield* store.claim(now, 10, now + 60_000, 100, unlimited)).length, 2)

      const failed = failedAt(failing, now, now + 30_000)
      const retry = makeDelivery(event, to(subscription), {
        attempt: 1,
        dueAt: now + 30_000,
        createdAt: now + 1,
        failingSince: now
      })
      const succeeded = succeededAt(succeeding, now)
      assert.deepStrictEqual(yield* store.settle([settlement(failed, { retry }), settlement(succeeded)]), [true, true])
      for (const delivery of [failed, retry, succeeded]) {
        assert.deepStrictEqual(yield* store.findById(accountId, delivery.id), Option.some(delivery))
      }
      assert.deepStrictEqual(yield* store.settle([]), [])

      // the claim ended with the settlement: the retry is due at its time, the attempted ones never again
      assert.deepStrictEqual(yield* store.claim(now + 29_999, 10, FAR, 100, unlimited), [])
      assert.deepStrictEqual(claimedIds(yield* store.claim(now + 30_000, 10, FAR, 100, unlimited)), [retry.id])

      // a settlement of a delivery no longer pending (another claimer's, after a lease ended) is not written, nor its retry
      const late = makeDelivery(event, callback(), { attempt: 1, dueAt: now + 60_000 })
      const written = yield* store.settle([
        settlement(failedAt(succeeding, now + 5, now + 60_000), { retry: late }),
        settlement(succeededAt(retry, now + 30_001))
      ])
      assert.deepStrictEqual(written, [false, true])
      assert.deepStrictEqual(yield* store.findById(accountId, succeeding.id), Option.some(succeeded))
      assert.isTrue(Option.isNone(yield* store.findById(accountId, late.id)))
    }))

  it.effect("DeliveryStore: a disable sets the subscription disabled once, skips its other pending deliveries and writes one mail, even when two settlements disable it", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const subscriptions = yield* SubscriptionStore
      const mails = yield* MailStore
      const { accountId, event, subscription } = yield* subscribed
      const sibling = yield* insertSubscription(makeSubscription(accountId, T + 1))
      const lastRetry = makeDelivery(event, to(subscription), { attempt: 6, failingSince: T })
      const anotherLast = makeDelivery(event, to(subscription), { attempt: 6, failingSince: T })
      const waiting = makeDelivery(event, to(subscription), { dueAt: T + 60_000 })
      const ofSibling = makeDelivery(event, to(sibling))
      const toCallback = makeDelivery(event, callback())
      yield* store.insert([lastRetry, anotherLast, waiting, ofSibling, toCallback])

      const [mail, secondMail] = [makeMail(fresh("mail")), makeMail(fresh("mail"))]
      const recorded = yield* store.settle([
        settlement(failedAt(lastRetry, T + 100), { disable: mail }),
        settlement(failedAt(anotherLast, T + 100), { disable: secondMail })
      ])
      assert.deepStrictEqual(recorded, [true, true])
      assert.deepStrictEqual(
        yield* subscriptions.findById(subscription.id),
        Option.some({ ...subscription, status: "disabled" as const })
      )
      assert.deepStrictEqual(
        yield* store.findById(accountId, waiting.id),
        Option.some({ ...waiting, state: "skipped" as const })
      )
      for (const untouched of [ofSibling, toCallback]) {
        assert.deepStrictEqual(yield* store.findById(accountId, untouched.id), Option.some(untouched))
      }
      assert.deepStrictEqual(yield* mails.findById(mail.id), Option.some(mail))
      assert.isTrue(Option.isNone(yield* mails.findById(secondMail.id)), "one mail per disable")

      // a later disable of a subscription no longer active records its attempt, and nothing more
      const lateRetry = makeDelivery(event, to(subscription), { attempt: 6, failingSince: T })
      yield* store.insert([lateRetry])
      const lateMail = makeMail(fresh("mail"))
      assert.deepStrictEqual(yield* store.settle([settlement(failedAt(lateRetry, T + 200), { disable: lateMail })]), [
        true
      ])
      assert.isTrue(Option.isNone(yield* mails.findById(lateMail.id)))
      // nor of a deleted one
      const gone = yield* insertSubscription(makeSubscription(accountId, T + 2))
      const goneRetry = makeDelivery(event, to(gone), { attempt: 6, failingSince: T })
      yield* store.insert([goneRetry])
      yield* subscriptions.delete(gone.id, T + 300)
      const goneMail = makeMail(fresh("mail"))
      assert.deepStrictEqual(yield* store.settle([settlement(failedAt(goneRetry, T + 301), { disable: goneMail })]), [
        false
      ], "skipped by the delete")
      assert.isTrue(Option.isNone(yield* mails.findById(goneMail.id)))
    }))

  it.effect("DeliveryStore: deleting a subscription skips its pending deliveries, and only them", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const subscriptions = yield* SubscriptionStore
      yield* drainDeliveryClaims
      const { accountId, event, subscription } = yield* subscribed
      const sibling = yield* insertSubscription(makeSubscription(accountId, T + 1))
      const claimed = makeDelivery(event, to(subscription))
      const waiting = makeDelivery(event, to(subscription), { dueAt: T + 60_000 })
      const failed = failedAt(makeDelivery(event, to(subscription)), T)
      const ofSibling = makeDelivery(event, to(sibling))
      yield* store.insert([claimed, waiting, failed, ofSibling])
      assert.deepStrictEqual(claimedIds(yield* store.claim(T, 1, FAR, 100, unlimited)), [claimed.id])

      assert.isTrue(yield* subscriptions.delete(subscription.id, T + 5))
      for (const pending of [claimed, waiting]) {
        assert.deepStrictEqual(
          yield* store.findById(accountId, pending.id),
          Option.some({ ...pending, state: "skipped" as const })
        )
      }
      for (const untouched of [failed, ofSibling]) {
        assert.deepStrictEqual(yield* store.findById(accountId, untouched.id), Option.some(untouched))
      }
      assert.deepStrictEqual(
        claimedIds(yield* store.claim(T + 60_000, 10, FAR, 100, unlimited)),
        [ofSibling.id],
        "a skipped delivery is never claimed"
      )
    }))

  it.effect("DeliveryStore: the delivery log is the subscription's, newest first, by event type and state, resuming after a keyset", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const { accountId, event: queued, subscription } = yield* subscribed
      const { event: failedEvent } = yield* insertMessageEvent(accountId, T, { status: "failed" })
      const other = yield* insertSubscription(makeSubscription(accountId, T))
      const all = [
        makeDelivery(queued, to(subscription), { createdAt: T + 1 }),
        failedAt(makeDelivery(queued, to(subscription), { createdAt: T + 2 }), T + 2),
        succeededAt(makeDelivery(failedEvent, to(subscription), { createdAt: T + 2 }), T + 2),
        makeDelivery(failedEvent, to(subscription), { createdAt: T + 2 }),
        makeDelivery(queued, to(subscription), { createdAt: T + 3, state: "skipped" })
      ]
      yield* store.insert([
        ...all,
        makeDelivery(queued, to(other), { createdAt: T + 2 }),
        makeDelivery(queued, callback())
      ])
      const expected = newestFirst(all)
      const list = (
        filter: Parameters<typeof store.list>[1],
        after: Option.Option<Keyset> = Option.none(),
        limit = 50
      ) => store.list(subscription.id, filter, after, limit)

      assert.deepStrictEqual(yield* list({}), expected)
      assert.deepStrictEqual(
        yield* list({ eventType: "message.failed" }),
        expected.filter((d) => d.eventType === "message.failed")
      )
      assert.deepStrictEqual(yield* list({ state: "pending" }), expected.filter((d) => d.state === "pending"))
      assert.deepStrictEqual(
        yield* list({ eventType: "message.queued", state: "failed" }),
        expected.filter((d) => d.eventType === "message.queued" && d.state === "failed")
      )
      assert.deepStrictEqual(yield* store.list(fresh("wh"), {}, Option.none(), 50), [])

      const pages = yield* allPages((after, limit) => list({}, after, limit), 2, createdAtKeyset)
      assert.deepStrictEqual(pages.map((page) => page.length), [2, 2, 1])
      assert.deepStrictEqual(pages.flat(), expected, "the pages, one after the other, are the log")
    }))

  it.effect("DeliveryStore: redeliverable lists the events failed or skipped since, once each, oldest first, unless pending or succeeded, until resent", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const { accountId, subscription } = yield* subscribed
      const other = yield* insertSubscription(makeSubscription(accountId, T))
      const events: Array<Event> = []
      for (let i = 1; i <= 8; i++) events.push((yield* insertMessageEvent(accountId, T + i)).event)
      const [failed, skipped, failedBefore, succeededLater, retrying, otherFailed, failedTwice, skippedSince] =
        events as [
          Event,
          Event,
          Event,
          Event,
          Event,
          Event,
          Event,
          Event
        ]
      const since = T + 1_000
      const failedOf = (event: Event, at: number, subscriptionOf = subscription) =>
        failedAt(makeDelivery(event, to(subscriptionOf), { createdAt: at }), at)
      yield* store.insert([
        failedOf(failed, since + 1),
        makeDelivery(skipped, to(subscription), { createdAt: since + 2, state: "skipped" }),
        failedOf(failedBefore, since - 1),
        failedOf(succeededLater, since + 1),
        succeededAt(makeDelivery(succeededLater, to(subscription), { createdAt: since + 3 }), since + 3),
        failedOf(retrying, since + 1),
        makeDelivery(retrying, to(subscription), { createdAt: since + 2, dueAt: since + 30_000 }),
        failedOf(otherFailed, since + 1, other),
        failedOf(failedTwice, since + 1),
        failedOf(failedTwice, since + 5),
        failedOf(skippedSince, since - 1),
        makeDelivery(skippedSince, to(subscription), { createdAt: since, state: "skipped" }),
        makeDelivery(failed, callback(), { createdAt: since + 1, state: "succeeded" })
      ])

      assert.deepStrictEqual(yield* store.redeliverable(subscription.id, since, 10), [
        failed,
        skipped,
        failedTwice,
        skippedSince
      ])
      assert.deepStrictEqual(yield* store.redeliverable(subscription.id, since, 2), [failed, skipped])
      assert.deepStrictEqual(yield* store.redeliverable(other.id, since, 10), [otherFailed])
      assert.deepStrictEqual(yield* store.redeliverable(subscription.id, since + 6, 10), [])
      // once resent (a pending delivery inserted), an event is not listed again
      yield* store.insert([makeDelivery(failed, to(subscription), { createdAt: since + 10 })])
      assert.deepStrictEqual(yield* store.redeliverable(subscription.id, since, 10), [
        skipped,
        failedTwice,
        skippedSince
      ])
    }))

  it.effect("DeliveryStore: claim holds at most perAccount in flight for an account, counting other claims: another account's deliveries are still claimed", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      yield* drainDeliveryClaims
      const now = T + 10_000
      const lease = now + 30_000
      // an account whose three receivers never answer: a backlog to each, all due before the other account's
      const stuck = yield* subscribed
      const receivers = [
        stuck.subscription,
        yield* insertSubscription(makeSubscription(stuck.accountId, T)),
        yield* insertSubscription(makeSubscription(stuck.accountId, T))
      ]
      const backlog = receivers.flatMap((subscription, r) =>
        Array.from(
          { length: 4 },
          (_, i) => makeDelivery(stuck.event, to(subscription), { dueAt: now - 1_000 + i * 3 + r })
        )
      )
      const other = yield* subscribed
      const others = [0, 1].map((i) => makeDelivery(other.event, to(other.subscription), { dueAt: now - 10 + i }))
      yield* store.insert([...backlog, ...others])

      const first = yield* store.claim(now, 4, lease, 10, 3)
      assert.sameMembers(
        claimedIds(first),
        ids([backlog[0]!, backlog[4]!, backlog[8]!, others[0]!]),
        "the stuck account's three oldest, and the other's"
      )
      // the stuck account holds its share in flight (its claims count, whoever made them): the other's next is claimed
      assert.deepStrictEqual(claimedIds(yield* store.claim(now, 10, lease, 10, 3)), [others[1]!.id])
      assert.deepStrictEqual(yield* store.claim(now, 10, lease, 10, 3), [], "nothing more while the share is held")
      assert.deepStrictEqual(claimedIds(yield* store.claim(now, 10, lease, 10, 4)), [backlog[1]!.id], "one more to 4")
      // a settled delivery's claim ends: its place is free
      assert.deepStrictEqual(yield* store.settle([settlement(succeededAt(backlog[0]!, now))]), [true])
      assert.deepStrictEqual(claimedIds(yield* store.claim(now, 10, lease, 10, 4)), [backlog[5]!.id])
    }))

  it.effect("DeliveryStore: redeliver inserts a delivery only where none of its event to its destination is pending, at once too, and answers the one under way", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const { accountId, event, subscription } = yield* subscribed
      const other = yield* insertSubscription(makeSubscription(accountId, T))
      const url = callback()
      const { event: later } = yield* insertMessageEvent(accountId, T + 1)
      const underWay = makeDelivery(event, to(subscription), { attempt: 2, dueAt: T + 120_000 })
      const done = succeededAt(makeDelivery(event, to(other)), T)
      yield* store.insert([underWay, done])

      const again = [
        makeDelivery(event, to(subscription), { createdAt: T + 5 }),
        makeDelivery(event, to(other), { createdAt: T + 5 })
      ]
      assert.deepStrictEqual(
        yield* store.redeliver(again),
        [underWay, again[1]!],
        "the subscription's chain goes on; the other gets a new one"
      )
      for (const delivery of again) {
        assert.deepStrictEqual(
          yield* store.findById(accountId, delivery.id),
          delivery === again[0] ? Option.none() : Option.some(delivery)
        )
      }
      // five redeliveries at once of an event with nothing pending to a callback URL: one chain
      const concurrent = Array.from(
        { length: 5 },
        () => [makeDelivery(later, url), makeDelivery(later, to(subscription))]
      )
      const answers = yield* Effect.all(concurrent.map((deliveries) => store.redeliver(deliveries)), {
        concurrency: "unbounded"
      })
      const inserted = concurrent.flat().filter((d) => answers.flat().some((a) => a.id === d.id))
      assert.strictEqual(inserted.length, 2, "one delivery to each destination")
      for (const answer of answers) {
        assert.sameMembers(ids(answer), ids(inserted), "every call answers the ones under way")
      }
      assert.deepStrictEqual(yield* store.redeliver([]), [])
    }))

  it.effect("DeliveryStore: admitRedelivery records at most max requests of an account since a time, at once too; a refusal names the oldest one counted", () =>
    Effect.gen(function*() {
      const store = yield* DeliveryStore
      const accountId = yield* freshAccount
      const minute = 60_000
      const admit = (at: number, max = 3) => store.admitRedelivery(accountId, at, at - minute, max)
      const burst = yield* Effect.all(Array.from({ length: 5 }, () => admit(T)), { concurrency: "unbounded" })
      assert.strictEqual(burst.filter(Option.isNone).length, 3, "three of five admitted at once")
      assert.deepStrictEqual(burst.filter(Option.isSome), [Option.some(T), Option.some(T)])
      assert.deepStrictEqual(yield* admit(T + minute - 1), Option.some(T), "still three within the minute")
      assert.isTrue(
        Option.isNone(yield* store.admitRedelivery(yield* freshAccount, T, T - minute, 3)),
        "another account's are not counted"
      )
      assert.isTrue(Option.isNone(yield* admit(T + minute)), "a minute on, the first three no longer count")
      assert.deepStrictEqual(yield* admit(T + minute + 5, 1), Option.some(T + minute), "and the one admitted then does")
    }))
}
