/**
 * Events: one row per state change, written in the same transaction as the change (the outbox).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { Message } from "./messaging/Message.js"
import * as Timestamp from "./Timestamp.js"

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

/** The `data` of a `message.*` event (CONTRACT §3). @since 0.1.0 @category constructors */
export const messageData = (message: Message): Record<string, unknown> => {
  const data: Record<string, unknown> = {
    id: message.id,
    status: message.status,
    to: message.to,
    sender_id: message.senderId,
    market: message.market,
    segments: message.segments,
    reference: message.reference ?? null,
    created_at: Timestamp.format(message.createdAt)
  }
  if (message.status === "sent" && message.sentAt !== undefined) data.sent_at = Timestamp.format(message.sentAt)
  if (message.status === "delivered") {
    if (message.deliveredAt !== undefined) data.delivered_at = Timestamp.format(message.deliveredAt)
    data.price = message.price
  }
  if ((message.status === "failed" || message.status === "undelivered") && message.error !== undefined) {
    data.error = message.error
  }
  return data
}

/** The statuses whose entry is an event (CONTRACT §3): not `scheduled`, not `cancelled`. @since 0.1.0 @category models */
export type EventfulStatus = "queued" | "sent" | "delivered" | "undelivered" | "failed"

/** A message in a status whose entry is an event. @since 0.1.0 @category models */
export type EventfulMessage = Message & { readonly status: EventfulStatus }

/** Whether entering the message's status writes a `message.<status>` event. @since 0.1.0 @category models */
export const isEventful = (message: Message): message is EventfulMessage =>
  message.status !== "scheduled" && message.status !== "cancelled"

/** The `message.<status>` event for a message that just entered `status`. @since 0.1.0 @category constructors */
export const forMessage = (
  id: string,
  message: EventfulMessage,
  createdAt: number
): Event => ({
  id,
  accountId: message.accountId,
  type: `message.${message.status}`,
  subjectId: message.id,
  createdAt,
  data: messageData(message)
})
