/**
 * The workers together: the message workers (Dispatcher, Scheduler, DeliveryReports), the
 * IdempotencyPurger, the MailSender, the ExpiryWatcher and the WebhookDeliverer, each a fiber
 * looping over due work on the Clock. Start them
 * beside a server or inside an embedding service; they stop when their scope closes, after
 * recording the carrier answers, reports and mail attempts of the pass in flight (reports
 * DeliveryReports holds for a later pass are lost with the process).
 *
 * @since 0.1.0
 */
import type { ConfigError } from "effect"
import { Config, Effect, Layer } from "effect"
import type * as Scope from "effect/Scope"
import type { AccountStore } from "./accounts/AccountStore.js"
import * as IdempotencyPurger from "./idempotency/IdempotencyPurger.js"
import type { IdempotencyStore } from "./idempotency/IdempotencyStore.js"
import type { IdGenerator } from "./Ids.js"
import type { Mailer } from "./mail/Mailer.js"
import * as MailSender from "./mail/MailSender.js"
import type { MailStore } from "./mail/MailStore.js"
import type { Carrier } from "./messaging/Carrier.js"
import type { DeliveryReportInbox } from "./messaging/DeliveryReportInbox.js"
import * as DeliveryReports from "./messaging/DeliveryReports.js"
import * as Dispatcher from "./messaging/Dispatcher.js"
import type { MessageStore } from "./messaging/MessageStore.js"
import * as Scheduler from "./messaging/Scheduler.js"
import type { OptOutStore } from "./optOuts/OptOutStore.js"
import * as ExpiryWatcher from "./senderIds/ExpiryWatcher.js"
import type { SenderIdStore } from "./senderIds/SenderIdStore.js"
import type { DeliveryStore } from "./webhooks/DeliveryStore.js"
import type { SubscriptionStore } from "./webhooks/SubscriptionStore.js"
import * as WebhookDeliverer from "./webhooks/WebhookDeliverer.js"
import type { WebhookTransport } from "./webhooks/WebhookTransport.js"

/** Settings of each worker, over its defaults. @since 0.1.0 @category models */
export interface Options {
  readonly dispatcher?: Partial<Dispatcher.Options>
  readonly scheduler?: Partial<Scheduler.Options>
  readonly deliveryReports?: Partial<DeliveryReports.Options>
  readonly idempotencyPurger?: Partial<IdempotencyPurger.Options>
  readonly mailSender?: Partial<MailSender.Options>
  readonly expiryWatcher?: Partial<ExpiryWatcher.Options>
  readonly webhookDeliverer?: Partial<WebhookDeliverer.Options>
}

/** The seven worker services. @since 0.1.0 @category models */
export type Workers =
  | Dispatcher.Dispatcher
  | Scheduler.Scheduler
  | DeliveryReports.DeliveryReports
  | IdempotencyPurger.IdempotencyPurger
  | MailSender.MailSender
  | ExpiryWatcher.ExpiryWatcher
  | WebhookDeliverer.WebhookDeliverer

/** What the workers need: a store, a carrier, its delivery reports, ids, a mailer and a webhook transport. @since 0.1.0 @category models */
export type Requirements =
  | MessageStore
  | SenderIdStore
  | OptOutStore
  | IdempotencyStore
  | MailStore
  | Carrier
  | DeliveryReportInbox
  | IdGenerator
  | Mailer
  | AccountStore
  | SubscriptionStore
  | DeliveryStore
  | WebhookTransport

/** Runs the seven loops in the foreground until interrupted. @since 0.1.0 @category runners */
export const run: Effect.Effect<never, never, Workers> = Effect.gen(function*() {
  const dispatcher = yield* Dispatcher.Dispatcher
  const scheduler = yield* Scheduler.Scheduler
  const reports = yield* DeliveryReports.DeliveryReports
  const purger = yield* IdempotencyPurger.IdempotencyPurger
  const mail = yield* MailSender.MailSender
  const expiry = yield* ExpiryWatcher.ExpiryWatcher
  const webhooks = yield* WebhookDeliverer.WebhookDeliverer
  yield* Effect.all([dispatcher.run, scheduler.run, reports.run, purger.run, mail.run, expiry.run, webhooks.run], {
    concurrency: "unbounded",
    discard: true
  })
  // never reached: each loop ends only by interruption
  return yield* Effect.never
})

/** Forks the seven loops into the current scope; closing it interrupts them. @since 0.1.0 @category runners */
export const start: Effect.Effect<void, never, Workers | Scope.Scope> = Effect.asVoid(Effect.forkScoped(run))

/** One pass of each worker in lifecycle order; returns how many items each took. @since 0.1.0 @category runners */
export const runOnce = Effect.gen(function*() {
  const scheduled = yield* (yield* Scheduler.Scheduler).runOnce
  const dispatched = yield* (yield* Dispatcher.Dispatcher).runOnce
  const reports = yield* (yield* DeliveryReports.DeliveryReports).runOnce
  const purged = yield* (yield* IdempotencyPurger.IdempotencyPurger).runOnce
  const mailed = yield* (yield* MailSender.MailSender).runOnce
  const watched = yield* (yield* ExpiryWatcher.ExpiryWatcher).runOnce
  const delivered = yield* (yield* WebhookDeliverer.WebhookDeliverer).runOnce
  return { scheduled, dispatched, reports, purged, mailed, watched, delivered }
})

/** The seven worker services, not started. @since 0.1.0 @category layers */
export const layerServices = (options: Options = {}): Layer.Layer<Workers, never, Requirements> =>
  Layer.mergeAll(
    Dispatcher.layer(options.dispatcher),
    Scheduler.layer(options.scheduler),
    DeliveryReports.layer(options.deliveryReports),
    IdempotencyPurger.layer(options.idempotencyPurger),
    MailSender.layer(options.mailSender),
    ExpiryWatcher.layer(options.expiryWatcher),
    WebhookDeliverer.layer(options.webhookDeliverer)
  )

/**
 * The seven workers, started: they run while the layer's scope is open and are interrupted
 * cleanly when it closes. The services stay available, e.g. for `runOnce` in a health check.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Workers, never, Requirements> =>
  Layer.scopedDiscard(start).pipe(Layer.provideMerge(layerServices(options)))

/** `layer` with the options read from `config`. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Workers, ConfigError.ConfigError, Requirements> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
