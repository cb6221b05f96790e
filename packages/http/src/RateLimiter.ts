/**
 * The per-key rate limit (CONTRACT §9, `RATE_LIMIT_PER_SECOND`): a token bucket per API key,
 * refilled from `Clock`, holding one second's worth.
 *
 * @since 0.1.0
 */
import { Errors } from "@sendline/core"
import { Clock, Context, Effect, Layer } from "effect"

/** Takes one request's token for a key, or refuses with 429. @since 0.1.0 @category services */
export class RateLimiter extends Context.Tag("@sendline/http/RateLimiter")<RateLimiter, {
  readonly take: (keyId: string) => Effect.Effect<void, Errors.RateLimited>
}>() {}

interface Bucket {
  tokens: number
  at: number
}

/** A token bucket of `perSecond` per key; 0 or less turns the limit off. @since 0.1.0 @category layers */
export const layer = (perSecond: number): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => {
    if (perSecond <= 0) return RateLimiter.of({ take: () => Effect.void })
    const buckets = new Map<string, Bucket>()
    const take = (keyId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        let bucket = buckets.get(keyId)
        if (bucket === undefined) {
          bucket = { tokens: perSecond, at: now }
          buckets.set(keyId, bucket)
        }
        bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond)
        bucket.at = now
        if (bucket.tokens >= 1) {
          bucket.tokens -= 1
          return Effect.void
        }
        const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond))
        return Effect.fail(
          new Errors.RateLimited({ message: `Rate limit of ${perSecond} requests per second exceeded.`, retryAfterSeconds })
        )
      })
    return RateLimiter.of({ take })
  })
