/**
 * The JSON of the webhooks group (CONTRACT §7): the request payloads, the list query, a
 * subscription as every endpoint answers it, never with its secret, its statuses, and what a
 * redelivery answers.
 * A delivery of the delivery log is `DeliveriesJson`'s.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { DateFilter, PagingQuery } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { TimestampJson } from "../Timestamp.js"

/**
 * A subscription's status: `active`, or `disabled` once its retry 6 has failed (CONTRACT §7); a
 * PATCH sets a disabled one `active` again.
 *
 * @since 0.1.0
 * @category models
 */
export const SubscriptionStatus = Schema.Literal("active", "disabled")
/** A subscription's status. @since 0.1.0 @category models */
export type SubscriptionStatus = typeof SubscriptionStatus.Type

/** The most events one redelivery `since` resends; a second call resends the rest. @since 0.1.0 @category constants */
export const maxRedeliveredPerCall = 10_000

/** Body of `POST /v1/webhooks`: every field required. @since 0.1.0 @category requests */
export const CreateWebhook = Schema.Struct({
  url: Fields.url("The https URL events are posted to.", "https://hooks.acme.example/sendline"),
  events: Schema.Array(Fields.text({ description: "An event type to receive.", examples: ["message.delivered"] })),
  secret: Fields.text({ description: "The secret each delivery is signed with.", examples: ["whsec-0123456789abcdef"] })
}).annotations({ identifier: "CreateWebhook", parseOptions: { errors: "all" } })

/**
 * Body of `PATCH /v1/webhooks/{id}`: any of `url`, `events` and `secret`, and `status: "active"` to
 * enable a disabled subscription again (`disabled` → 409 `invalid_state_transition`).
 *
 * @since 0.1.0
 * @category requests
 */
export const UpdateWebhook = Schema.Struct({
  url: Schema.optional(Fields.url("The https URL events are posted to.", "https://hooks.acme.example/sendline")),
  events: Schema.optional(
    Schema.Array(Fields.text({ description: "An event type to receive.", examples: ["message.delivered"] }))
  ),
  secret: Schema.optional(
    Fields.text({ description: "The secret each delivery is signed with.", examples: ["whsec-0123456789abcdef"] })
  ),
  status: Schema.optional(SubscriptionStatus)
}).annotations({ identifier: "UpdateWebhook", parseOptions: { errors: "all" } })

/** Query of `GET /v1/webhooks`. @since 0.1.0 @category requests */
export const ListWebhooksQuery = PagingQuery

/** A subscription as the API answers it: never its secret. @since 0.1.0 @category schemas */
export const WebhookJson = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  status: SubscriptionStatus,
  created_at: TimestampJson
}).annotations({ identifier: "Webhook" })
/** A subscription as JSON. @since 0.1.0 @category models */
export type WebhookJson = typeof WebhookJson.Encoded

/** What `DELETE /v1/webhooks/{id}` answers. @since 0.1.0 @category schemas */
export const WebhookDeleted = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }).annotations({
  identifier: "WebhookDeleted"
})

/**
 * Body of `POST /v1/webhooks/{id}/redeliver`: `since`, an RFC 3339 date-time or a `YYYY-MM-DD` date
 * (its first instant, UTC), required.
 *
 * @since 0.1.0
 * @category requests
 */
export const RedeliverWebhook = Schema.Struct({
  since: DateFilter(false).annotations({
    description:
      "resend what failed for good or was skipped at or after this time: RFC 3339, or YYYY-MM-DD (its start, UTC)"
  })
}).annotations({ identifier: "RedeliverWebhook", parseOptions: { errors: "all" } })

/** What `POST /v1/webhooks/{id}/redeliver` answers. @since 0.1.0 @category schemas */
export const WebhookRedelivered = Schema.Struct({
  subscription_id: Schema.String,
  redelivered: Schema.Int.annotations({
    description: "how many events were resent, each as a new delivery from attempt 0"
  }),
  has_more: Schema.Boolean.annotations({
    description: `true when more remain than one call resends (${maxRedeliveredPerCall}): call again`
  })
}).annotations({ identifier: "WebhookRedelivered" })
