/**
 * The JSON shapes of `/v1`: request payloads, resources and envelopes (CONTRACT §1). The schemas
 * document the API (OpenAPI, typed client); `messageFull`, `messageItem` and `preview` build the
 * same shapes fast.
 *
 * @since 0.1.0
 */
import { Errors, Message, Messaging, Timestamp } from "@sendline/core"
import { Option, ParseResult, Schema, type Types } from "effect"

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

// Digits only (no sign, exponent, hex or spaces), as many as sent: `Messaging.list` clamps.
const pageSizeMessage = () => ({ message: "Expected an integer of at least 1", override: true })
const PageSize = Schema.String.pipe(Schema.pattern(/^[0-9]+$/)).annotations({
  description: `results per page, default ${Messaging.pageSizes.default}; above ${Messaging.pageSizes.max} is clamped to ${Messaging.pageSizes.max}`,
  message: pageSizeMessage
}).pipe(
  Schema.compose(Schema.NumberFromString),
  Schema.greaterThanOrEqualTo(1, { message: pageSizeMessage })
)
const StatusFilter = Message.MessageStatus.annotations({
  message: () => ({ message: `Expected one of ${Message.MessageStatus.literals.join(", ")}`, override: true })
})
// A date filter decoded to epoch milliseconds: a date-time, or a plain date meaning the first
// (`from`) or last (`to`) millisecond of that UTC day.
const dateFilter = (endOfDay: boolean) =>
  Schema.transformOrFail(Schema.String, Schema.Number, {
    strict: true,
    decode: (input, _, ast) =>
      Option.match(Timestamp.parseDateFilter(input, endOfDay), {
        onNone: () => ParseResult.fail(new ParseResult.Type(ast, input, "Expected an RFC 3339 date-time or a YYYY-MM-DD date")),
        onSome: ParseResult.succeed
      }),
    encode: (millis) => ParseResult.succeed(Timestamp.format(millis))
  })

/** Query of `GET /v1/messaging/messages`. @since 0.1.0 @category requests */
export const ListMessagesQuery = Schema.Struct({
  market: Schema.optional(Schema.String),
  status: Schema.optional(StatusFilter),
  sender_id: Schema.optional(Schema.String),
  reference: Schema.optional(Schema.String),
  from: Schema.optional(dateFilter(false)),
  to: Schema.optional(dateFilter(true)),
  cursor: Schema.optional(Schema.String),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

const TimestampJson = Schema.String.annotations({ format: "date-time", examples: ["2026-11-22T07:00:00.000+00:00"] })

/** A message, full form. @since 0.1.0 @category resources */
export const MessageFull = Schema.Struct({
  id: Schema.String,
  status: Message.MessageStatus,
  to: Schema.String,
  sender_id: Schema.String,
  body: Schema.String,
  segments: Schema.Int,
  encoding: Message.Encoding,
  market: Schema.String,
  reference: Schema.NullOr(Schema.String),
  price: Message.Price,
  created_at: TimestampJson,
  scheduled_at: Schema.optional(TimestampJson),
  sent_at: Schema.optional(TimestampJson),
  delivered_at: Schema.optional(TimestampJson),
  error: Schema.optional(Message.MessageError)
}).annotations({ identifier: "Message" })

/** A message, reduced form (list items). @since 0.1.0 @category resources */
export const MessageItem = Schema.Struct({
  id: Schema.String,
  status: Message.MessageStatus,
  to: Schema.String,
  sender_id: Schema.String,
  segments: Schema.Int,
  market: Schema.String,
  reference: Schema.NullOr(Schema.String),
  created_at: TimestampJson,
  delivered_at: Schema.optional(TimestampJson)
}).annotations({ identifier: "MessageListItem" })

/** What a preview answers. @since 0.1.0 @category resources */
export const PreviewResult = Schema.Struct({
  encoding: Message.Encoding,
  segments: Schema.Int,
  characters: Schema.Int,
  units_per_segment: Schema.Int,
  ucs2_characters: Schema.Array(Schema.String),
  price: Schema.optional(Message.Price)
}).annotations({ identifier: "Preview" })

/** `meta` of every envelope. @since 0.1.0 @category envelopes */
export const Meta = Schema.Struct({ request_id: Schema.String, timestamp: TimestampJson })

/** `pagination` of a list envelope. @since 0.1.0 @category envelopes */
export const Pagination = Schema.Struct({
  has_more: Schema.Boolean,
  next_cursor: Schema.NullOr(Schema.String),
  page_size: Schema.Int
})

/** The success envelope around one resource. @since 0.1.0 @category envelopes */
export const Envelope = <S extends Schema.Schema.Any>(data: S) =>
  Schema.Struct({ ok: Schema.Literal(true), data, meta: Meta })

/** The success envelope around a page of resources. @since 0.1.0 @category envelopes */
export const ListEnvelope = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ ok: Schema.Literal(true), data: Schema.Array(item), pagination: Pagination, meta: Meta })

/** The error envelope (CONTRACT §1) with `error.code` one of `code`'s values. @since 0.1.0 @category envelopes */
export const errorEnvelope = <Code extends string>(code: Schema.Schema<Code>) =>
  Schema.Struct({
    ok: Schema.Literal(false),
    error: Schema.Struct({
      code,
      message: Schema.String,
      field: Schema.optional(Schema.String),
      details: Schema.optional(Schema.Array(Errors.FieldIssue))
    }),
    meta: Meta
  })

/** The error envelope (CONTRACT §1), any code. @since 0.1.0 @category envelopes */
export const ErrorEnvelope = errorEnvelope(Schema.String).annotations({ identifier: "Error" })

/** A message in full form. @since 0.1.0 @category encoding */
export const messageFull = (m: Message.Message): typeof MessageFull.Encoded => {
  const json: Types.Mutable<typeof MessageFull.Encoded> = {
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

/** A message in reduced form. @since 0.1.0 @category encoding */
export const messageItem = (m: Message.Message): typeof MessageItem.Encoded => {
  const json: Types.Mutable<typeof MessageItem.Encoded> = {
    id: m.id,
    status: m.status,
    to: m.to,
    sender_id: m.senderId,
    segments: m.segments,
    market: m.market,
    reference: m.reference ?? null,
    created_at: Timestamp.format(m.createdAt)
  }
  if (m.deliveredAt !== undefined) json.delivered_at = Timestamp.format(m.deliveredAt)
  return json
}

/** A preview. @since 0.1.0 @category encoding */
export const preview = (p: Messaging.Preview): typeof PreviewResult.Encoded => ({
  encoding: p.encoding,
  segments: p.segments,
  characters: p.characters,
  units_per_segment: p.unitsPerSegment,
  ucs2_characters: p.ucs2Characters,
  ...(Option.isSome(p.price) ? { price: p.price.value } : {})
})
