/**
 * Where an event goes (CONTRACT §7, INTERFACE.md's Events): a message's events to its
 * `callback_url` when it has one, instead of the account's subscriptions; every other event to each
 * of the account's subscriptions that asked for its type. A disabled subscription's delivery is
 * recorded `skipped`, so that it can be redelivered once the subscription is active again.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Event } from "../Event.js"
import type { IdGenerator } from "../Ids.js"
import * as Delivery from "./Delivery.js"
import type { Subscription } from "./Subscription.js"

/** An event with the `callback_url` of its message, if it has one. @since 0.1.0 @category models */
export interface Routed {
  readonly event: Event
  readonly callbackUrl?: string | undefined
}

/** Whether `event` is a message's event, which a `callback_url` redirects. @since 0.1.0 @category predicates */
export const isMessageEvent = (event: Event): boolean => event.type.startsWith("message.")

/**
 * The first deliveries of `routed`, made at `at`, among `subscriptions` (any accounts', deleted
 * ones left out by the caller): one pending delivery to its callback URL, or one per subscription of
 * its account that asked for its type, pending when active, skipped when disabled.
 *
 * @since 0.1.0
 * @category routing
 */
export const deliveriesOf = (
  { callbackUrl, event }: Routed,
  subscriptions: ReadonlyArray<Subscription>,
  at: number
): Effect.Effect<ReadonlyArray<Delivery.Delivery>, never, IdGenerator> =>
  callbackUrl !== undefined && isMessageEvent(event)
    ? Effect.map(Delivery.first(event, { _tag: "Callback", url: callbackUrl }, "pending", at), (d) => [d])
    : Effect.forEach(
      subscriptions.filter((s) => s.accountId === event.accountId && s.events.includes(event.type)),
      (s) =>
        Delivery.first(
          event,
          { _tag: "Subscription", subscriptionId: s.id },
          s.status === "active" ? "pending" : "skipped",
          at
        )
    )
