/**
 * The event types of INTERFACE.md: what a webhook delivery, `GET /v1/events` and a subscription's
 * `events` name.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/** Every event type of INTERFACE.md. @since 0.1.0 @category models */
export const EventType = Schema.Literal(
  "message.queued",
  "message.sent",
  "message.delivered",
  "message.undelivered",
  "message.failed",
  "sid.status_changed",
  "sid.registered",
  "sid.rejected",
  "sid.expiring",
  "brand.verified",
  "brand.rejected"
)
/** An event type. @since 0.1.0 @category models */
export type EventType = typeof EventType.Type
