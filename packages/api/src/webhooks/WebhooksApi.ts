/**
 * The webhooks group of `/v1` (CONTRACT §7): subscribing a URL to event types, listing, reading,
 * changing and deleting your subscriptions, a subscription's delivery log and its redelivery.
 * Every endpoint needs `webhooks:manage`.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as WireErrors from "../envelope/WireErrors.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as DeliveriesJson from "./DeliveriesJson.js"
import * as WebhooksJson from "./WebhooksJson.js"

const WebhookId = Fields.PathId("wh", "webhook subscription")

/** The webhooks group. @since 0.1.0 @category groups */
export class WebhooksApi extends v1(
  HttpApiGroup.make("webhooks")
    .annotate(
      OpenApi.Description,
      "Webhook subscriptions: signed HTTPS callbacks for the account’s events, their delivery log and redelivery."
    )
    .add(
      HttpApiEndpoint.post("create", "/webhooks")
        .setPayload(WebhooksJson.CreateWebhook)
        .addSuccess(Envelope(WebhooksJson.WebhookJson), { status: 201 })
        .addError(WireErrors.RuleViolation)
        .annotate(
          OpenApi.Summary,
          "Subscribe an https URL to event types, signed with your secret (never answered back)"
        )
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.get("list", "/webhooks")
        .setUrlParams(WebhooksJson.ListWebhooksQuery)
        .addSuccess(ListEnvelope(WebhooksJson.WebhookJson))
        .annotate(OpenApi.Summary, "List your webhook subscriptions, newest first")
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.get("get", "/webhooks/:id")
        .setPath(WebhookId)
        .addSuccess(Envelope(WebhooksJson.WebhookJson))
        .annotate(OpenApi.Summary, "Get a webhook subscription")
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.patch("update", "/webhooks/:id")
        .setPath(WebhookId)
        .setPayload(WebhooksJson.UpdateWebhook)
        .addSuccess(Envelope(WebhooksJson.WebhookJson))
        .addError(WireErrors.RuleViolation)
        .annotate(
          OpenApi.Summary,
          "Change a subscription's url, events or secret (the old secret still signs webhook-signature for 24 hours), or enable a disabled one"
        )
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.del("delete", "/webhooks/:id")
        .setPath(WebhookId)
        .addSuccess(Envelope(WebhooksJson.WebhookDeleted))
        .annotate(OpenApi.Summary, "Delete a webhook subscription: nothing is delivered to it afterwards")
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries")
        .setPath(WebhookId)
        .setUrlParams(DeliveriesJson.ListDeliveriesQuery)
        .addSuccess(ListEnvelope(DeliveriesJson.DeliveryJson))
        .annotate(
          OpenApi.Summary,
          "A subscription's delivery log: each attempt, newest first, with its answer or error and its next attempt; by event_type and state"
        )
        .annotateContext(needs("webhooks:manage"))
    )
    .add(
      HttpApiEndpoint.post("redeliver", "/webhooks/:id/redeliver")
        .setPath(WebhookId)
        .setPayload(WebhooksJson.RedeliverWebhook)
        .addSuccess(Envelope(WebhooksJson.WebhookRedelivered))
        .annotate(
          OpenApi.Summary,
          "Resend every event whose delivery failed for good or was skipped since a time (a disabled subscription: enable it first, else 409)"
        )
        .annotateContext(needs("webhooks:manage"))
    )
) {}
