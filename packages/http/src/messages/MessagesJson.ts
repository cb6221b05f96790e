/**
 * The JSON of the messages group that is the API's own: request payloads and the list query, and
 * the preview. A message itself travels as core's `MessageJson`, the same shape webhooks carry.
 *
 * @since 0.1.0
 */
import { Message, type Messaging, Timestamp } from "@sendline/core"
import { DateFilter, OneOf, PageSize } from "../envelope/Envelope.js"
import { Option, Schema } from "effect"

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/** Body of `POST /v1/messaging/messages`. @since 0.1.0 @category requests */
export const SendMessage = Schema.Struct({
  to: Schema.String,
  sender_id: Schema.String,
  body: Schema.String,
  market: Schema.String,
  reference: optionalNullable(Schema.String),
  callback_url: optionalNullable(Schema.String),
  scheduled_at: optionalNullable(Timestamp.FromString)
}).annotations({ identifier: "SendMessage", parseOptions: { errors: "all" } })

/** Body of `POST /v1/messaging/preview`. @since 0.1.0 @category requests */
export const PreviewMessage = Schema.Struct({
  body: Schema.String,
  market: optionalNullable(Schema.String)
}).annotations({ identifier: "PreviewMessage", parseOptions: { errors: "all" } })

/** Query of `GET /v1/messaging/messages`. @since 0.1.0 @category requests */
export const ListMessagesQuery = Schema.Struct({
  market: Schema.optional(Schema.String),
  status: Schema.optional(OneOf(Message.MessageStatus)),
  sender_id: Schema.optional(Schema.String),
  reference: Schema.optional(Schema.String),
  from: Schema.optional(DateFilter(false)),
  to: Schema.optional(DateFilter(true)),
  cursor: Schema.optional(Schema.String),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** What a preview answers. @since 0.1.0 @category resources */
export const PreviewResult = Schema.Struct({
  encoding: Message.Encoding,
  segments: Schema.Int,
  characters: Schema.Int,
  units_per_segment: Schema.Int,
  ucs2_characters: Schema.Array(Schema.String),
  price: Schema.optional(Message.Price)
}).annotations({ identifier: "Preview" })

/** A preview as JSON. @since 0.1.0 @category encoding */
export const preview = (p: Messaging.Preview): typeof PreviewResult.Encoded => ({
  encoding: p.encoding,
  segments: p.segments,
  characters: p.characters,
  units_per_segment: p.unitsPerSegment,
  ucs2_characters: p.ucs2Characters,
  ...(Option.isSome(p.price) ? { price: p.price.value } : {})
})
