/**
 * Sendline's core: the domain, its ports and its use cases. No I/O of its own. Modules are grouped
 * by capability in their order (docs/architecture.md): what they all share first, then idempotency, mail,
 * accounts, opt-outs, brands, Sender IDs, messaging, webhooks and admin, and the compositions last.
 *
 * @since 0.1.0
 */

// --- shared by every capability: errors, ids, time, pagination, markets, events, metrics, the rest ---
// (Errors, Timestamp and Permission are `@sendline/api`'s: the contract lives below core)
export * as Errors from "@sendline/api/Errors"
export * as Timestamp from "@sendline/api/Timestamp"
export * as Cursor from "./Cursor.js"
export * as Event from "./Event.js"
export * as EventStore from "./EventStore.js"
export * as Identifier from "./Identifier.js"
export * as Ids from "./Ids.js"
export * as Limits from "./Limits.js"
export * as Markets from "./Markets.js"
export * as Metrics from "./Metrics.js"
export * as Pagination from "./Pagination.js"
export * as Phone from "./Phone.js"
export * as QueueDepths from "./QueueDepths.js"
export * as Readiness from "./Readiness.js"
export * as UrlPolicy from "./UrlPolicy.js"

// --- idempotency: keys, their store, the purger and the second guard -----------------------------
export * as Idempotency from "./idempotency/Idempotency.js"
export * as IdempotencyPurger from "./idempotency/IdempotencyPurger.js"
export * as IdempotencyStore from "./idempotency/IdempotencyStore.js"

// --- mail: the outbox of e-mails, the mailer port and the worker that sends them -----------------
export * as Mail from "./mail/Mail.js"
export * as Mailer from "./mail/Mailer.js"
export * as MailSender from "./mail/MailSender.js"
export * as MailStore from "./mail/MailStore.js"

// --- accounts: organisations, API keys, authentication -------------------------------------------
export * as Permission from "@sendline/api/accounts/Permission"
export * as Account from "./accounts/Account.js"
export * as AccountStore from "./accounts/AccountStore.js"
export * as Auth from "./accounts/Auth.js"

// --- opt-outs: the numbers an account's messages must not reach (sending checks them) -------------
export * as OptOut from "./optOuts/OptOut.js"
export * as OptOuts from "./optOuts/OptOuts.js"
export * as OptOutStore from "./optOuts/OptOutStore.js"

// --- brands: brands, relationships, verification and contacts ------------------------------------
export * as Brand from "./brands/Brand.js"
export * as BrandJson from "./brands/BrandJson.js"
export * as Brands from "./brands/Brands.js"
export * as BrandStore from "./brands/BrandStore.js"
export * as BrandVerifier from "./brands/BrandVerifier.js"
export * as Contact from "./brands/Contact.js"
export * as RelationshipMail from "./brands/RelationshipMail.js"

// --- Sender IDs: registration, operator review, rules, lifecycle and expiry ----------------------
export * as DomainMatch from "./senderIds/DomainMatch.js"
export * as ExpiryWatcher from "./senderIds/ExpiryWatcher.js"
export * as Lifecycle from "./senderIds/Lifecycle.js"
export * as OperatorReview from "./senderIds/OperatorReview.js"
export * as Registration from "./senderIds/Registration.js"
export * as SenderId from "./senderIds/SenderId.js"
export * as SenderIdJson from "./senderIds/SenderIdJson.js"
export * as SenderIdRules from "./senderIds/SenderIdRules.js"
export * as SenderIds from "./senderIds/SenderIds.js"
export * as SenderIdStore from "./senderIds/SenderIdStore.js"

// --- messaging: messages, segments, the carrier, its delivery reports and the message workers ----
export * as Batch from "./messaging/Batch.js"
export * as Batches from "./messaging/Batches.js"
export * as Callbacks from "./messaging/Callbacks.js"
export * as Carrier from "./messaging/Carrier.js"
export * as DeliveryReportInbox from "./messaging/DeliveryReportInbox.js"
export * as DeliveryReports from "./messaging/DeliveryReports.js"
export * as Dispatcher from "./messaging/Dispatcher.js"
export * as Message from "./messaging/Message.js"
export * as MessageEvents from "./messaging/MessageEvents.js"
export * as MessageJson from "./messaging/MessageJson.js"
export * as MessageMetrics from "./messaging/MessageMetrics.js"
export * as MessageStore from "./messaging/MessageStore.js"
export * as Messaging from "./messaging/Messaging.js"
export * as MessagingConfig from "./messaging/MessagingConfig.js"
export * as Scheduler from "./messaging/Scheduler.js"
export * as Segments from "./messaging/Segments.js"
export * as SendChecks from "./messaging/SendChecks.js"
export * as Spending from "./messaging/Spending.js"
export * as SpendingStore from "./messaging/SpendingStore.js"
export * as Template from "./messaging/Template.js"

// --- routing: routes, and the router that is a carrier built from carriers -----------------------
export * as Router from "./routing/Router.js"
export * as Routes from "./routing/Routes.js"

// --- webhooks: subscriptions, the event log, routing, signing, delivery --------------------------
export * as Delivery from "./webhooks/Delivery.js"
export * as DeliveryStore from "./webhooks/DeliveryStore.js"
export * as EventLog from "./webhooks/EventLog.js"
export * as RetrySchedule from "./webhooks/RetrySchedule.js"
export * as Routing from "./webhooks/Routing.js"
export * as Signature from "./webhooks/Signature.js"
export { verifyWebhookSignature } from "./webhooks/Signature.js"
export * as Subscription from "./webhooks/Subscription.js"
export * as SubscriptionStore from "./webhooks/SubscriptionStore.js"
export * as WebhookDeliverer from "./webhooks/WebhookDeliverer.js"
export * as Webhooks from "./webhooks/Webhooks.js"
export * as WebhookTransport from "./webhooks/WebhookTransport.js"

// --- admin: accounts, keys and imported Sender IDs, as the CLI administers them ------------------
export * as Admin from "./admin/Admin.js"

// --- compositions: every store port, every use case, every worker, the caches, the demo ----------
export * as CachedLookups from "./CachedLookups.js"
export * as Demo from "./Demo.js"
export * as Services from "./Services.js"
export * as Stores from "./Stores.js"
export * as Workers from "./Workers.js"
