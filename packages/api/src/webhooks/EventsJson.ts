/**
 * The JSON of the events group (CONTRACT §7): the list query, an event exactly as a webhook
 * delivery carries it (`id`, `type`, `created_at`, `data`), and what an
 * event's redelivery answers.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { DateFilter, OneOf, PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { EventType } from "../Event.js"
import { TimestampJson } from "../Timestamp.js"
import * as DeliveriesJson from "./DeliveriesJson.js"

/** Query of `GET /v1/events`. @since 0.1.0 @category requests */
export const ListEventsQuery = Schema.Struct({
  type: Schema.optional(OneOf(EventType)),
  created_after: Schema.optional(
    DateFilter(false).annotations({
      description: "events made at or after this time: RFC 3339, or YYYY-MM-DD (its start, UTC)"
    })
  ),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** An event as receivers get it, the body of its webhook deliveries. @since 0.1.0 @category schemas */
export const EventJson = Schema.Struct({
  id: Schema.String,
  type: EventType,
  created_at: TimestampJson,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "the event's data; for message.* events, the message as GET /v1/messaging/messages/{id} answers it"
  })
}).annotations({ identifier: "Event" })

/** What `POST /v1/events/{id}/redeliver` answers. @since 0.1.0 @category schemas */
export const EventRedelivered = Schema.Struct({
  event_id: Schema.String,
  deliveries: Schema.Array(DeliveriesJson.DeliveryJson).annotations({
    description:
      "one pending delivery for each place the event goes now, new or already under way (an earlier redelivery's or a retry: none other starts); none when no one asks for it"
  })
}).annotations({ identifier: "EventRedelivered" })
