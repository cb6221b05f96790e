/**
 * @since 0.1.0
 */

/**
 * The tables of the Sendline stores and their migrations, with the DDL words each database passes in.
 *
 * @since 0.1.0
 */
export * as Migrations from "./Migrations.js"

/**
 * How a table's rows map to the domain and back: one schema per table, an unreadable row a defect.
 *
 * @since 0.1.0
 */
export * as Rows from "./Rows.js"

/**
 * One database as the port modules use it: the client, the store's `Dialect`, failures as `StoreUnavailable`.
 *
 * @since 0.1.0
 */
export * as Database from "./Database.js"

/**
 * `AccountStore`: the accounts and API keys tables.
 *
 * @since 0.1.0
 */
export * as Accounts from "./accounts/Accounts.js"

/**
 * `SenderIdStore`: the Sender ID records table, written with their registrations and events.
 *
 * @since 0.1.0
 */
export * as SenderIds from "./senderIds/SenderIds.js"

/**
 * The operator registrations table of `SenderIdStore`, and the operators' list of them.
 *
 * @since 0.1.0
 */
export * as Registrations from "./senderIds/Registrations.js"

/**
 * `MessageStore`: the messages table, its outbox writes, transitions and claims.
 *
 * @since 0.1.0
 */
export * as Messages from "./messaging/Messages.js"

/**
 * `EventStore`: the events table.
 *
 * @since 0.1.0
 */
export * as Events from "./Events.js"

/**
 * `SubscriptionStore`: the webhook subscriptions table.
 *
 * @since 0.1.0
 */
export * as Subscriptions from "./webhooks/Subscriptions.js"

/**
 * `DeliveryStore`: the webhook deliveries table, fanned out of the events table (the outbox).
 *
 * @since 0.1.0
 */
export * as Deliveries from "./webhooks/Deliveries.js"

/**
 * `IdempotencyStore`: the idempotency keys table.
 *
 * @since 0.1.0
 */
export * as IdempotencyKeys from "./idempotency/IdempotencyKeys.js"

/**
 * `MailStore`: the mail outbox table, and `Mails.insert` for other writes to include their mails in.
 *
 * @since 0.1.0
 */
export * as Mails from "./mail/Mails.js"

/**
 * `BrandStore`: brands and their relationships.
 *
 * @since 0.1.0
 */
export * as Brands from "./brands/Brands.js"

/**
 * `OptOutStore`: the opt-outs table, keyed by account and number.
 *
 * @since 0.2.0
 */
export * as OptOuts from "./optOuts/OptOuts.js"

/**
 * `QueueDepths`: the workers' backlogs, read from the partial indexes they claim through.
 *
 * @since 0.1.0
 */
export * as Queues from "./Queues.js"

/**
 * Every storage port on one `SqlClient`, given a store's migration and `Dialect`.
 *
 * @since 0.1.0
 */
export * as SqlStore from "./SqlStore.js"

/**
 * Runs the work that concurrent fibers submit in shared batches (group commit, batched lookups).
 *
 * @since 0.1.0
 */
export * as Batcher from "./Batcher.js"
