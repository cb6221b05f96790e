/**
 * The per-key rate limit (CONTRACT §9, `RATE_LIMIT_PER_SECOND`): a token bucket per API key,
 * refilled from `Clock`, holding one second's worth (at least one request's).
 *
 * @since 0.1.0
 */
import { Errors, TokenBucket } from "@sendline/core"
import { Clock, Context, Effect, Layer } from "effect"

/** Takes one request's token for a key, or refuses with 429. @since 0.1.0 @category services */
export class RateLimiter extends Context.Tag("@sendline/http/RateLimiter")<RateLimiter, {
  readonly take: (keyId: string) => Effect.Effect<void, Errors.RateLimited>
}>() {}

// Past this many buckets, full ones (as good as none) are dropped, at most once a second: the
// keys of a long-running server come and go.
const sweepAbove = 1_000

/** A token bucket of `perSecond` per key; 0 or less turns the limit off. @since 0.1.0 @category layers */
export const layer = (perSecond: number): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => {
    if (perSecond <= 0) return RateLimiter.of({ take: () => Effect.void })
    const buckets = new Map<string, TokenBucket.TokenBucket>()
    let sweptAt = 0
    const sweep = (now: number) => {
      if (buckets.size <= sweepAbove || now - sweptAt < 1000) return
      sweptAt = now
      for (const [keyId, bucket] of buckets) if (bucket.isFull(now)) buckets.delete(keyId)
    }
    const take = (keyId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        sweep(now)
        let bucket = buckets.get(keyId)
        if (bucket === undefined) {
          bucket = TokenBucket.make(perSecond, now)
          buckets.set(keyId, bucket)
        }
        const waitMillis = bucket.take(now)
        if (waitMillis === 0) return Effect.void
        return Effect.fail(
          new Errors.RateLimited({
            message: `Rate limit of ${perSecond} requests per second exceeded.`,
            retryAfterSeconds: Math.max(1, Math.ceil(waitMillis / 1000))
          })
        )
      })
    return RateLimiter.of({ take })
  })
