/**
 * A token bucket: `perSecond` tokens a second, holding at most one second's worth (and never less
 * than one token, so that a rate below one a second still lets a request through now and then).
 * Plain and synchronous; the caller passes the time, read from `Clock`.
 *
 * @since 0.1.0
 */

/** One bucket's state and its one operation. @since 0.1.0 @category models */
export interface TokenBucket {
  /** Takes a token at `now` (epoch ms): 0 when one was taken, else the milliseconds until one is due. */
  readonly take: (now: number) => number
  /** Whether the bucket is full at `now`: as good as a new one, so a holder of many may drop it. */
  readonly isFull: (now: number) => boolean
}

/** A full bucket refilled at `perSecond` (> 0) from `now`. @since 0.1.0 @category constructors */
export const make = (perSecond: number, now: number): TokenBucket => {
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
