/**
 * The JSON of webhook deliveries (CONTRACT §7): the items of a subscription's delivery log
 * (`GET /v1/webhooks/{id}/deliveries`) and the deliveries an event's redelivery starts
 * (`POST /v1/events/{id}/redeliver`), their states, and the log's query. Each attempt is one item; what is not known
 * yet (not attempted, no answer, no next attempt) is `null`, never left out.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OneOf, PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { EventType } from "../Event.js"
import { TimestampJson } from "../Timestamp.js"

/**
 * Where a delivery stands: `pending` until attempted (due at `dueAt`); `succeeded` (a 2xx answer)
 * or `failed` once attempted; `skipped` when it was not attempted because its subscription was
 * disabled (or deleted) when the event occurred or before its turn came. Failed and skipped
 * deliveries can be redelivered.
 *
 * @since 0.1.0
 * @category models
 */
export const DeliveryState = Schema.Literal("pending", "succeeded", "failed", "skipped")
/** A delivery's state. @since 0.1.0 @category models */
export type DeliveryState = typeof DeliveryState.Type

/** Query of `GET /v1/webhooks/{id}/deliveries`. @since 0.1.0 @category requests */
export const ListDeliveriesQuery = Schema.Struct({
  event_type: Schema.optional(OneOf(EventType)),
  state: Schema.optional(OneOf(DeliveryState)),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

const nullable = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.NullOr(schema).annotations({ description })

/** A delivery, one attempt, as the API answers it. @since 0.1.0 @category schemas */
export const DeliveryJson = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  event_type: EventType,
  subscription_id: nullable(Schema.String, "the subscription it goes to; null for a message's callback_url"),
  attempt: Schema.Int.annotations({ description: "0 for the first attempt, then the retries 1–6" }),
  state: DeliveryState,
  url: nullable(Schema.String, "where it was posted; null until attempted"),
  status_code: nullable(Schema.Int, "the receiver's HTTP status; null without an answer"),
  error: nullable(
    Schema.String,
    "why it failed: timeout, dns, tls, connection_refused, connection_reset, blocked_address, redirect, http_<status> or no_signing_secret"
  ),
  duration_ms: nullable(Schema.Number, "from the start of the post to the end of the answer"),
  response_body: nullable(Schema.String, "the first 4 KiB of the answer's body"),
  scheduled_at: TimestampJson,
  attempted_at: nullable(TimestampJson, "null until attempted"),
  next_attempt_at: nullable(TimestampJson, "when the retry it scheduled is due; null when none"),
  created_at: TimestampJson
}).annotations({ identifier: "Delivery" })
/** A delivery as JSON. @since 0.1.0 @category models */
export type DeliveryJson = typeof DeliveryJson.Encoded
