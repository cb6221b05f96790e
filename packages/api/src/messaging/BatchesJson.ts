/**
 * The JSON of batches (CONTRACT §13): the request of `POST /v1/messaging/batches`, what it answers,
 * and a batch as `GET /v1/messaging/batches/{id}` reads it, with its messages counted by status.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import * as Fields from "../envelope/Fields.js"
import * as Timestamp from "../Timestamp.js"
import { TimestampJson } from "../Timestamp.js"
import { MessageStatus } from "./MessageJson.js"

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })

/** The most messages one batch may hold. @since 0.3.0 @category constants */
export const maxMessages = 1000

/** The largest batch request accepted, 1 MiB (CONTRACT §13: the other exception to §1's 64 KiB). @since 0.3.0 @category constants */
export const maxBatchBytes = 1024 * 1024

const senderId = () => Fields.senderId("The Sender ID, registered to the caller's account for the market.")
const body = () =>
  Fields.text({
    description:
      "The text, with {{name}} placeholders (letters, digits, _) filled from the message's variables; at most 10 segments once filled.",
    examples: ["Hi {{first_name}}, your code is {{code}}."]
  })
const market = () => Fields.market("The market the message is sent in.")
const reference = () =>
  Fields.text({
    description: "Your own reference, echoed back and filterable; at most 255 characters.",
    examples: ["order-1234"]
  })
const callbackUrl = () =>
  Fields.url(
    "An https URL that receives the message's status events, signed with the account's webhook secret.",
    "https://hooks.acme.example/sms"
  )
const scheduledAt = () =>
  Timestamp.FromString.annotations({
    description: "When to send it: in the future, at most 7 days ahead. An RFC 3339 date-time."
  })

/** What every message of a batch has unless it gives its own. @since 0.3.0 @category requests */
export const BatchDefaults = Schema.Struct({
  sender_id: optionalNullable(senderId()),
  market: optionalNullable(market()),
  body: optionalNullable(body()),
  reference: optionalNullable(reference()),
  callback_url: optionalNullable(callbackUrl()),
  scheduled_at: optionalNullable(scheduledAt())
}).annotations({ identifier: "BatchDefaults" })

/** One message of a batch: its recipient, its own fields over the defaults, its placeholders' variables. @since 0.3.0 @category requests */
export const BatchMessage = Schema.Struct({
  to: Fields.phone("The recipient's mobile number in E.164, in the numbering plan of the market."),
  sender_id: optionalNullable(senderId()),
  market: optionalNullable(market()),
  body: optionalNullable(body()),
  reference: optionalNullable(reference()),
  callback_url: optionalNullable(callbackUrl()),
  scheduled_at: optionalNullable(scheduledAt()),
  variables: optionalNullable(
    Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
      description: "The values of the body's placeholders, by name: {\"first_name\": \"Ann\"} fills {{first_name}}.",
      examples: [{ first_name: "Ann", code: "123456" }]
    })
  )
}).annotations({ identifier: "BatchMessage" })

/** Body of `POST /v1/messaging/batches`: 1 to 1,000 messages, at most 1 MiB. @since 0.3.0 @category requests */
export const SendBatch = Schema.Struct({
  defaults: optionalNullable(BatchDefaults),
  messages: Schema.Array(BatchMessage).pipe(Schema.minItems(1), Schema.maxItems(maxMessages)).annotations({
    description: `The messages, 1 to ${maxMessages}; each answered at its index (from 0).`
  })
}).annotations({ identifier: "SendBatch", parseOptions: { errors: "all" } })

/** Why one message of a batch was refused: its rule's code, a sentence, and the field at fault. @since 0.3.0 @category resources */
export const BatchError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  field: Schema.optional(Schema.String)
}).annotations({ identifier: "BatchError" })

/** One message of a batch as answered: its index and its message's id and status, or its refusal. @since 0.3.0 @category resources */
export const BatchResult = Schema.Union(
  Schema.Struct({ index: Schema.Int, id: Schema.String, status: Schema.Literal("queued", "scheduled") }),
  Schema.Struct({ index: Schema.Int, error: BatchError })
).annotations({ identifier: "BatchResult" })

/** What sending a batch answers (201). @since 0.3.0 @category resources */
export const BatchJson = Schema.Struct({
  id: Schema.String,
  accepted: Schema.Int,
  rejected: Schema.Int,
  created_at: TimestampJson,
  messages: Schema.Array(BatchResult)
}).annotations({ identifier: "Batch" })
/** A batch as sent. @since 0.3.0 @category models */
export type BatchJson = typeof BatchJson.Encoded

/** The count of a batch's messages in each status, every status named. @since 0.3.0 @category resources */
export const StatusCounts = Schema.Struct(
  Object.fromEntries(MessageStatus.literals.map((status) => [status, Schema.Int])) as {
    readonly [S in MessageStatus]: typeof Schema.Int
  }
).annotations({ identifier: "BatchStatusCounts" })

/** A batch as read back: its counts, and its messages counted by status now. @since 0.3.0 @category resources */
export const BatchStatusJson = Schema.Struct({
  id: Schema.String,
  accepted: Schema.Int,
  rejected: Schema.Int,
  created_at: TimestampJson,
  statuses: StatusCounts
}).annotations({ identifier: "BatchStatus" })
/** A batch as read back. @since 0.3.0 @category models */
export type BatchStatusJson = typeof BatchStatusJson.Encoded
