/**
 * Token buckets by id, refilled from the time the caller passes (epoch milliseconds, read from
 * `Clock`): the rate limits (`RateLimiter`) and the failed-authentication limit (`AuthFailures`).
 * A bucket is made full when its id is first used; past 1,000 buckets, full ones (as good as none)
 * are dropped, at most once a second, so the ids of a long-running server come and go.
 *
 * @since 0.1.0
 */

/** A bucket's size and how fast it refills. @since 0.1.0 @category models */
export interface Options {
  /** Tokens a full bucket holds (at least one). */
  readonly capacity: number
  /** Tokens added a second (> 0). */
  readonly perSecond: number
}

/** Buckets by id. @since 0.1.0 @category models */
export interface TokenBuckets {
  /** Takes a token from `id`'s bucket at `now`: 0 when one was taken, else the milliseconds until one is due. */
  readonly take: (id: string, now: number) => number
  /** The milliseconds until `id`'s bucket holds a token at `now` (0: it holds one now), taking none. */
  readonly wait: (id: string, now: number) => number
}

interface Bucket {
  tokens: number
  at: number
}

const sweepAbove = 1_000

/** Buckets of `options`, each made full when its id is first used. @since 0.1.0 @category constructors */
export const make = (options: Options): TokenBuckets => {
  const capacity = Math.max(1, options.capacity)
  const buckets = new Map<string, Bucket>()
  let sweptAt = 0
  const refilled = (bucket: Bucket, now: number): Bucket => {
    if (now > bucket.at) {
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * options.perSecond)
      bucket.at = now
    }
    return bucket
  }
  const untilOne = (bucket: Bucket) =>
    bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) / options.perSecond) * 1000)
  const sweep = (now: number) => {
    if (buckets.size <= sweepAbove || now - sweptAt < 1000) return
    sweptAt = now
    for (const [id, bucket] of buckets) if (refilled(bucket, now).tokens >= capacity) buckets.delete(id)
  }
  return {
    take: (id, now) => {
      sweep(now)
      let bucket = buckets.get(id)
      if (bucket === undefined) {
        bucket = { tokens: capacity, at: now }
        buckets.set(id, bucket)
      }
      const wait = untilOne(refilled(bucket, now))
      if (wait === 0) bucket.tokens -= 1
      return wait
    },
    wait: (id, now) => {
      const bucket = buckets.get(id)
      return bucket === undefined ? 0 : untilOne(refilled(bucket, now))
    }
  }
}
