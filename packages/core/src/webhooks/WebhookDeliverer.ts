/**
 * The WebhookDeliverer worker (CONTRACT §7): turns the event log into deliveries and makes them,
 * signed, on the retry schedule.
 *
 * Each pass records the attempts that came back (`DeliveryStore.settle`, one transaction for all),
 * fans out the events not fanned out yet (`Routing`: each to its message's callback URL or to the
 * subscriptions that asked for its type), then claims due deliveries for its free slots and starts
 * their attempts in the background, so that a receiver that takes its 10 seconds holds one slot,
 * not the pass. At most `concurrency` attempts are in flight in a process, at most
 * `perDestination` to one subscription or callback URL and at most `perAccount` of one account in
 * all processes (the claim counts the others' claims): a receiver that never answers cannot take
 * every slot, nor can an account whose receivers never answer take the other accounts'.
 *
 * An attempt is recorded with what follows from it: a 2xx answer `succeeded`; anything else
 * `failed`, with its retry on `RetrySchedule` (30 s, 2 min, 15 min, 1 h, 4 h, 24 h after each
 * failure); when retry 6 of a subscription's delivery fails, the subscription is disabled, its
 * pending deliveries skipped, and its account's admin mailed once. A callback's chain just ends.
 * At least once: an attempt in flight when the process dies is claimed again when its lease ends.
 * Each recorded attempt is counted by outcome (`sendline_webhook_attempts`), each disable too.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import * as Timestamp from "@sendline/api/Timestamp"
import { Clock, Context, Effect, Either, FiberSet, Layer, Option, Queue } from "effect"
import { AccountStore } from "../accounts/AccountStore.js"
import * as Event from "../Event.js"
import { IdGenerator } from "../Ids.js"
import * as Progress from "../internal/progress.js"
import * as Worker from "../internal/worker.js"
import * as Mail from "../mail/Mail.js"
import * as Metrics from "../Metrics.js"
import * as Delivery from "./Delivery.js"
import { type Claimed, DeliveryStore, type Settlement } from "./DeliveryStore.js"
import * as RetrySchedule from "./RetrySchedule.js"
import * as Routing from "./Routing.js"
import * as Signature from "./Signature.js"
import { secretsOf, type Subscription } from "./Subscription.js"
import { SubscriptionStore } from "./SubscriptionStore.js"
import { WebhookTransport } from "./WebhookTransport.js"

/**
 * WebhookDeliverer settings: those of every worker that claims (a batch is of events fanned out,
 * and of deliveries claimed), and its attempts in flight.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Worker.Leased {
  /** Attempts in flight in this process at most. */
  readonly concurrency: number
  /** Attempts in flight to one subscription or callback URL at most, in every process together. */
  readonly perDestination: number
  /** Attempts in flight of one account at most, in every process together. */
  readonly perAccount: number
  /**
   * Clock time a pass waits at most once an attempt has ended, for others to end meanwhile (it goes
   * at once when as many have ended as are still in flight): the pass then records and replaces
   * them together, one transaction and one claim for several.
   */
  readonly gatherMillis: number
}

/**
 * The default settings: batches of 256, 64 attempts in flight, 16 to one destination, 32 of one
 * account (half a process's: the others keep the other half, whatever one account's receivers do;
 * why, docs/decisions.md), the 30 s leases of every worker that claims (longer than an attempt may
 * take: the transport's 10 s), a pass every 100 ms (the time from an event's commit to its first
 * attempt is mostly this wait), or within 5 ms after an attempt ends.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = {
  ...Worker.leasedDefaults,
  batchSize: 256,
  concurrency: 64,
  perDestination: 16,
  perAccount: 32,
  pollMillis: 100,
  gatherMillis: 5
}

/**
 * The WebhookDeliverer worker: a pass fans out pending events, claims due deliveries and attempts
 * them. `runOnce` awaits its attempts, records them and counts them; `run` leaves them in the
 * background and records those that came back, also when it stops.
 *
 * @since 0.1.0
 * @category services
 */
export class WebhookDeliverer
  extends Context.Tag("@sendline/core/WebhookDeliverer")<WebhookDeliverer, Worker.Worker<StoreUnavailable>>()
{}

type Outcome = "succeeded" | "failed" | "skipped" | "disabled"

const describe = (counts: ReadonlyMap<Outcome, number>): string =>
  [...counts].map(([outcome, n], i) =>
    outcome === "disabled"
      ? `${n} ${n === 1 ? "subscription" : "subscriptions"} disabled`
      : i === 0
      ? `${n} ${n === 1 ? "delivery" : "deliveries"} ${outcome}`
      : `${n} ${outcome}`
  ).join(", ")

