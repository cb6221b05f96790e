/**
 * Storage port for webhook subscriptions. Only what sending needs for now: whether the account
 * has an active subscription whose secret can sign `callback_url` deliveries (CONTRACT §7).
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { StoreUnavailable } from "../Errors.js"

/** Webhook subscriptions. @since 0.1.0 @category ports */
export class SubscriptionStore extends Context.Tag("@sendline/core/SubscriptionStore")<SubscriptionStore, {
  readonly hasActive: (accountId: string) => Effect.Effect<boolean, StoreUnavailable>
}>() {}
