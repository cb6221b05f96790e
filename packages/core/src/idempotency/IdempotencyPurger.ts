/**
 * The IdempotencyPurger worker (CONTRACT §1: keys are kept 24 hours): deletes the idempotency
 * records older than `Idempotency.retentionMillis`, in batches, so that the table holds at most a
 * day of keys. A record it has not reached yet is harmless: `Idempotency.begin` already treats it as
 * free. Deletes are idempotent, so several processes on one database may purge at once.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer } from "effect"
import * as Worker from "../internal/worker.js"
import { retentionMillis } from "./Idempotency.js"
import { IdempotencyStore } from "./IdempotencyStore.js"

/** IdempotencyPurger settings: those of every worker (a pass is one delete statement). @since 0.1.0 @category models */
export type Options = Worker.Options

/** The default settings: batches of 1,000, a pass a minute. @since 0.1.0 @category constants */
export const defaults: Options = { batchSize: 1_000, pollMillis: 60_000 }

/** The IdempotencyPurger worker: a pass deletes up to a batch of expired records. @since 0.1.0 @category services */
export class IdempotencyPurger
  extends Context.Tag("@sendline/core/IdempotencyPurger")<IdempotencyPurger, Worker.Worker<StoreUnavailable>>()
{}

/** Builds the IdempotencyPurger with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Tag.Service<IdempotencyPurger>, never, IdempotencyStore> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const store = yield* IdempotencyStore
    let purged = 0
    const pass = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const deleted = yield* store.purge(now - retentionMillis, settings.batchSize)
      purged += deleted
      return { taken: deleted }
    })
    // one line when a pass's deletes end a run of them, not one per batch
    const logProgress = () =>
      Effect.suspend(() => {
        if (purged === 0) return Effect.void
        const line = `IdempotencyPurger: ${purged} expired idempotency ${purged === 1 ? "key" : "keys"} deleted`
        purged = 0
        return Effect.logInfo(line)
      })
    return IdempotencyPurger.of(Worker.make("IdempotencyPurger", settings, { pass, logProgress }))
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<IdempotencyPurger, never, IdempotencyStore> =>
  Layer.effect(IdempotencyPurger, make(options))
