/**
 * Sendline's `/v1` API as code: CONTRACT's errors with their codes, the one error table, the
 * envelopes, every resource's JSON, the middleware's declarations and each group's endpoints,
 * composed in `Api`. It depends on `effect` and `@effect/platform` only: the server
 * (`@sendline/http`) serves it, the typed client (`@sendline/client`) calls it, and core uses its
 * schemas and errors. Folders are named as core's capabilities and the server's groups, from the
 * bottom up: what they all share, `envelope/`, `accounts/`, `middleware/`, then the groups.
 *
 * @since 0.2.0
 */

// --- shared: the errors, timestamps and event types -----------------------------------------------
export * as Errors from "./Errors.js"
export * as Event from "./Event.js"
export * as Timestamp from "./Timestamp.js"

// --- envelope: the envelopes, the error table, fields, the wire errors, the OpenAPI conventions ---
export * as ApiDocs from "./envelope/ApiDocs.js"
export * as Envelope from "./envelope/Envelope.js"
export * as ErrorCodes from "./envelope/ErrorCodes.js"
export * as Fields from "./envelope/Fields.js"
export * as WireErrors from "./envelope/WireErrors.js"

// --- accounts: the kinds of account, permissions, the caller ---------------------------------------
export * as Account from "./accounts/Account.js"
export * as Permission from "./accounts/Permission.js"

// --- middleware: what every /v1 group declares (authentication, the body check) -------------------
export * as Pipeline from "./middleware/Pipeline.js"

// --- the groups: each one's JSON and endpoints -----------------------------------------------------
export * as BrandJson from "./brands/BrandJson.js"
export * as BrandRelationshipsApi from "./brands/BrandRelationshipsApi.js"
export * as BrandRelationshipsJson from "./brands/BrandRelationshipsJson.js"
export * as BrandsApi from "./brands/BrandsApi.js"
export * as BrandsJson from "./brands/BrandsJson.js"
export * as HealthApi from "./health/HealthApi.js"
export * as BatchesJson from "./messaging/BatchesJson.js"
export * as MessageJson from "./messaging/MessageJson.js"
export * as MessagesApi from "./messaging/MessagesApi.js"
export * as MessagesJson from "./messaging/MessagesJson.js"
export * as UsageApi from "./messaging/UsageApi.js"
export * as MetricsApi from "./metrics/MetricsApi.js"
export * as OptOutsApi from "./optOuts/OptOutsApi.js"
export * as OptOutsJson from "./optOuts/OptOutsJson.js"
export * as OperatorRegistrationsApi from "./senderIds/OperatorRegistrationsApi.js"
export * as OperatorRegistrationsJson from "./senderIds/OperatorRegistrationsJson.js"
export * as SenderIdJson from "./senderIds/SenderIdJson.js"
export * as SenderIdsApi from "./senderIds/SenderIdsApi.js"
export * as SenderIdsJson from "./senderIds/SenderIdsJson.js"
export * as DeliveriesJson from "./webhooks/DeliveriesJson.js"
export * as EventsApi from "./webhooks/EventsApi.js"
export * as EventsJson from "./webhooks/EventsJson.js"
export * as WebhooksApi from "./webhooks/WebhooksApi.js"
export * as WebhooksJson from "./webhooks/WebhooksJson.js"

// --- the whole API ----------------------------------------------------------------------------------
export * as Api from "./Api.js"
