/**
 * Webhook deliveries (CONTRACT §7): one row per attempt at delivering one event to one destination,
 * a subscription or a message's `callback_url`, as GitHub's delivery log keeps them. An event's
 * first attempt is attempt 0; each failed attempt before retry 6 schedules the next one on
 * `RetrySchedule`, a new row; a manual redelivery starts a new chain at attempt 0.
 *
 * @since 0.1.0
 */
import { DeliveryState } from "@sendline/api/webhooks/DeliveriesJson"
import { Effect, Option, Schema } from "effect"
import { type Event, EventType } from "../Event.js"
import { IdGenerator } from "../Ids.js"
import * as RetrySchedule from "./RetrySchedule.js"
import type { FailureReason, TransportFailure, WebhookResponse } from "./WebhookTransport.js"

/**
 * Where a delivery stands: `pending` until attempted (due at `dueAt`); `succeeded` (a 2xx answer)
 * or `failed` once attempted; `skipped` when it was not attempted because its subscription was
 * disabled (or deleted) when the event occurred or before its turn came. Failed and skipped
 * deliveries can be redelivered.
 *
 * @since 0.1.0
 * @category models
 */
export { DeliveryState } from "@sendline/api/webhooks/DeliveriesJson"

/**
 * Why an attempt failed, as the delivery log names it: a `WebhookTransport` failure class,
 * `http_<status>` for an answer outside 2xx, or `no_signing_secret` for a callback delivery whose
 * account had no active subscription to sign it with.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorClass = FailureReason | `http_${number}` | "no_signing_secret"

/**
 * A delivery `dlv_…`: one attempt (`attempt` 0 first, then the retries 1–6) at delivering the event
 * `eventId` of `accountId` to its subscription `subscriptionId`, or to `callbackUrl` (one of the two).
 * Once attempted: when (`attemptedAt`), to which `url`, the answer's status or the error class, its
 * duration and the first 4 KiB of its body; and, when it failed before retry 6, when the next is due
 * (`nextAttemptAt`). `failingSince` is when the first failed attempt of its chain was made.
 *
 * @since 0.1.0
 * @category models
 */
export const Delivery = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  eventId: Schema.String,
  eventType: EventType,
  subscriptionId: Schema.optional(Schema.String),
  callbackUrl: Schema.optional(Schema.String),
  attempt: Schema.Number,
  state: DeliveryState,
  dueAt: Schema.Number,
  createdAt: Schema.Number,
  failingSince: Schema.optional(Schema.Number),
  attemptedAt: Schema.optional(Schema.Number),
  url: Schema.optional(Schema.String),
  statusCode: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  durationMillis: Schema.optional(Schema.Number),
  responseBody: Schema.optional(Schema.String),
  nextAttemptAt: Schema.optional(Schema.Number)
})
/** A delivery `dlv_…`. @since 0.1.0 @category models */
export type Delivery = typeof Delivery.Type

/** Where a delivery goes: a subscription, or a message's callback URL. @since 0.1.0 @category models */
export type Destination =
  | { readonly _tag: "Subscription"; readonly subscriptionId: string }
  | { readonly _tag: "Callback"; readonly url: string }

/**
 * The first attempt of `event` to `destination`, made at `at`: `pending`, due at once, or `skipped`
 * (a disabled subscription's).
 *
 * @since 0.1.0
 * @category constructors
 */
export const first = (
  event: Event,
  destination: Destination,
  state: "pending" | "skipped",
  at: number
): Effect.Effect<Delivery, never, IdGenerator> =>
  Effect.map(Effect.flatMap(IdGenerator, (ids) => ids.make("dlv")), (id) => ({
    id,
    accountId: event.accountId,
    eventId: event.id,
    eventType: event.type,
    ...(destination._tag === "Subscription"
      ? { subscriptionId: destination.subscriptionId }
      : { callbackUrl: destination.url }),
    attempt: 0,
    state,
    dueAt: at,
    createdAt: at
  }))

/** What came of one attempt: the receiver's answer (any status), or why there was none. @since 0.1.0 @category models */
export type Outcome =
  | { readonly _tag: "Answered"; readonly response: WebhookResponse }
  | { readonly _tag: "Failed"; readonly failure: TransportFailure }
  | { readonly _tag: "Unsigned" }

