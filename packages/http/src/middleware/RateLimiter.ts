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
import * as TokenBuckets from "./TokenBuckets.js"

/** Takes one request's token for a key and its account, or refuses with 429. @since 0.1.0 @category services */
export class RateLimiter extends Context.Tag("@sendline/http/RateLimiter")<RateLimiter, {
  readonly take: (keyId: string, accountId: string) => Effect.Effect<void, Errors.RateLimited>
}>() {}

/** Requests per second per key and per account; 0 turns that limit off. @since 0.1.0 @category models */
export interface Limits {
  readonly perKey: number
  readonly perAccount: number
}

/** Buckets of `perSecond` tokens a second, holding one second's worth (never less than one token). */
const bucketsOf = (perSecond: number) => TokenBuckets.make({ capacity: perSecond, perSecond })

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
        const keyWait = byKey?.take(keyId, now) ?? 0
        if (keyWait > 0) return refuse(`${limits.perKey} requests per second`, keyWait)
        const accountWait = byAccount?.take(accountId, now) ?? 0
        if (accountWait > 0) return refuse(`${limits.perAccount} requests per second for this account`, accountWait)
        return Effect.void
      })
    return RateLimiter.of({ take })
  })
