/**
 * The JSON of the messages group that is the API's own: request payloads and the list query, and
 * what a preview answers. A message itself travels as `MessageJson`, the same shape webhooks carry.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { DateFilter, OneOf, PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as Timestamp from "../Timestamp.js"
import { Encoding, MessageStatus, Price } from "./MessageJson.js"

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/** Body of `POST /v1/messaging/messages`. @since 0.1.0 @category requests */
export const SendMessage = Schema.Struct({
  to: Fields.phone("The recipient's mobile number in E.164, in the numbering plan of market."),
  sender_id: Fields.senderId("The Sender ID shown to the recipient, registered to the caller's account for market."),
  body: Fields.text({
    description: "The text to send: at most 10 segments (GSM-7 or UCS-2, as the characters need).",
    examples: ["Your appointment is at 10:00 tomorrow."]
  }),
  market: Fields.market("The market the message is sent in."),
  reference: optionalNullable(
    Fields.text({
      description: "Your own reference, echoed back and filterable; at most 255 characters.",
      examples: ["order-1234"]
    })
  ),
  callback_url: optionalNullable(
    Fields.url(
      "An https URL that receives this message's status events, signed with the account's webhook secret.",
      "https://hooks.acme.example/sms"
    )
  ),
  scheduled_at: optionalNullable(
    Timestamp.FromString.annotations({
      description: "When to send it: in the future, at most 7 days ahead. An RFC 3339 date-time."
    })
  )
}).annotations({ identifier: "SendMessage", parseOptions: { errors: "all" } })

/** Body of `POST /v1/messaging/preview`. @since 0.1.0 @category requests */
export const PreviewMessage = Schema.Struct({
  body: Fields.text({ description: "The text to count and price.", examples: ["It’s 10:00 😀"] }),
  market: optionalNullable(Fields.market("The market to price it in; without it, no price.")),
  variables: optionalNullable(
    Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
      description:
        "The values of the body's {{placeholders}}, as a batch's message gives them: the body is counted once filled (a placeholder without its variable: 422 missing_variable). Without variables, the body is counted as written."
    })
  )
}).annotations({ identifier: "PreviewMessage", parseOptions: { errors: "all" } })

/** Query of `GET /v1/messaging/messages`. @since 0.1.0 @category requests */
export const ListMessagesQuery = Schema.Struct({
  market: Schema.optional(Fields.market("Only messages of this market.")),
  status: Schema.optional(OneOf(MessageStatus)),
  sender_id: Schema.optional(Fields.senderId("Only messages from this Sender ID.")),
  reference: Schema.optional(
    Fields.text({ description: "Only messages with this reference.", examples: ["order-1234"] })
  ),
  batch_id: Schema.optional(
    Fields.text({
      description: "Only messages of this batch.",
      pattern: "^bat_[0-9a-hjkmnp-tv-z]{26}$",
      examples: ["bat_01m810vyc01pfjhmv720etbcd0"]
    })
  ),
  from: Schema.optional(
    DateFilter(false).annotations({
      description: "Only messages created at or after this time: RFC 3339, or YYYY-MM-DD (its start, UTC)."
    })
  ),
  to: Schema.optional(
    DateFilter(true).annotations({
      description: "Only messages created at or before this time: RFC 3339, or YYYY-MM-DD (its end, UTC)."
    })
  ),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** A decimal amount with 4 places, as prices are. */
const Amount = (description: string) => Fields.text({ description, pattern: "^\\d+\\.\\d{4}$", examples: ["0.0500"] })

/** The caller's spend this month in a preview's currency (CONTRACT §12). @since 0.2.0 @category resources */
export const PreviewSpend = Schema.Struct({
  amount: Amount("What the account has spent this month (UTC) in the market's currency."),
  limit: Schema.NullOr(Amount("The account's monthly limit in that currency; null without one.")),
  remaining: Schema.NullOr(Amount("What remains of the limit this month; null without a limit."))
}).annotations({ identifier: "PreviewSpend" })

/** What a preview answers. @since 0.1.0 @category resources */
export const PreviewResult = Schema.Struct({
  encoding: Encoding,
  segments: Schema.Int,
  characters: Schema.Int,
  units_per_segment: Schema.Int,
  ucs2_characters: Schema.Array(Schema.String),
  price: Schema.optional(Price),
  spend: Schema.optional(PreviewSpend)
}).annotations({ identifier: "Preview" })
