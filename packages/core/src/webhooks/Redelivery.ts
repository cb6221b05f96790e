/**
 * What every redelivery asks first (CONTRACT §7, core's `Limits`): whether its account may ask
 * for one more this minute. Both redelivery endpoints, of one event and of a subscription's
 * failures, count against the same `Limits.redeliveriesPerMinute`, in the store, so that the limit
 * holds across processes and restarts.
 *
 * @since 0.1.0
 */
import { RateLimited, type StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Effect, Option } from "effect"
import * as Limits from "../Limits.js"
import { DeliveryStore } from "./DeliveryStore.js"

/** The window `Limits.redeliveriesPerMinute` counts in. @since 0.1.0 @category constants */
export const windowMillis = 60_000

/**
 * The admission of redeliveries, over the store and the limits of the context: for an account, it
 * records a redelivery request now, or fails `RateLimited` when the account made
 * `Limits.redeliveriesPerMinute` in the last minute, naming the seconds until the oldest of them no
 * longer counts.
 *
 * @since 0.1.0
 * @category admission
 */
export const admission: Effect.Effect<
  (accountId: string) => Effect.Effect<void, RateLimited | StoreUnavailable>,
  never,
  DeliveryStore
> = Effect.gen(function*() {
  const store = yield* DeliveryStore
  const { redeliveriesPerMinute: max } = yield* Limits.Limits
  return (accountId) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const refused = yield* store.admitRedelivery(accountId, now, now - windowMillis, max)
      if (Option.isNone(refused)) return
      return yield* new RateLimited({
        message: `An account may ask for at most ${max} redeliveries a minute; try again after Retry-After seconds.`,
        retryAfterSeconds: Math.max(1, Math.ceil((refused.value + windowMillis - now) / 1000))
      })
    })
})
