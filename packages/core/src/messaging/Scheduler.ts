/**
 * The Scheduler worker (CONTRACT §3): claims `scheduled` messages whose `scheduled_at` has come and
 * moves them to `queued`, emitting `message.queued`. A cancel racing it is settled by the store's
 * conditional transition: exactly one of the two moves the message.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Context, Effect, Either, Layer } from "effect"
import type { IdGenerator } from "../Ids.js"
import * as Worker from "../internal/worker.js"
import { MessageStore } from "./MessageStore.js"
import * as Transition from "./Transition.js"

/** Scheduler settings: those of every worker that claims. @since 0.1.0 @category models */
export type Options = Worker.Leased

/**
 * The default settings: those of every worker that claims (batches of 100, 30 s leases, 1 s polls).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = Worker.leasedDefaults

/** The Scheduler worker: a pass queues the scheduled messages due now. @since 0.1.0 @category services */
export class Scheduler extends Context.Tag("@sendline/core/Scheduler")<Scheduler, Worker.Worker<StoreUnavailable>>() {}

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
      const recorded = yield* Effect.either(
        transition.move(claimed.map((m) => ({ next: { ...m, status: "queued" }, from: "scheduled" })))
      )
      if (Either.isLeft(recorded)) {
        yield* Effect.logWarning(
          `Scheduler: could not queue ${claimed.length} messages; retrying after the lease`,
          recorded.left
        )
      }
      return { taken: claimed.length, backOff: Either.isLeft(recorded) }
    })

    return Scheduler.of(Worker.make("Scheduler", settings, { pass, logProgress: transition.logProgress }))
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<Scheduler, never, MessageStore | IdGenerator> =>
  Layer.effect(Scheduler, make(options))