/** The mail that tells the admin at `to` that `subscription` is disabled, after `delivery`, its retry 6, failed. */
const disabledMail = (to: string, subscription: Subscription, delivery: Delivery.Delivery): Mail.Draft => ({
  to,
  subject: `Sendline: webhook ${subscription.url} disabled`,
  text: [
    `Your webhook subscription ${subscription.id} to ${subscription.url} has been disabled.`,
    "",
    `The delivery of event ${delivery.eventId} (${delivery.eventType}) failed on all ${
      RetrySchedule.maxRetries + 1
    } attempts (the first and ${RetrySchedule.maxRetries} retries), failing since ${
      Timestamp.format(delivery.failingSince ?? delivery.attemptedAt ?? delivery.createdAt)
    }; the last attempt, at ${Timestamp.format(delivery.attemptedAt ?? delivery.createdAt)}, got: ${
      Delivery.describeResult(delivery)
    }.`,
    "",
    "Events that occur while it is disabled are recorded as skipped deliveries.",
    `To resume: PATCH /v1/webhooks/${subscription.id} with {"status": "active"}; then`,
    `POST /v1/webhooks/${subscription.id}/redeliver with {"since": "<time>"} resends what failed or was skipped since then.`
  ].join("\n")
})

/** The services a pass works with, as its steps take them. */
interface Deps {
  readonly store: Context.Tag.Service<DeliveryStore>
  readonly subscriptions: Context.Tag.Service<SubscriptionStore>
  readonly accounts: Context.Tag.Service<AccountStore>
  readonly transport: Context.Tag.Service<WebhookTransport>
  readonly ids: Context.Tag.Service<IdGenerator>
}

/** Fans out up to `batchSize` events not fanned out yet, each to its deliveries (`Routing`), in one write; how many events it read. */
const fanOut = ({ ids, store, subscriptions }: Deps, batchSize: number): Effect.Effect<number, StoreUnavailable> =>
  Effect.gen(function*() {
    const pending = yield* store.pendingEvents(batchSize)
    if (pending.length === 0) return 0
    const accountIds = [...new Set(pending.map(({ event }) => event.accountId))]
    const live = yield* subscriptions.forAccounts(accountIds)
    const at = yield* Clock.currentTimeMillis
    const fanOuts = yield* Effect.forEach(
      pending,
      (routed) =>
        Effect.map(Routing.deliveriesOf(routed, live, at), (deliveries) => ({ eventId: routed.event.id, deliveries }))
    )
    yield* store.fanOut(fanOuts, at)
    return pending.length
  }).pipe(Effect.provideService(IdGenerator, ids))

/**
 * The disable a failed `attempted` causes: when it was retry 6 of a subscription's delivery,
 * the mail to its account's admin (no account, no mail: the subscription is disabled all the same).
 */
const disableOf = (
  accounts: Context.Tag.Service<AccountStore>,
  attempted: Delivery.Delivery,
  subscription: Subscription
) =>
  Effect.gen(function*() {
    if (!Delivery.disablesSubscription(attempted)) {
      return Option.none()
    }
    const account = yield* accounts.findAccount(attempted.accountId)
    const to = Option.match(account, {
      onNone: () => "",
      onSome: (a) => a.adminEmail
    })
    return Option.some(yield* Mail.make(disabledMail(to, subscription, attempted)))
  })

/**
 * One attempt and what follows from it, as its settlement, never recorded here. A subscription's
 * delivery whose subscription is no longer active is skipped; a callback's without a signing secret
 * fails `no_signing_secret`.
 */
const attempt = (
  { accounts, ids, transport }: Deps,
  { delivery, event, signer }: Claimed
): Effect.Effect<Settlement, StoreUnavailable> =>
  Effect.gen(function*() {
    const none = { retry: Option.none(), disable: Option.none() }
    if (delivery.subscriptionId !== undefined && (Option.isNone(signer) || signer.value.status !== "active")) {
      return { attempted: Delivery.skipped(delivery), ...none }
    }
    const url = delivery.callbackUrl ?? Option.getOrThrow(signer).url
    const at = yield* Clock.currentTimeMillis
    const outcome: Delivery.Outcome = yield* Option.match(signer, {
      onNone: () => Effect.succeed({ _tag: "Unsigned" } as const),
      onSome: (subscription) => {
        const body = Event.body(event)
        const headers = Signature.headers(secretsOf(subscription), {
          eventId: event.id,
          eventType: event.type,
          attempt: delivery.attempt,
          body,
          at
        })
        return Effect.map(
          Effect.either(transport.post({ url, headers, body })),
          Either.match({
            onLeft: (failure) => ({ _tag: "Failed", failure }) as const,
            onRight: (response) => ({ _tag: "Answered", response }) as const
          })
        )
      }
    })
    const settledAt = yield* Clock.currentTimeMillis
    const attempted = Delivery.attempted(delivery, url, at, outcome, settledAt)
    return {
      attempted,
      retry: yield* Delivery.retryOf(attempted, settledAt),
      disable: Option.isSome(signer) && delivery.subscriptionId !== undefined
        ? yield* disableOf(accounts, attempted, signer.value)
        : Option.none()
    }
  }).pipe(Effect.provideService(IdGenerator, ids))

