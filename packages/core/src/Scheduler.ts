/**
 * The Scheduler worker (CONTRACT §3): claims `scheduled` messages whose `scheduled_at` has come and
 * moves them to `queued`, emitting `message.queued`. A cancel racing it is settled by the store's
 * conditional transition: exactly one of the two moves the message.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { StoreUnavailable } from "./Errors.js"
import { IdGenerator } from "./Ids.js"
import * as Transition from "./internal/transition.js"
import { loop } from "./internal/worker.js"
import type { Message } from "./Message.js"
import { MessageStore } from "./MessageStore.js"

/** Scheduler settings. @since 0.1.0 @category models */
export interface Options {
  /** Messages claimed per pass. */
  readonly batchSize: number
  /** How long a claim holds a message. */
  readonly leaseMillis: number
  /** Clock time between passes when the last one found less than a full batch. */
  readonly pollMillis: number
  /** Transitions in flight at once. */
  readonly concurrency: number
}

/** @since 0.1.0 @category constants */
export const defaults: Options = { batchSize: 100, leaseMillis: 30_000, pollMillis: 1_000, concurrency: 8 }

/** What became of one claimed message: `lost` when something else (a cancel) moved it first. @since 0.1.0 @category models */
export type Outcome = "queued" | "lost" | "retry"

/** The Scheduler worker. @since 0.1.0 @category services */
export class Scheduler extends Context.Tag("@sendline/core/Scheduler")<Scheduler, {
  /** One pass: queues the scheduled messages due now; returns how many it claimed. */
  readonly runOnce: Effect.Effect<number, StoreUnavailable>
  /** Passes forever, sleeping `pollMillis` of Clock time between them; ends only by interruption. */
  readonly run: Effect.Effect<never>
}>() {}

/** @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Tag.Service<Scheduler>, never, MessageStore | IdGenerator> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const messages = yield* MessageStore

    const transition = yield* Transition.make

    const queueOne = (message: Message): Effect.Effect<Outcome> =>
      Effect.gen(function*() {
        if (yield* transition({ ...message, status: "queued" }, "scheduled")) return "queued" as const
        yield* Effect.logDebug(`Scheduler: ${message.id} had already left scheduled (cancelled?)`)
        return "lost" as const
      }).pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`Scheduler: could not queue ${message.id}; retrying after the lease`, error), "retry" as const)
        )
      )

    const pass = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* messages.claim("schedule", now, settings.batchSize, now + settings.leaseMillis)
      const outcomes = yield* Effect.forEach(claimed, queueOne, { concurrency: settings.concurrency })
      return { taken: claimed.length, full: claimed.length === settings.batchSize, backOff: outcomes.includes("retry") }
    })

    const runOnce = Effect.map(pass, (p) => p.taken).pipe(Effect.withSpan("Scheduler.runOnce"))
    return Scheduler.of({ runOnce, run: loop("Scheduler", pass, settings.pollMillis) })
  })

/** @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<Scheduler, never, MessageStore | IdGenerator> =>
  Layer.effect(Scheduler, make(options))
