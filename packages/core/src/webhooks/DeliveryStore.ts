/**
 * Storage port for webhook deliveries (CONTRACT §7): the fan-out of the event log into deliveries,
 * the deliverer's claims and settlements, the delivery log and redelivery.
 *
 * Every event the service writes is in the event log (the outbox, written in the transaction of its
 * change), not yet fanned out. The `WebhookDeliverer` reads those (`pendingEvents`), decides their
 * deliveries, and writes them with `fanOut`, which marks each event fanned out in the same
 * transaction, only if no one else did first: an event is fanned out exactly once, whatever crashes
 * or how many processes run. Then it claims due deliveries (`claim`, leased), attempts them and
 * records each attempt with what follows from it (`settle`): a retry, or the subscription disabled
 * with one mail to its account's admin. An attempt whose settlement was never written (a crash in
 * flight) is claimed again when its lease ends: at least once.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Event, EventType } from "../Event.js"
import type { Mail } from "../mail/Mail.js"
import type { Keyset } from "../Pagination.js"
import type { Delivery, DeliveryState } from "./Delivery.js"
import type { Routed } from "./Routing.js"
import type { Subscription } from "./Subscription.js"

/** The deliveries decided for one pending event (none is a decision too). @since 0.1.0 @category models */
export interface FanOut {
  readonly eventId: string
  readonly deliveries: ReadonlyArray<Delivery>
}

/**
 * A claimed delivery, with its event and its signer: for a subscription's delivery, the
 * subscription as stored now (its URL, secrets and status; none if it was deleted since); for
 * a callback's, the account's oldest active subscription, whose secrets sign it (none if there is
 * none).
 *
 * @since 0.1.0
 * @category models
 */
export interface Claimed {
  readonly delivery: Delivery
  readonly event: Event
  readonly signer: Option.Option<Subscription>
}

/**
 * One attempt's record: the delivery as attempted (`succeeded`, `failed` or `skipped`), the retry it
 * schedules, and, when it was retry 6 of a subscription's delivery and failed, the mail that tells
 * the account's admin the subscription is disabled.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settlement {
  readonly attempted: Delivery
  readonly retry: Option.Option<Delivery>
  readonly disable: Option.Option<Mail>
}

/** The filters of the delivery log. @since 0.1.0 @category models */
export interface DeliveryFilter {
  readonly eventType?: EventType | undefined
  readonly state?: DeliveryState | undefined
}

/** Webhook deliveries. @since 0.1.0 @category ports */
export class DeliveryStore extends Context.Tag("@sendline/core/DeliveryStore")<DeliveryStore, {
  /** Up to `limit` events not yet fanned out, oldest first (createdAt, then id), each with its message's callback URL. */
  readonly pendingEvents: (limit: number) => Effect.Effect<ReadonlyArray<Routed>, StoreUnavailable>
  /**
   * In one transaction, for each event still not fanned out: marks it fanned out at `at` and
   * inserts its deliveries. For each, whether it did (false: someone else fanned it out first).
   */
  readonly fanOut: (
    fanOuts: ReadonlyArray<FanOut>,
    at: number
  ) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
  /** Inserts deliveries as they are given, all or none (a redelivery goes through `redeliver`). */
  readonly insert: (deliveries: ReadonlyArray<Delivery>) => Effect.Effect<void, StoreUnavailable>
  /**
   * Inserts, all or none, each of `deliveries` (a redelivery's first attempts) unless a delivery of
   * its event to its destination is pending already: then that one stands for it, so that one
   * chain of an event to a destination is under way at a time, however many redeliveries run at
   * once in however many processes. Each as it stands: the one inserted, or the one under way.
   */
  readonly redeliver: (deliveries: ReadonlyArray<Delivery>) => Effect.Effect<ReadonlyArray<Delivery>, StoreUnavailable>
  /**
   * Records a redelivery request of `accountId` at `at`, unless `max` of its requests were recorded
   * after `since`: then none is, and the answer is the time of the oldest of those (once it is no
   * longer counted, one more fits). Requests of one account are counted one after the other, in
   * every process, so that `max` holds however many run at once.
   */
  readonly admitRedelivery: (
    accountId: string,
    at: number,
    since: number,
    max: number
  ) => Effect.Effect<Option.Option<number>, StoreUnavailable>
  /**
   * Claims up to `limit` pending deliveries due at `now` that no live claim holds, the longest due
   * first, holding them until `leaseUntil`, and never more than `perDestination` at once to one
   * destination (a subscription, a callback URL) nor `perAccount` at once of one account, counting
   * those other claims still hold: a receiver that never answers holds only its own share, and an
   * account whose receivers never answer only its own. Two claimers, in one process or several,
   * never get the same delivery while its lease lasts.
   */
  readonly claim: (
    now: number,
    limit: number,
    leaseUntil: number,
    perDestination: number,
    perAccount: number
  ) => Effect.Effect<ReadonlyArray<Claimed>, StoreUnavailable>
  /**
   * Records attempts, in one transaction: each delivery's result over the stored one while it is
   * still pending (its claim ends), and only then its retry; a `disable` sets its subscription
   * `disabled`, only if it was active (then, and only then, its mail is written and the
   * subscription's other pending deliveries become `skipped`). For each, whether it was recorded.
   */
  readonly settle: (settlements: ReadonlyArray<Settlement>) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
  /** The delivery `id` of `accountId`, if any. */
  readonly findById: (accountId: string, id: string) => Effect.Effect<Option.Option<Delivery>, StoreUnavailable>
  /** A subscription's deliveries, newest first (createdAt desc, id desc), after `after`, by `filter`. */
  readonly list: (
    subscriptionId: string,
    filter: DeliveryFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Delivery>, StoreUnavailable>
  /**
   * Up to `limit` events whose delivery to the subscription failed for good or was skipped, made at
   * or after `since`, with no delivery of theirs to it pending or succeeded: what a redelivery
   * `since` resends. Once resent (a pending delivery inserted), an event is not listed again.
   */
  readonly redeliverable: (
    subscriptionId: string,
    since: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Event>, StoreUnavailable>
}>() {}
