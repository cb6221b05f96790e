/**
 * Events: one row per state change, written in the same transaction as the change (the outbox).
 *
 * @since 0.1.0
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

/** An event `evt_…`; `data` is the JSON object receivers get. @since 0.1.0 @category models */
export interface Event {
  readonly id: string
  readonly accountId: string
  readonly type: EventType
  readonly subjectId: string
  readonly createdAt: number
  readonly data: Readonly<Record<string, unknown>>
}
