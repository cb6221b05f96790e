/**
 * Webhook subscriptions (CONTRACT §7): an account's URL, the event types it receives there, and the
 * secret that signs them. A subscription is its own `Signature.Secrets`: the current secret, and
 * for 24 hours after a change the one it replaced, both signing `webhook-signature`.
 *
 * @since 0.1.0
 */
import { SubscriptionStatus } from "@sendline/api/webhooks/WebhooksJson"
import { Schema } from "effect"
import { EventType } from "../Event.js"
import type * as Signature from "./Signature.js"

/**
 * A subscription's status: `active`, or `disabled` once its retry 6 has failed (CONTRACT §7); a
 * PATCH sets a disabled one `active` again.
 *
 * @since 0.1.0
 * @category models
 */
export { SubscriptionStatus } from "@sendline/api/webhooks/WebhooksJson"

/** The secret a subscription's current one replaced, and when. @since 0.1.0 @category models */
export const PreviousSecret = Schema.Struct({ secret: Schema.String, replacedAt: Schema.Number })
/** A replaced secret. @since 0.1.0 @category models */
export type PreviousSecret = typeof PreviousSecret.Type

/**
 * A subscription `wh_…` of `accountId`: where its events go (`url`), which (`events`, never
 * empty), signed with `secret`, and with `previous` (the secret it replaced, when there was one)
 * for the rotation overlap of `Signature`. Never answered with its secrets.
 *
 * @since 0.1.0
 * @category models
 */
export const Subscription = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  url: Schema.String,
  events: Schema.Array(EventType),
  secret: Schema.String,
  previous: Schema.optional(PreviousSecret),
  status: SubscriptionStatus,
  createdAt: Schema.Number
})
/** A subscription. @since 0.1.0 @category models */
export type Subscription = typeof Subscription.Type

/** The secrets of `subscription`, as `Signature.headers` signs with them. @since 0.1.0 @category signing */
export const secretsOf = ({ previous, secret }: Subscription): Signature.Secrets => ({ secret, previous })

/** The shortest and longest secret a subscription may have (CONTRACT §7). @since 0.1.0 @category constants */
export const secretLength = { min: 16, max: 256 } as const
