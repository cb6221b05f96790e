/**
 * Every use case in one layer, for embedders and the server: provide a store, and optionally your
 * own markets, id generator, messaging settings and brand verifier. `layer` provides the defaults
 * itself (and the mailer that logs, `Mailer.layerLog`, which the workers' MailSender sends through), so
 * settings given to it are not seen; to give your own, build on `layerWithoutDefaults`:
 *
 * ```ts
 * Services.layerWithoutDefaults.pipe(
 *   Layer.provideMerge(Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer({ maxSegments: 3 }))),
 *   Layer.provideMerge(SqliteStore.layerSqlite({ filename: "sendline.sqlite" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { FiberRef, Layer } from "effect"
import * as Auth from "./accounts/Auth.js"
import * as Admin from "./admin/Admin.js"
import * as Brands from "./brands/Brands.js"
import * as BrandVerifier from "./brands/BrandVerifier.js"
import * as CachedLookups from "./CachedLookups.js"
import * as Idempotency from "./idempotency/Idempotency.js"
import * as Ids from "./Ids.js"
import * as Mailer from "./mail/Mailer.js"
import * as Markets from "./Markets.js"
import * as Batches from "./messaging/Batches.js"
import * as Messaging from "./messaging/Messaging.js"
import * as MessagingConfig from "./messaging/MessagingConfig.js"
import * as Spending from "./messaging/Spending.js"
import * as OptOuts from "./optOuts/OptOuts.js"
import * as OperatorReview from "./senderIds/OperatorReview.js"
import * as SenderIds from "./senderIds/SenderIds.js"
import type { Stores } from "./Stores.js"
import * as EventLog from "./webhooks/EventLog.js"
import * as Webhooks from "./webhooks/Webhooks.js"

/** The use cases. @since 0.1.0 @category models */
export type UseCases =
  | Messaging.Messaging
  | Batches.Batches
  | Brands.Brands
  | SenderIds.SenderIds
  | OperatorReview.OperatorReview
  | Auth.Auth
  | Admin.Admin
  | Idempotency.Idempotency
  | Webhooks.Webhooks
  | EventLog.EventLog
  | OptOuts.OptOuts
  | Spending.Spending

/**
 * The use cases over a store, without their defaults: the caller provides the markets, the id
 * generator, the messaging settings and the brand verifier. They read API keys and registered Sender IDs through
 * `CachedLookups` (five seconds; see there for what that means).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutDefaults: Layer.Layer<
  UseCases,
  never,
  Stores | Markets.Markets | Ids.IdGenerator | MessagingConfig.MessagingConfig | BrandVerifier.BrandVerifier
> = Layer.mergeAll(
  Layer.provide(Layer.merge(Messaging.layer, Batches.layer), Webhooks.layerCallbacks),
  Layer.provideMerge(SenderIds.layer, Brands.layer),
  OperatorReview.layer,
  Auth.layer,
  Admin.layer,
  Idempotency.layer,
  Webhooks.layer,
  EventLog.layer,
  OptOuts.layer,
  Spending.layer
).pipe(Layer.provide(CachedLookups.layer()))

/**
 * The use cases over a store, with default markets, ULIDs and default settings, the brand verifier
 * that decides at once (`BrandVerifier.layer`), and the mailer that logs each mail
 * (`Mailer.layerLog`): the workers send through it unless a mailer of your own is provided to them first.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  | UseCases
  | Markets.Markets
  | Ids.IdGenerator
  | MessagingConfig.MessagingConfig
  | BrandVerifier.BrandVerifier
  | Mailer.Mailer,
  never,
  Stores
> = Layer.provideMerge(
  layerWithoutDefaults,
  Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer(), BrandVerifier.layer, Mailer.layerLog)
)

/**
 * `self` built with tracing off, so that its use cases are made without spans
 * (`Effect.fnUntraced` rather than `Effect.fn`): 10–20 µs less per call, as much as a send's own
 * checks. For a server that exports no traces; built with tracing on (Effect's default), every use
 * case call is a span named after it ("Messaging.send").
 *
 * @since 0.1.0
 * @category layers
 */
export const withoutSpans = <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.locally(FiberRef.currentTracerEnabled, false)(self)
