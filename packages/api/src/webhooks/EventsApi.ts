/**
 * The events group of `/v1` (CONTRACT §7): your events, newest first, each exactly as a webhook
 * delivers it, so that a receiver that was down can catch up by polling; one event; and an event
 * delivered again. Every endpoint needs `webhooks:manage`.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as WireErrors from "../envelope/WireErrors.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as EventsJson from "./EventsJson.js"

const EventId = Fields.PathId("evt", "event")

/** The events group. @since 0.1.0 @category groups */
export class EventsApi extends v1(
  HttpApiGroup.make("events")
    .annotate(
      OpenApi.Description,
      "The event log of the account: the events its webhooks are sent, readable and redeliverable."
    )
    .add(
      HttpApiEndpoint.get("list", "/events")
        .setUrlParams(EventsJson.ListEventsQuery)
        .addSuccess(ListEnvelope(EventsJson.EventJson))
        .annotate(
          OpenApi.Summary,
          "List your events, newest first, each as its webhook deliveries carry it; by type and created_after"
        )
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.get("get", "/events/:id")
        .setPath(EventId)
        .addSuccess(Envelope(EventsJson.EventJson))
        .annotate(OpenApi.Summary, "Get an event: the body its webhook deliveries carry")
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.post("redeliver", "/events/:id/redeliver")
        .setPath(EventId)
        .addSuccess(Envelope(EventsJson.EventRedelivered))
        .addError(WireErrors.RuleViolation)
        .annotate(
          OpenApi.Summary,
          "Deliver an event again, from attempt 0, where it goes now: its message's callback_url, else each active subscription to its type"
        )
        .annotateContext(needs("webhooks:manage"))
    )
) {}
