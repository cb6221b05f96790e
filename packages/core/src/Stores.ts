/**
 * The storage ports together: what a Sendline store (`@sendline/store-sqlite`,
 * `@sendline/store-postgres`, or an embedder's own) provides, and what `Services` needs; with
 * `Readiness`, its check that the database answers and is migrated.
 *
 * @since 0.1.0
 */
import type { AccountStore } from "./accounts/AccountStore.js"
import type { BrandStore } from "./brands/BrandStore.js"
import type { EventStore } from "./EventStore.js"
import type { IdempotencyStore } from "./idempotency/IdempotencyStore.js"
import type { MailStore } from "./mail/MailStore.js"
import type { MessageStore } from "./messaging/MessageStore.js"
import type { SpendingStore } from "./messaging/SpendingStore.js"
import type { OptOutStore } from "./optOuts/OptOutStore.js"
import type { QueueDepths } from "./QueueDepths.js"
import type { Readiness } from "./Readiness.js"
import type { SenderIdStore } from "./senderIds/SenderIdStore.js"
import type { DeliveryStore } from "./webhooks/DeliveryStore.js"
import type { SubscriptionStore } from "./webhooks/SubscriptionStore.js"

/** Every store port a Sendline store provides, and its readiness check. @since 0.1.0 @category models */
export type Stores =
  | AccountStore
  | MessageStore
  | EventStore
  | SenderIdStore
  | SubscriptionStore
  | DeliveryStore
  | IdempotencyStore
  | BrandStore
  | MailStore
  | OptOutStore
  | SpendingStore
  | QueueDepths
  | Readiness
