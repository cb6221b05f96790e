/**
 * The events group's answers as JSON: an event exactly as a webhook delivery carries it (core's
 * `Event.payload`), and what an event's redelivery answers. Their schemas are `@sendline/api`'s
 * `EventsJson`.
 *
 * @since 0.1.0
 */
import type { EventRedelivered } from "@sendline/api/webhooks/EventsJson"
import { type Delivery, Event } from "@sendline/core"
import * as DeliveriesJson from "./DeliveriesJson.js"

/** `event` as JSON: the very object its webhook deliveries carry. @since 0.1.0 @category encoding */
export const event = (e: Event.Event): Event.EventPayload => Event.payload(e)

/** The deliveries under way after a redelivery of event `id`, as JSON. @since 0.1.0 @category encoding */
export const redelivered = (
  id: string,
  deliveries: ReadonlyArray<Delivery.Delivery>
): typeof EventRedelivered.Encoded => ({
  event_id: id,
  deliveries: deliveries.map(DeliveriesJson.delivery)
})
