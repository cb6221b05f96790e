/**
 * What messaging asks before it accepts a message's `callback_url` (CONTRACT §3, §7): whether the
 * URL is one a webhook may go to, and whether the account can sign it. Webhooks answers
 * (`Webhooks.layerCallbacks`), so messaging knows nothing of URL policies or subscriptions.
 *
 * @since 0.1.0
 */
import type { RuleViolation, StoreUnavailable } from "@sendline/api/Errors"
import { Context, type Effect } from "effect"

/** The check of a `callback_url`. @since 0.1.0 @category services */
export class Callbacks extends Context.Tag("@sendline/core/Callbacks")<Callbacks, {
  /**
   * Succeeds when `url` may take the deliveries of `accountId`'s message; else `invalid_callback_url`
   * (too long, or not allowed) or `no_signing_secret` (no active subscription signs it), on `callback_url`.
   */
  readonly check: (accountId: string, url: string) => Effect.Effect<void, RuleViolation | StoreUnavailable>
}>() {}
