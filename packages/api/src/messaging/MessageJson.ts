/**
 * A message as JSON (CONTRACT §3): the full form the API answers with, the reduced form of list
 * items, and the vocabulary they use (statuses, encodings, a price, why a message failed). The
 * `data` of `message.*` events is cut from the same full form, so a webhook receives the API's own
 * shape (core's `MessageJson` builds these without a schema pass).
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { TimestampJson } from "../Timestamp.js"

/** Message statuses. @since 0.1.0 @category models */
export const MessageStatus = Schema.Literal(
  "scheduled",
  "queued",
  "sent",
  "delivered",
  "undelivered",
  "failed",
  "cancelled"
)
/** A message status. @since 0.1.0 @category models */
export type MessageStatus = typeof MessageStatus.Type

/** Body encodings. @since 0.1.0 @category models */
export const Encoding = Schema.Literal("GSM-7", "UCS-2")

/**
 * The codes a carrier's answer is normalised to (CONTRACT §11): a refusal at submit or a receipt
 * that says the message was not delivered. A `failed` message may also carry a dispatch check's code.
 *
 * @since 0.2.0
 * @category models
 */
export const CarrierErrorCode = Schema.Literal(
  "invalid_destination",
  "unknown_subscriber",
  "absent_subscriber",
  "barred",
  "blocked_content",
  "sender_not_allowed",
  "expired",
  "rejected_by_carrier",
  "carrier_error",
  "no_route"
)
/** A normalised carrier error code. @since 0.2.0 @category models */
export type CarrierErrorCode = typeof CarrierErrorCode.Type

/**
 * Why a message failed or was not delivered: a code of `CarrierErrorCode` or of a dispatch check,
 * and, when a carrier answered, its own code (`smpp:0x0000000B`, a receipt's `UNDELIV:001`).
 *
 * @since 0.1.0
 * @category models
 */
export const MessageError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  carrier_code: Schema.optional(Schema.String)
})

/** A price: a decimal `amount` with 4 places and its ISO 4217 `currency`. @since 0.1.0 @category models */
export const Price = Schema.Struct({ amount: Schema.String, currency: Schema.String })
/** A price. @since 0.1.0 @category models */
export type Price = typeof Price.Type

/** A message, full form: what sending, getting and cancelling answer. @since 0.1.0 @category schemas */
export const MessageFull = Schema.Struct({
  id: Schema.String,
  status: MessageStatus,
  to: Schema.String,
  sender_id: Schema.String,
  body: Schema.String,
  segments: Schema.Int,
  encoding: Encoding,
  market: Schema.String,
  reference: Schema.NullOr(Schema.String),
  price: Price,
  created_at: TimestampJson,
  scheduled_at: Schema.optional(TimestampJson),
  sent_at: Schema.optional(TimestampJson),
  delivered_at: Schema.optional(TimestampJson),
  error: Schema.optional(MessageError)
}).annotations({ identifier: "Message" })
/** A message, full form. @since 0.1.0 @category models */
export type MessageFull = typeof MessageFull.Encoded

/** The fields of the reduced form, in its order. @since 0.2.0 @category constants */
export const itemFields = [
  "id",
  "status",
  "to",
  "sender_id",
  "segments",
  "market",
  "reference",
  "created_at",
  "delivered_at"
] as const

/** A message, reduced form (INTERFACE.md's list items): the full form without body, encoding and the rest. @since 0.1.0 @category schemas */
export const MessageItem = MessageFull.pick(...itemFields).annotations({ identifier: "MessageListItem" })
/** A message, reduced form. @since 0.1.0 @category models */
export type MessageItem = typeof MessageItem.Encoded
