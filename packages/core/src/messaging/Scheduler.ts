/**
 * The Scheduler worker (CONTRACT §3): claims `scheduled` messages whose `scheduled_at` has come and
 * moves them to `queued`, emitting `message.queued`. A cancel racing it is settled by the store's
 * conditional transition: exactly one of the two moves the message.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Either, Layer } from "effect"
import type { StoreUnavailable } from "../Errors.js"
import { IdGenerator } from "../Ids.js"
import * as Transition from "../internal/transition.js"
import { loop } from "../internal/worker.js"
import { MessageStore } from "./MessageStore.js"

/** Scheduler settings. @since 0.1.0 @category models */
export interface Options {
  /** Messages claimed per pass. */
  readonly batchSize: number
  /** How long a claim holds a message. */
  readonly leaseMillis: number
  /** Clock time between passes when the last one found less than a full batch. */
  readonly pollMillis: number
}

/** The default settings: batches of 100, 30 s leases, 1 s polls. @since 0.1.0 @category constants */
export const defaults: Options = { batchSize: 100, leaseMillis: 30_000, pollMillis: 1_000 }

/** The Scheduler worker. @since 0.1.0 @category services */
export class Scheduler extends Context.Tag("@sendline/core/Scheduler")<Scheduler, {
  /** One pass: queues the scheduled messages due now; returns how many it claimed. */
  readonly runOnce: Effect.Effect<number, StoreUnavailable>
  /** Passes forever, sleeping `pollMillis` of Clock time between them; ends only by interruption. */
  readonly run: Effect.Effect<never>
}>() {}

/** Builds the Scheduler worker with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Tag.Service<Scheduler>, never, MessageStore | IdGenerator> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const messages = yield* MessageStore

    const transition = yield* Transition.make("Scheduler")

    // A lost move was a cancel that won the race; a failed record leaves the whole batch
    // scheduled, claimed until its lease ends.
    const pass = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* messages.claim("schedule", now, settings.batchSize, now + settings.leaseMillis)
      const recorded = yield* Effect.either(transition.move(claimed.map((m) => ({ next: { ...m, status: "queued" }, from: "scheduled" }))))
      if (Either.isLeft(recorded)) {
        yield* Effect.logWarning(`Scheduler: could not queue ${claimed.length} messages; retrying after the lease`, recorded.left)
      }
      return { taken: claimed.length, full: claimed.length === settings.batchSize, backOff: Either.isLeft(recorded) }
    })

    const runOnce = Effect.map(pass, (p) => p.taken).pipe(Effect.withSpan("Scheduler.runOnce"))
    return Scheduler.of({ runOnce, run: loop("Scheduler", pass, settings.pollMillis, transition.logProgress) })
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<Scheduler, never, MessageStore | IdGenerator> =>
  Layer.effect(Scheduler, make(options))
