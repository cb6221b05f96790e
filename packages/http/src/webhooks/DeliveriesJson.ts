/**
 * A webhook delivery as JSON (CONTRACT §7), the one place a delivery becomes JSON: the items of a
 * subscription's delivery log and the deliveries an event's redelivery starts. Each attempt is one
 * item; what is not known yet (not attempted, no answer, no next attempt) is `null`, never left
 * out. The schema is `@sendline/api`'s `DeliveriesJson.DeliveryJson`.
 *
 * @since 0.1.0
 */
import type { DeliveryJson } from "@sendline/api/webhooks/DeliveriesJson"
import { type Delivery, Timestamp } from "@sendline/core"

const timestampOrNull = (millis: number | undefined) => (millis === undefined ? null : Timestamp.format(millis))

/** `d` as JSON. @since 0.1.0 @category encoding */
export const delivery = (d: Delivery.Delivery): DeliveryJson => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  subscription_id: d.subscriptionId ?? null,
  attempt: d.attempt,
  state: d.state,
  url: d.url ?? null,
  status_code: d.statusCode ?? null,
  error: d.error ?? null,
  duration_ms: d.durationMillis ?? null,
  response_body: d.responseBody ?? null,
  scheduled_at: Timestamp.format(d.dueAt),
  attempted_at: timestampOrNull(d.attemptedAt),
  next_attempt_at: timestampOrNull(d.nextAttemptAt),
  created_at: Timestamp.format(d.createdAt)
})
