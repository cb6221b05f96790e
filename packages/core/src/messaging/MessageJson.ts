/**
 * A message as JSON (CONTRACT §3), built once: the full form the API answers with, the reduced
 * form of list items and the `data` of `message.*` events are all cut from `full`, so a webhook
 * receives the API's own shape. The schemas describe the same shapes for the OpenAPI document and
 * typed clients (`@sendline/api`'s `MessageJson`, re-exported here); the builders make them fast,
 * without a schema pass.
 *
 * @since 0.1.0
 */
import { itemFields, type MessageFull, type MessageItem } from "@sendline/api/messaging/MessageJson"
import * as Timestamp from "@sendline/api/Timestamp"
import type { Types } from "effect"
import type { Message } from "./Message.js"

export {
  /** The fields of the reduced form, in its order. @since 0.2.0 @category constants */
  itemFields,
  /** A message, full form: what sending, getting and cancelling answer. @since 0.1.0 @category schemas */
  MessageFull,
  /** A message, reduced form (INTERFACE.md's list items). @since 0.1.0 @category schemas */
  MessageItem
} from "@sendline/api/messaging/MessageJson"

/** The full form of `m`. @since 0.1.0 @category encoding */
export const full = (m: Message): MessageFull => {
  const json: Types.Mutable<MessageFull> = {
    id: m.id,
    status: m.status,
    to: m.to,
    sender_id: m.senderId,
    body: m.body,
    segments: m.segments,
    encoding: m.encoding,
    market: m.market,
    reference: m.reference ?? null,
    price: m.price,
    created_at: Timestamp.format(m.createdAt)
  }
  if (m.scheduledAt !== undefined) json.scheduled_at = Timestamp.format(m.scheduledAt)
  if (m.sentAt !== undefined) json.sent_at = Timestamp.format(m.sentAt)
  if (m.deliveredAt !== undefined) json.delivered_at = Timestamp.format(m.deliveredAt)
  if (m.error !== undefined) json.error = m.error
  return json
}

/** The fields of `json` named in `keys` that it has, in that order. */
const pick = <A extends object, K extends keyof A>(json: A, keys: ReadonlyArray<K>): Pick<A, K> => {
  const out = {} as Pick<A, K>
  for (const key of keys) if (json[key] !== undefined) out[key] = json[key]
  return out
}

/** The reduced form of `m`, cut from its full form. @since 0.1.0 @category encoding */
export const item = (m: Message): MessageItem => pick(full(m), itemFields)

const eventFields = ["id", "status", "to", "sender_id", "market", "segments", "reference", "created_at"] as const

/**
 * The `data` of the `message.*` event of `m`'s status (CONTRACT §3), cut from its full form: the
 * fields every event has, plus `sent_at` when sent, `delivered_at` and `price` when delivered,
 * `error` when failed or undelivered.
 *
 * @since 0.1.0
 * @category encoding
 */
export const eventData = (m: Message): Record<string, unknown> => {
  const json = full(m)
  const data: Record<string, unknown> = pick(json, eventFields)
  if (m.status === "sent" && json.sent_at !== undefined) data.sent_at = json.sent_at
  if (m.status === "delivered") {
    if (json.delivered_at !== undefined) data.delivered_at = json.delivered_at
    data.price = json.price
  }
  if ((m.status === "failed" || m.status === "undelivered") && json.error !== undefined) data.error = json.error
  return data
}
