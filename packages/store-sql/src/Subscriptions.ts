/**
 * `SubscriptionStore` on SQL: the table `sendline_webhook_subscriptions`.
 *
 * @since 0.1.0
 */
import { SubscriptionStore } from "@sendline/core"
import type { Context } from "effect"
import { Effect } from "effect"
import type * as Database from "./Database.js"

/**
 * `SubscriptionStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = ({ read, sql }: Database.Database): Effect.Effect<Context.Tag.Service<SubscriptionStore.SubscriptionStore>> =>
  Effect.succeed(SubscriptionStore.SubscriptionStore.of({
    hasActive: (accountId) =>
      read(Effect.map(
        sql`SELECT 1 FROM sendline_webhook_subscriptions WHERE account_id = ${accountId} AND status = 'active' LIMIT 1`,
        (rows) => rows.length > 0
      ))
  }))
