/**
 * The event log (CONTRACT §7): an account's events, each exactly as a webhook delivers it, listed
 * newest first and read one by one, so that a receiver that was down can catch up by polling; and
 * the redelivery of one event, all with `webhooks:manage`. Another account's event is not found, as
 * an unknown one is.
 *
 * @since 0.1.0
 */
import {
  type InvalidRequest,
  NotFound,
  type PermissionDenied,
  type RateLimited,
  rule,
  type RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { requirePermission } from "../accounts/Auth.js"
import type { Event } from "../Event.js"
import { type EventFilter, EventStore } from "../EventStore.js"
import { IdGenerator } from "../Ids.js"
import * as UseCase from "../internal/useCase.js"
import { MessageStore } from "../messaging/MessageStore.js"
import * as Pagination from "../Pagination.js"
import type * as Delivery from "./Delivery.js"
import { DeliveryStore } from "./DeliveryStore.js"
import * as Redelivery from "./Redelivery.js"
import * as Routing from "./Routing.js"
import { SubscriptionStore } from "./SubscriptionStore.js"

/** The event log use case. @since 0.1.0 @category services */
export class EventLog extends Context.Tag("@sendline/core/EventLog")<EventLog, {
  /** The caller's events, newest first, by type and made at or after a time. */
  readonly list: (
    principal: Principal,
    filter: EventFilter,
    paging: Pagination.Paging
  ) => Effect.Effect<Pagination.Page<Event>, InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The caller's event `id`. */
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Event, NotFound | PermissionDenied | StoreUnavailable>
  /**
   * Delivers the caller's event `id` again, from attempt 0, where it would go now: its message's
   * callback URL (422 `no_signing_secret` without an active subscription to sign it), else each
   * active subscription that asks for its type; but where a delivery of it is pending already (an
   * earlier redelivery's, or its first chain's), that one goes on and no other starts. The
   * deliveries under way, one per place it goes, each new or already pending (none: no one asks).
   * Counts against `Limits.redeliveriesPerMinute` (429 past it).
   */
  readonly redeliver: (
    principal: Principal,
    id: string
  ) => Effect.Effect<
    ReadonlyArray<Delivery.Delivery>,
    NotFound | RuleViolation | PermissionDenied | RateLimited | StoreUnavailable
  >
}>() {}

/** Builds the event log use case. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const events = yield* EventStore
  const messages = yield* MessageStore
  const subscriptions = yield* SubscriptionStore
  const deliveries = yield* DeliveryStore
  const ids = yield* IdGenerator
  const admit = yield* Redelivery.admission

  const findOwn = (principal: Principal, id: string) =>
    Effect.flatMap(events.findById(principal.accountId, id), (found) =>
      Option.match(found, {
        onNone: () => Effect.fail(new NotFound({ message: `No event ${id}.` })),
        onSome: Effect.succeed
      }))

  const list = fn("EventLog.list")(function*(principal: Principal, filter: EventFilter, paging: Pagination.Paging) {
    yield* requirePermission(principal, "webhooks:manage")
    const pageSize = yield* Pagination.pageSizeOf(paging.pageSize)
    const filters = { list: "events", type: filter.type, createdAfter: filter.createdAfter }
    const after = yield* Pagination.after(paging.cursor, filters)
    const rows = yield* events.list(principal.accountId, filter, after, pageSize + 1)
    return Pagination.of(rows, pageSize, filters, (e) => e)
  })

  const get = fn("EventLog.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "webhooks:manage")
    return yield* findOwn(principal, id)
  })

  const redeliver = fn("EventLog.redeliver")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "webhooks:manage")
    const event = yield* findOwn(principal, id)
    yield* admit(principal.accountId)
    const callbackUrl = Routing.isMessageEvent(event)
      ? Option.flatMapNullable(yield* messages.findById(event.accountId, event.subjectId), (m) => m.callbackUrl)
      : Option.none()
    const active = (yield* subscriptions.forAccounts([event.accountId])).filter((s) => s.status === "active")
    if (Option.isSome(callbackUrl) && active.length === 0) {
      return yield* rule(
        "no_signing_secret",
        "id",
        "This event goes to its message's callback_url, which is signed with the secret of an active webhook subscription; the account has none."
      )
    }
    const made = yield* Routing.deliveriesOf(
      { event, callbackUrl: Option.getOrUndefined(callbackUrl) },
      active,
      yield* Clock.currentTimeMillis
    ).pipe(Effect.provideService(IdGenerator, ids))
    return yield* deliveries.redeliver(made)
  })

  return EventLog.of({ list, get, redeliver })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<
  EventLog,
  never,
  EventStore | MessageStore | SubscriptionStore | DeliveryStore | IdGenerator
> = Layer.effect(EventLog, make)
