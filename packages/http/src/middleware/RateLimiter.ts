/**
 * The per-key rate limit (CONTRACT §9, `RATE_LIMIT_PER_SECOND`): a token bucket per API key,
 * refilled from `Clock`, holding one second's worth (and never less than one token, so that a rate
 * below one a second still lets a request through now and then).
 *
 * @since 0.1.0
 */
import { Errors } from "@sendline/core"
import { Clock, Context, Effect, Layer } from "effect"

/** Takes one request's token for a key, or refuses with 429. @since 0.1.0 @category services */
export class RateLimiter extends Context.Tag("@sendline/http/RateLimiter")<RateLimiter, {
  readonly take: (keyId: string) => Effect.Effect<void, Errors.RateLimited>
}>() {}

/** One key's bucket; the caller passes the time (epoch ms), read from `Clock`. */
interface Bucket {
  /** Takes a token at `now`: 0 when one was taken, else the milliseconds until one is due. */
  readonly take: (now: number) => number
  /** Whether the bucket is full at `now`: as good as a new one, so it may be dropped. */
  readonly isFull: (now: number) => boolean
}

/** A full bucket refilled at `perSecond` (> 0) from `now`. */
const makeBucket = (perSecond: number, now: number): Bucket => {
  const capacity = Math.max(1, perSecond)
  let tokens = capacity
  let at = now
  const refill = (now: number) => {
    if (now <= at) return
    tokens = Math.min(capacity, tokens + ((now - at) / 1000) * perSecond)
    at = now
  }
  return {
    take: (now) => {
      refill(now)
      if (tokens >= 1) {
        tokens -= 1
        return 0
      }
      return Math.ceil(((1 - tokens) / perSecond) * 1000)
    },
    isFull: (now) => {
      refill(now)
      return tokens >= capacity
    }
  }
}

// Past this many buckets, full ones (as good as none) are dropped, at most once a second: the
// keys of a long-running server come and go.
const sweepAbove = 1_000

/** A token bucket of `perSecond` per key; 0 or less turns the limit off. @since 0.1.0 @category layers */
export const layer = (perSecond: number): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => {
    if (perSecond <= 0) return RateLimiter.of({ take: () => Effect.void })
    const buckets = new Map<string, Bucket>()
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
          bucket = makeBucket(perSecond, now)
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
