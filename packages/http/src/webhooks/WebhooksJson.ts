/**
 * The webhooks group's answers as JSON: a subscription, never with its secret, and what a
 * redelivery did. Their schemas are `@sendline/api`'s `WebhooksJson`.
 *
 * @since 0.1.0
 */
import type { WebhookJson, WebhookRedelivered } from "@sendline/api/webhooks/WebhooksJson"
import { type Subscription, Timestamp, type Webhooks } from "@sendline/core"

/** `s` as JSON, without its secrets. @since 0.1.0 @category encoding */
export const webhook = (s: Subscription.Subscription): WebhookJson => ({
  id: s.id,
  url: s.url,
  events: s.events,
  status: s.status,
  created_at: Timestamp.format(s.createdAt)
})

/** What a redelivery of subscription `id` did, as JSON. @since 0.1.0 @category encoding */
export const redelivered = (id: string, r: Webhooks.Redelivered): typeof WebhookRedelivered.Encoded => ({
  subscription_id: id,
  redelivered: r.redelivered,
  has_more: r.hasMore
})
