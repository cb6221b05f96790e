/**
 * Storage port for webhook subscriptions: what the subscription endpoints write and read, and what
 * sending needs, whether the account has an active subscription and the oldest one's secrets,
 * which sign `callback_url` deliveries (CONTRACT §7). A deleted subscription is gone from every
 * method; the store keeps its row without its secrets (for the delivery log).
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { EventType } from "../Event.js"
import type { Keyset } from "../Pagination.js"
import type { Subscription } from "./Subscription.js"

/** Webhook subscriptions. @since 0.1.0 @category ports */
export class SubscriptionStore extends Context.Tag("@sendline/core/SubscriptionStore")<SubscriptionStore, {
  /** Whether the account has an active subscription (one whose secret can sign `callback_url` deliveries). */
  readonly hasActive: (accountId: string) => Effect.Effect<boolean, StoreUnavailable>
  /** The account's oldest active subscription (createdAt, then id), if any: its secrets sign `callback_url` deliveries. */
  readonly oldestActive: (accountId: string) => Effect.Effect<Option.Option<Subscription>, StoreUnavailable>
  /** The live subscriptions (active or disabled, not deleted) of the accounts, in no set order: whom their events go to. */
  readonly forAccounts: (
    accountIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Subscription>, StoreUnavailable>
  /**
   * Inserts a new subscription unless its account has `max` live ones (active or disabled) already;
   * whether it did. Inserts of one account are counted one after the other, in every process, so
   * that `max` holds however many run at once.
   */
  readonly insert: (subscription: Subscription, max: number) => Effect.Effect<boolean, StoreUnavailable>
  /** The subscription `id`, whoever's it is (the use case decides who may see it); none once deleted. */
  readonly findById: (id: string) => Effect.Effect<Option.Option<Subscription>, StoreUnavailable>
  /** The account's subscriptions, newest first (createdAt desc, id desc), after `after`. */
  readonly list: (
    accountId: string,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Subscription>, StoreUnavailable>
  /**
   * Applies `change` to the subscription `id` in one statement, unless it is deleted, and answers it
   * as stored then. A `secret` that differs from the stored one replaces it, the stored one becoming
   * `previous` with `replacedAt = at` (the same secret again changes nothing); `reactivate` sets the
   * status `active`, else the status stays as stored (a delivery may disable it meanwhile).
   */
  readonly update: (
    id: string,
    change: Change,
    at: number
  ) => Effect.Effect<Option.Option<Subscription>, StoreUnavailable>
  /**
   * Deletes the subscription `id` at `at`, and forgets its secrets; its pending deliveries become
   * `skipped`, in the same transaction. Whether it was there to delete.
   */
  readonly delete: (id: string, at: number) => Effect.Effect<boolean, StoreUnavailable>
}>() {}

/** What a PATCH changes: the fields given, and whether it sets the status `active`. @since 0.1.0 @category models */
export interface Change {
  readonly url?: string | undefined
  readonly events?: ReadonlyArray<EventType> | undefined
  readonly secret?: string | undefined
  readonly reactivate: boolean
}