/** Writes `settlements` in one transaction, then counts in `progress` and the metrics, and logs each disable, of those it recorded. */
const record = (
  store: Context.Tag.Service<DeliveryStore>,
  progress: Progress.Progress<Outcome>,
  settlements: ReadonlyArray<Settlement>
) =>
  Effect.gen(function*() {
    if (settlements.length === 0) return
    const recorded = yield* store.settle(settlements)
    for (const [i, { attempted, disable }] of settlements.entries()) {
      if (!recorded[i]) continue
      progress.count(attempted.state as Outcome)
      yield* Metrics.webhookAttemptRecorded(attempted.state as Metrics.WebhookOutcome, Option.isSome(disable))
      if (Option.isSome(disable)) {
        progress.count("disabled")
        yield* Effect.logWarning(
          `WebhookDeliverer: subscription ${attempted.subscriptionId} disabled: retry ${attempted.attempt} of ${attempted.eventId} failed (${
            Delivery.describeResult(attempted)
          }); its account's admin is mailed`
        )
      }
    }
  })

/** Builds the WebhookDeliverer with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<
  Context.Tag.Service<WebhookDeliverer>,
  never,
  DeliveryStore | SubscriptionStore | AccountStore | WebhookTransport | IdGenerator
> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const store = yield* DeliveryStore
    const subscriptions = yield* SubscriptionStore
    const accounts = yield* AccountStore
    const transport = yield* WebhookTransport
    const ids = yield* IdGenerator
    const deps: Deps = { store, subscriptions, accounts, transport, ids }
    const progress = Progress.make<Outcome>("WebhookDeliverer", describe)

    const claim = (limit: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        store.claim(now, limit, now + settings.leaseMillis, settings.perDestination, settings.perAccount))

    // `runOnce`'s pass: its attempts awaited, then recorded.
    const pass = Effect.gen(function*() {
      yield* fanOut(deps, settings.batchSize)
      const claimed = yield* claim(settings.batchSize)
      const settlements = yield* Effect.forEach(claimed, (c) =>
        attempt(deps, c), { concurrency: settings.concurrency })
      yield* record(store, progress, settlements)
      yield* progress.log(false)
      return { taken: claimed.length }
    })

    // `run`'s passes: attempts in the background, recorded by the next pass.
    const background = Effect.gen(function*() {
      const finished: Array<Settlement> = []
      const ended = yield* Queue.sliding<void>(1)
      const enough = yield* Queue.sliding<void>(1)
      const attempts = yield* FiberSet.make<void, never>()
      let inFlight = 0

      // Attempts run in the background; each leaves its settlement for the next pass and wakes it.
      const start = (claimed: Claimed) =>
        FiberSet.run(
          attempts,
          attempt(deps, claimed).pipe(
            Effect.tap((settlement) => Effect.sync(() => finished.push(settlement))),
            Effect.catchAll((error) =>
              Effect.logWarning(
                `WebhookDeliverer: ${claimed.delivery.id} not settled; tried again when its lease ends`,
                error
              )
            ),
            Effect.ensuring(Effect.suspend(() => {
              inFlight--
              return Effect.zipRight(
                ended.offer(undefined),
                finished.length >= inFlight ? enough.offer(undefined) : Effect.void
              )
            }))
          )
        )

      // What came back is written first; on a failure it is kept for the next pass.
      const recordFinished = Effect.suspend(() => {
        const done = finished.splice(0)
        return Effect.tapError(record(store, progress, done), () => Effect.sync(() => finished.unshift(...done)))
      })

      const starting = Effect.gen(function*() {
        yield* recordFinished
        const fanned = yield* fanOut(deps, settings.batchSize)
        const free = Math.min(settings.concurrency - inFlight, settings.batchSize)
        const claimed = free > 0 ? yield* claim(free) : []
        for (const c of claimed) {
          inFlight++
          yield* start(c)
        }
        return {
          taken: fanned + claimed.length,
          full: fanned === settings.batchSize || (free > 0 && claimed.length === free)
        }
      })

      // stopping: the attempts in flight are interrupted (claimed again after their lease), those
      // that came back are recorded
      yield* Effect.addFinalizer(() =>
        Effect.zipRight(
          FiberSet.clear(attempts),
          Effect.catchAll(recordFinished, (error) =>
            Effect.logWarning(
              "WebhookDeliverer: the last attempts were not recorded; tried again when their lease ends",
              error
            ))
        )
      )

      return {
        pass: starting,
        wake: Effect.zipRight(ended.take, Effect.race(Effect.sleep(settings.gatherMillis), enough.take))
      }
    })

    return WebhookDeliverer.of(
      Worker.make("WebhookDeliverer", settings, { pass, logProgress: progress.log, background })
    )
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (
  options: Partial<Options> = {}
): Layer.Layer<
  WebhookDeliverer,
  never,
  DeliveryStore | SubscriptionStore | AccountStore | WebhookTransport | IdGenerator
> => Layer.effect(WebhookDeliverer, make(options))