/** Whether an answer counts as delivered: a 2xx, only (CONTRACT §7). @since 0.1.0 @category predicates */
export const isSuccess = (status: number): boolean => status >= 200 && status <= 299

/**
 * `delivery` attempted at `at` to `url`, with its `outcome`, settled at `settledAt`: succeeded on a
 * 2xx, else failed with its error class, and when it failed before retry 6, `nextAttemptAt` set
 * `RetrySchedule`'s delay after `settledAt`.
 *
 * @since 0.1.0
 * @category transitions
 */
export const attempted = (
  delivery: Delivery,
  url: string,
  at: number,
  outcome: Outcome,
  settledAt: number
): Delivery => {
  const base = { ...delivery, attemptedAt: at, url }
  switch (outcome._tag) {
    case "Answered": {
      const { body, durationMillis, status } = outcome.response
      const answered = { ...base, statusCode: status, durationMillis, responseBody: body }
      return isSuccess(status) ? { ...answered, state: "succeeded" } : failed(answered, `http_${status}`, settledAt)
    }
    case "Failed": {
      const { durationMillis, reason, status } = outcome.failure
      return failed(
        { ...base, durationMillis, ...(status === undefined ? {} : { statusCode: status }) },
        reason,
        settledAt
      )
    }
    case "Unsigned":
      return failed({ ...base, durationMillis: 0 }, "no_signing_secret", settledAt)
  }
}

const failed = (delivery: Delivery, error: ErrorClass, settledAt: number): Delivery => {
  const next = RetrySchedule.nextAttemptAt(delivery.attempt, settledAt)
  return {
    ...delivery,
    state: "failed",
    error,
    failingSince: delivery.failingSince ?? delivery.attemptedAt ?? settledAt,
    ...(Option.isSome(next) ? { nextAttemptAt: next.value } : {})
  }
}

/** `delivery`, pending, not attempted: skipped at its turn (its subscription is no longer active). @since 0.1.0 @category transitions */
export const skipped = (delivery: Delivery): Delivery => ({ ...delivery, state: "skipped" })

/**
 * The retry a failed `delivery` schedules, if any, made at `at`: the next attempt, pending, due at
 * its `nextAttemptAt`, to the same destination, remembering since when its chain fails.
 *
 * @since 0.1.0
 * @category constructors
 */
export const retryOf = (delivery: Delivery, at: number): Effect.Effect<Option.Option<Delivery>, never, IdGenerator> =>
  delivery.state !== "failed" || delivery.nextAttemptAt === undefined
    ? Effect.succeed(Option.none())
    : Effect.map(Effect.flatMap(IdGenerator, (ids) => ids.make("dlv")), (id) =>
      Option.some({
        id,
        accountId: delivery.accountId,
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        ...(delivery.subscriptionId === undefined ? {} : { subscriptionId: delivery.subscriptionId }),
        ...(delivery.callbackUrl === undefined ? {} : { callbackUrl: delivery.callbackUrl }),
        attempt: delivery.attempt + 1,
        state: "pending" as const,
        dueAt: delivery.nextAttemptAt!,
        createdAt: at,
        ...(delivery.failingSince === undefined ? {} : { failingSince: delivery.failingSince })
      }))

/**
 * Whether `delivery`, attempted, ends its subscription: retry 6 of a subscription's delivery failed
 * (a callback's chain just ends).
 *
 * @since 0.1.0
 * @category predicates
 */
export const disablesSubscription = (delivery: Delivery): boolean =>
  delivery.state === "failed" && delivery.subscriptionId !== undefined && delivery.attempt >= RetrySchedule.maxRetries

/** The error class or status that ended `delivery`, for a person: "HTTP 500", "timeout". @since 0.1.0 @category formatting */
export const describeResult = (delivery: Delivery): string =>
  delivery.error === undefined
    ? delivery.statusCode === undefined ? "no answer" : `HTTP ${delivery.statusCode}`
    : delivery.error.startsWith("http_")
    ? `HTTP ${delivery.error.slice("http_".length)}`
    : delivery.error
