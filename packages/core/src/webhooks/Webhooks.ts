/**
 * The webhook subscriptions use case (CONTRACT §7): subscribing a URL to event types, reading,
 * listing, changing and deleting an account's subscriptions, all with `webhooks:manage`. The URL
 * obeys the policy `callback_url` obeys (`UrlPolicy.Policy`: https and public hosts unless the
 * server allows more); `layerCallbacks` checks a message's `callback_url` for messaging. Another account's subscription is not found, as an unknown one is.
 *
 * @since 0.1.0
 */
import {
  Conflict,
  invalidParameter,
  type InvalidRequest,
  NotFound,
  type PermissionDenied,
  type RateLimited,
  rule,
  RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { maxRedeliveredPerCall } from "@sendline/api/webhooks/WebhooksJson"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { requirePermission } from "../accounts/Auth.js"
import { EventType } from "../Event.js"
import { IdGenerator } from "../Ids.js"
import { codePoints, loneSurrogate, notWellFormed } from "../internal/text.js"
import * as UseCase from "../internal/useCase.js"
import * as Limits from "../Limits.js"
import { Callbacks } from "../messaging/Callbacks.js"
import * as Pagination from "../Pagination.js"
import * as UrlPolicy from "../UrlPolicy.js"
import * as Delivery from "./Delivery.js"
import { type DeliveryFilter, DeliveryStore } from "./DeliveryStore.js"
import * as Redelivery from "./Redelivery.js"
import { secretLength, type Subscription, type SubscriptionStatus } from "./Subscription.js"
import { SubscriptionStore } from "./SubscriptionStore.js"

/** A new subscription, as `POST /v1/webhooks` takes it: every field required. @since 0.1.0 @category models */
export interface CreateSubscription {
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly secret: string
}

/**
 * A change to a subscription: any of `url`, `events` and `secret`, checked as at creation, and
 * `status: "active"` to enable a disabled one again (`disabled` is the deliveries' to set: 409).
 *
 * @since 0.1.0
 * @category models
 */
export interface UpdateSubscription {
  readonly url?: string | undefined
  readonly events?: ReadonlyArray<string> | undefined
  readonly secret?: string | undefined
  readonly status?: SubscriptionStatus | undefined
}

/** What a redelivery `since` did: how many events it resent, and whether more remain (call again). @since 0.1.0 @category models */
export interface Redelivered {
  readonly redelivered: number
  readonly hasMore: boolean
}

export {
  /** The most events one redelivery `since` resends; a second call resends the rest. @since 0.1.0 @category constants */
  maxRedeliveredPerCall
} from "@sendline/api/webhooks/WebhooksJson"

/** Events resent per store round trip of a redelivery. */
const redeliveryBatch = 256

/** The webhook subscriptions use case. @since 0.1.0 @category services */
export class Webhooks extends Context.Tag("@sendline/core/Webhooks")<Webhooks, {
  /**
   * Checks (url, then events, then secret) and creates an active subscription of the caller's
   * account, unless it has `Limits.webhookSubscriptions` live ones already (422
   * `webhook_subscription_limit_reached`).
   */
  readonly create: (
    principal: Principal,
    input: CreateSubscription
  ) => Effect.Effect<Subscription, RuleViolation | InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The caller's subscriptions, newest first. */
  readonly list: (
    principal: Principal,
    paging: Pagination.Paging
  ) => Effect.Effect<Pagination.Page<Subscription>, InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The caller's subscription `id`; another account's, a deleted or an unknown one is not found. */
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Subscription, NotFound | PermissionDenied | StoreUnavailable>
  /**
   * Changes the caller's subscription: what is given, checked as at creation; a new secret keeps
   * the replaced one signing beside it for 24 hours (`Signature`); `status: "active"` enables it again.
   */
  readonly update: (
    principal: Principal,
    id: string,
    input: UpdateSubscription
  ) => Effect.Effect<
    Subscription,
    RuleViolation | InvalidRequest | NotFound | Conflict | PermissionDenied | StoreUnavailable
  >
  /** Deletes the caller's subscription: no delivery is made to it afterwards, and it is not found again. */
  readonly delete: (
    principal: Principal,
    id: string
  ) => Effect.Effect<void, NotFound | PermissionDenied | StoreUnavailable>
  /** The delivery log of the caller's subscription: each attempt, newest first, by event type and state. */
  readonly deliveries: (
    principal: Principal,
    id: string,
    filter: DeliveryFilter,
    paging: Pagination.Paging
  ) => Effect.Effect<
    Pagination.Page<Delivery.Delivery>,
    InvalidRequest | NotFound | PermissionDenied | StoreUnavailable
  >
  /**
   * Resends to the caller's active subscription every event whose delivery to it failed for good or
   * was skipped at or after `since` (at most `maxRedeliveredPerCall`): each a new chain from
   * attempt 0, unless one of it is under way already. A disabled subscription must be set active
   * first (409). Counts against `Limits.redeliveriesPerMinute` (429 past it).
   */
  readonly redeliver: (
    principal: Principal,
    id: string,
    since: number
  ) => Effect.Effect<Redelivered, NotFound | Conflict | PermissionDenied | RateLimited | StoreUnavailable>
}>() {}

const notFound = (id: string) => new NotFound({ message: `No webhook subscription ${id}.` })

const isEventType = (type: string): type is EventType => (EventType.literals as ReadonlyArray<string>).includes(type)

/** `events` without repeats, in the order given, when non-empty and every one a known type. */
const checkEvents = (
  events: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<EventType>, RuleViolation | InvalidRequest> => {
  if (events.length === 0) return Effect.fail(invalidParameter("events", "events must name at least one event type."))
  const unknown = events.filter((type) => !isEventType(type))
  return unknown.length > 0
    ? Effect.fail(rule(
      "unknown_event_type",
      "events",
      `${unknown.map((type) => JSON.stringify(type)).join(", ")} ${
        unknown.length === 1 ? "is not an event type" : "are not event types"
      }; the types are ${EventType.literals.join(", ")}.`
    ))
    : Effect.succeed([...new Set(events as ReadonlyArray<EventType>)])
}

/** `secret` when 16–256 characters (code points) of well-formed Unicode, as its UTF-8 bytes key the HMAC. */
const checkSecret = (secret: string): Effect.Effect<string, InvalidRequest> => {
  if (loneSurrogate.test(secret)) return Effect.fail(notWellFormed("secret"))
  const length = codePoints(secret)
  return length < secretLength.min || length > secretLength.max
    ? Effect.fail(invalidParameter("secret", `secret must be ${secretLength.min} to ${secretLength.max} characters.`))
    : Effect.succeed(secret)
}

/** Builds the webhook subscriptions use case on the subscription store and the URL policy. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const subscriptions = yield* SubscriptionStore
  const store = yield* DeliveryStore
  const policy = yield* UrlPolicy.Policy
  const ids = yield* IdGenerator
  const limits = yield* Limits.Limits
  const admit = yield* Redelivery.admission

  /** `url` when it is one the policy allows, else `webhook_url_not_allowed`. */
  const checkUrl = (url: string): Effect.Effect<string, RuleViolation | InvalidRequest> =>
    url.length > UrlPolicy.maxLength
      ? Effect.fail(invalidParameter("url", `url must be at most ${UrlPolicy.maxLength} characters.`))
      : UrlPolicy.allows(url, policy)
      ? Effect.succeed(url)
      : Effect.fail(rule(
        "webhook_url_not_allowed",
        "url",
        `url must be an ${policy.allowHttp ? "http(s)" : "https"} URL${
          policy.allowPrivate ? "" : " on a public host"
        }, without credentials.`
      ))

  /** The caller's subscription `id`, or not found. */
  const findOwn = (principal: Principal, id: string) =>
    Effect.flatMap(
      subscriptions.findById(id),
      (found) =>
        Option.isSome(found) && found.value.accountId === principal.accountId
          ? Effect.succeed(found.value)
          : Effect.fail(notFound(id))
    )

  const create = fn("Webhooks.create")(function*(principal: Principal, input: CreateSubscription) {
    yield* requirePermission(principal, "webhooks:manage")
    const subscription: Subscription = {
      url: yield* checkUrl(input.url),
      events: yield* checkEvents(input.events),
      secret: yield* checkSecret(input.secret),
      id: yield* ids.make("wh"),
      accountId: principal.accountId,
      status: "active",
      createdAt: yield* Clock.currentTimeMillis
    }
    if (!(yield* subscriptions.insert(subscription, limits.webhookSubscriptions))) {
      return yield* new RuleViolation({
        code: "webhook_subscription_limit_reached",
        message:
          `An account may have at most ${limits.webhookSubscriptions} webhook subscriptions, active or disabled; delete one first.`
      })
    }
    return subscription
  })

  const list = fn("Webhooks.list")(function*(principal: Principal, paging: Pagination.Paging) {
    yield* requirePermission(principal, "webhooks:manage")
    const pageSize = yield* Pagination.pageSizeOf(paging.pageSize)
    const filters = { list: "webhooks" }
    const after = yield* Pagination.after(paging.cursor, filters)
    const rows = yield* subscriptions.list(principal.accountId, after, pageSize + 1)
    return Pagination.of(rows, pageSize, filters, (s) => s)
  })

  const get = fn("Webhooks.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "webhooks:manage")
    return yield* findOwn(principal, id)
  })

  const update = fn("Webhooks.update")(function*(principal: Principal, id: string, input: UpdateSubscription) {
    yield* requirePermission(principal, "webhooks:manage")
    yield* findOwn(principal, id)
    const url = input.url === undefined ? undefined : yield* checkUrl(input.url)
    const events = input.events === undefined ? undefined : yield* checkEvents(input.events)
    const secret = input.secret === undefined ? undefined : yield* checkSecret(input.secret)
    if (input.status === "disabled") {
      return yield* new Conflict({
        code: "invalid_state_transition",
        message: "A subscription is disabled only by its failed deliveries; delete it to stop them."
      })
    }
    const updated = yield* subscriptions.update(
      id,
      { url, events, secret, reactivate: input.status === "active" },
      yield* Clock.currentTimeMillis
    )
    return yield* Option.match(updated, { onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed })
  })

  const delete_ = fn("Webhooks.delete")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "webhooks:manage")
    yield* findOwn(principal, id)
    if (!(yield* subscriptions.delete(id, yield* Clock.currentTimeMillis))) return yield* notFound(id)
  })

  const deliveries = fn("Webhooks.deliveries")(
    function*(principal: Principal, id: string, filter: DeliveryFilter, paging: Pagination.Paging) {
      yield* requirePermission(principal, "webhooks:manage")
      yield* findOwn(principal, id)
      const pageSize = yield* Pagination.pageSizeOf(paging.pageSize)
      const filters = { list: "deliveries", subscription: id, eventType: filter.eventType, state: filter.state }
      const after = yield* Pagination.after(paging.cursor, filters)
      const rows = yield* store.list(id, filter, after, pageSize + 1)
      return Pagination.of(rows, pageSize, filters, (d) => d)
    }
  )

  const redeliver = fn("Webhooks.redeliver")(function*(principal: Principal, id: string, since: number) {
    yield* requirePermission(principal, "webhooks:manage")
    const subscription = yield* findOwn(principal, id)
    yield* admit(principal.accountId)
    if (subscription.status !== "active") {
      return yield* new Conflict({
        code: "invalid_state_transition",
        message: `Webhook subscription ${id} is disabled: set its status "active" first, then redeliver.`
      })
    }
    let redelivered = 0
    for (;;) {
      const limit = Math.min(redeliveryBatch, maxRedeliveredPerCall - redelivered)
      if (limit === 0) return { redelivered, hasMore: (yield* store.redeliverable(id, since, 1)).length > 0 }
      const events = yield* store.redeliverable(id, since, limit)
      const at = yield* Clock.currentTimeMillis
      const resent = yield* Effect.forEach(
        events,
        (event) => Delivery.first(event, { _tag: "Subscription", subscriptionId: id }, "pending", at)
      ).pipe(
        Effect.provideService(IdGenerator, ids)
      )
      const started = new Set(resent.map((d) => d.id))
      redelivered += (yield* store.redeliver(resent)).filter((d) => started.has(d.id)).length
      if (events.length < limit) return { redelivered, hasMore: false }
    }
  })

  return Webhooks.of({ create, list, get, update, delete: delete_, deliveries, redeliver })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Webhooks, never, SubscriptionStore | DeliveryStore | IdGenerator> = Layer.effect(
  Webhooks,
  make
)

/**
 * Messaging's check of a `callback_url`: at most `UrlPolicy.maxLength` characters, allowed by the
 * policy, and signed by an active subscription of the account.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCallbacks: Layer.Layer<Callbacks, never, SubscriptionStore> = Layer.effect(
  Callbacks,
  Effect.gen(function*() {
    const subscriptions = yield* SubscriptionStore
    const policy = yield* UrlPolicy.Policy
    return Callbacks.of({
      check: Effect.fnUntraced(function*(accountId: string, url: string) {
        if (url.length > UrlPolicy.maxLength) {
          return yield* rule(
            "invalid_callback_url",
            "callback_url",
            `callback_url must be at most ${UrlPolicy.maxLength} characters.`
          )
        }
        if (!UrlPolicy.allows(url, policy)) {
          return yield* rule(
            "invalid_callback_url",
            "callback_url",
            "callback_url must be an https URL on a public host."
          )
        }
        if (!(yield* subscriptions.hasActive(accountId))) {
          return yield* rule(
            "no_signing_secret",
            "callback_url",
            "callback_url needs an active webhook subscription whose secret signs its deliveries."
          )
        }
      })
    })
  })
)
