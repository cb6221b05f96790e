/**
 * The JSON of the webhooks group (CONTRACT §7): the request payloads, the list query, and a
 * subscription as every endpoint answers it, never with its secret.
 *
 * @since 0.1.0
 */
import { MessageJson, Subscription, Timestamp } from "@sendline/core"
import { Schema } from "effect"
import { PagingQuery } from "../envelope/Envelope.js"

/** Body of `POST /v1/webhooks`: every field required. @since 0.1.0 @category requests */
export const CreateWebhook = Schema.Struct({
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: Schema.String
}).annotations({ identifier: "CreateWebhook", parseOptions: { errors: "all" } })

/**
 * Body of `PATCH /v1/webhooks/{id}`: any of `url`, `events` and `secret`, and `status: "active"` to
 * enable a disabled subscription again (`disabled` → 409 `invalid_state_transition`).
 *
 * @since 0.1.0
 * @category requests
 */
export const UpdateWebhook = Schema.Struct({
  url: Schema.optional(Schema.String),
  events: Schema.optional(Schema.Array(Schema.String)),
  secret: Schema.optional(Schema.String),
  status: Schema.optional(Subscription.SubscriptionStatus)
}).annotations({ identifier: "UpdateWebhook", parseOptions: { errors: "all" } })

/** Query of `GET /v1/webhooks`. @since 0.1.0 @category requests */
export const ListWebhooksQuery = PagingQuery

/** A subscription as the API answers it: never its secret. @since 0.1.0 @category schemas */
export const WebhookJson = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  status: Subscription.SubscriptionStatus,
  created_at: MessageJson.TimestampJson
}).annotations({ identifier: "Webhook" })
/** A subscription as JSON. @since 0.1.0 @category models */
export type WebhookJson = typeof WebhookJson.Encoded

/** What `DELETE /v1/webhooks/{id}` answers. @since 0.1.0 @category schemas */
export const WebhookDeleted = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }).annotations({
  identifier: "WebhookDeleted"
})

/** `s` as JSON, without its secrets. @since 0.1.0 @category encoding */
export const webhook = (s: Subscription.Subscription): WebhookJson => ({
  id: s.id,
  url: s.url,
  events: s.events,
  status: s.status,
  created_at: Timestamp.format(s.createdAt)
})
