/**
 * Which message status changes are events (CONTRACT §3), and the `message.<status>` event of each:
 * written in the same store call as the change (the outbox), its `data` the message's JSON.
 *
 * @since 0.1.0
 */
import type { Event } from "../Event.js"
import type { Message } from "./Message.js"
import * as MessageJson from "./MessageJson.js"

/** The statuses whose entry is an event: not `scheduled`, not `cancelled`. @since 0.1.0 @category models */
export type EventfulStatus = "queued" | "sent" | "delivered" | "undelivered" | "failed"

/** A message in a status whose entry is an event. @since 0.1.0 @category models */
export type EventfulMessage = Message & { readonly status: EventfulStatus }

/** Whether entering the message's status writes a `message.<status>` event. @since 0.1.0 @category guards */
export const isEventful = (message: Message): message is EventfulMessage =>
  message.status !== "scheduled" && message.status !== "cancelled"

/** The `message.<status>` event `id` for a message that entered its status at `createdAt`. @since 0.1.0 @category constructors */
export const make = (id: string, message: EventfulMessage, createdAt: number): Event => ({
  id,
  accountId: message.accountId,
  type: `message.${message.status}`,
  subjectId: message.id,
  createdAt,
  data: MessageJson.eventData(message)
})
