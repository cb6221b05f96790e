/**
 * The rate limits of CONTRACT §9: a token bucket per API key (`RATE_LIMIT_PER_SECOND`) and one per
 * account, across its keys (`RATE_LIMIT_PER_ACCOUNT_PER_SECOND`, so that rotating keys does not
 * multiply an account's rate). Each is refilled from `Clock` and holds one second's worth (and never
 * less than one token, so that a rate below one a second still lets a request through now and then).
 *
 * @since 0.1.0
 */
import { Errors } from "@sendline/core"
import { Clock, Context, Effect, Layer } from "effect"

/** Takes one request's token for a key and its account, or refuses with 429. @since 0.1.0 @category services */
export class RateLimiter extends Context.Tag("@sendline/http/RateLimiter")<RateLimiter, {
  readonly take: (keyId: string, accountId: string) => Effect.Effect<void, Errors.RateLimited>
}>() {}

/** Requests per second per key and per account; 0 turns that limit off. @since 0.1.0 @category models */
export interface Limits {
  readonly perKey: number
  readonly perAccount: number
}

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

/** A bucket of `perSecond` per id, made when first used: `take` answers the milliseconds to wait (0: taken). */
const bucketsOf = (perSecond: number) => {
  const buckets = new Map<string, Bucket>()
  let sweptAt = 0
  return (id: string, now: number): number => {
    if (buckets.size > sweepAbove && now - sweptAt >= 1000) {
      sweptAt = now
      for (const [held, bucket] of buckets) if (bucket.isFull(now)) buckets.delete(held)
    }
    let bucket = buckets.get(id)
    if (bucket === undefined) {
      bucket = makeBucket(perSecond, now)
      buckets.set(id, bucket)
    }
    return bucket.take(now)
  }
}

const refuse = (what: string, waitMillis: number) =>
  Effect.fail(
    new Errors.RateLimited({
      message: `Rate limit of ${what} exceeded.`,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMillis / 1000))
    })
  )

/** A bucket per key and one per account, as `limits` says; a request takes a token from each. @since 0.1.0 @category layers */
export const layer = (limits: Limits): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => {
    const byKey = limits.perKey > 0 ? bucketsOf(limits.perKey) : undefined
    const byAccount = limits.perAccount > 0 ? bucketsOf(limits.perAccount) : undefined
    if (byKey === undefined && byAccount === undefined) return RateLimiter.of({ take: () => Effect.void })
    const take = (keyId: string, accountId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const keyWait = byKey?.(keyId, now) ?? 0
        if (keyWait > 0) return refuse(`${limits.perKey} requests per second`, keyWait)
        const accountWait = byAccount?.(accountId, now) ?? 0
        if (accountWait > 0) return refuse(`${limits.perAccount} requests per second for this account`, accountWait)
        return Effect.void
      })
    return RateLimiter.of({ take })
  })
