/**
 * The failed-authentication limit of CONTRACT §9 (`AUTH_FAILURES_PER_MINUTE`): each client address
 * (`ClientAddress`) may fail authentication that many times a minute, a token bucket refilled from
 * `Clock`; past it, its requests are refused 429 `rate_limited` with `Retry-After` before their key
 * is looked up, so guessing keys costs the store nothing, and each refusal is held up to a second
 * before it is sent, so that it costs the other clients nothing either. The limit is per address: a client with a
 * valid key elsewhere is never slowed by another address's failures.
 *
 * Failures are logged in aggregate, not one line each: `logEvery` (a minute) after the first failure
 * since the last line, one info line with the count, how many were refused unchecked, and the
 * addresses that failed most. With no failures no timer runs.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "@effect/platform"
import { Errors } from "@sendline/core"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import * as ClientAddress from "./ClientAddress.js"
import * as TokenBuckets from "./TokenBuckets.js"

/** Guards authentication by the client's address. @since 0.1.0 @category services */
export class AuthFailures extends Context.Tag("@sendline/http/AuthFailures")<AuthFailures, {
  /**
   * Runs `authenticate` for `request` unless its address has used up its failures (then 429,
   * and `authenticate` does not run), counting its `Unauthenticated` failure against the address.
   */
  readonly guard: <A, E, R>(
    request: HttpServerRequest.HttpServerRequest,
    authenticate: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | Errors.RateLimited, R>
}>() {}

/** The limit and how often failures are logged. @since 0.1.0 @category models */
export interface Options {
  /** Failed authentications per client address a minute; 0 turns the limit off (failures are still logged). */
  readonly perMinute: number
  /** The reverse proxies whose `X-Forwarded-For` names the client (`TRUST_PROXY`; see `ClientAddress`). */
  readonly trustProxy?: ReadonlyArray<string> | undefined
  /** How often the failures since the last line are logged; a minute by default. */
  readonly logEvery?: Duration.DurationInput | undefined
}

/**
 * How long a refusal is held before it is answered: the time until the address may fail again, at
 * most a second. A client guessing keys on many connections then gets one answer a second on
 * each, rather than as many as the server can give, and the clients of other addresses keep their
 * share of it; a held refusal costs a sleeping fiber.
 */
const hold = (refused: Errors.RateLimited): Duration.Duration =>
  Duration.millis(Math.min(1_000, refused.retryAfterSeconds * 1_000))

/** Addresses named in a log line. */
const shownAddresses = 5
/** Addresses counted one by one in an interval; more are counted in the total only. */
const countedAddresses = 10_000

/** The failures of one interval; `started` is called when an interval counts its first. */
const makeTally = (started: () => void) => {
  let failed = 0
  let refused = 0
  let byAddress = new Map<string, number>()
  const counting = () => {
    if (failed === 0 && refused === 0) started()
  }
  return {
    failed: (address: string) => {
      counting()
      failed++
      const count = byAddress.get(address)
      if (count !== undefined || byAddress.size < countedAddresses) byAddress.set(address, (count ?? 0) + 1)
    },
    refused: () => {
      counting()
      refused++
    },
    /** The line for the interval now ending (undefined when nothing failed), and a new interval. */
    close: (interval: string): string | undefined => {
      if (failed === 0 && refused === 0) return undefined
      const top = [...byAddress].sort(([, a], [, b]) => b - a).slice(0, shownAddresses)
      const line = `${failed} failed authentications in the last ${interval} from ${byAddress.size} addresses` +
        (refused > 0 ? `, ${refused} more requests refused unchecked` : "") +
        (top.length > 0 ? `; most from ${top.map(([address, count]) => `${address} (${count})`).join(", ")}` : "")
      failed = 0
      refused = 0
      byAddress = new Map()
      return line
    }
  }
}

/** The limit of `options`, with its log line `logEvery` after a failure while the layer lives. @since 0.1.0 @category layers */
export const layer = (options: Options): Layer.Layer<AuthFailures> =>
  Layer.scoped(
    AuthFailures,
    Effect.gen(function*() {
      const logEvery = Duration.decode(options.logEvery ?? Duration.minutes(1))
      const addressOf = ClientAddress.make(options.trustProxy ?? [])
      const counted = yield* Effect.makeLatch(false)
      const tally = makeTally(() => counted.unsafeOpen())
      const buckets = options.perMinute > 0
        ? TokenBuckets.make({ capacity: options.perMinute, perSecond: options.perMinute / 60 })
        : undefined
      const report = Effect.suspend(() => {
        const line = tally.close(Duration.format(logEvery))
        return line === undefined ? Effect.void : Effect.logInfo(line)
      })
      // Sleeps only once a failure is counted: an idle server (or a test's clock moved by days) wakes for nothing.
      yield* Effect.forkScoped(Effect.forever(counted.await.pipe(
        Effect.zipRight(counted.close),
        Effect.zipRight(Effect.sleep(logEvery)),
        Effect.zipRight(report)
      )))

      /** 429 for an address with no failure left at `now`, else undefined. */
      const refusal = (address: string, now: number) => {
        const wait = buckets?.wait(address, now) ?? 0
        if (wait === 0) return undefined
        tally.refused()
        return new Errors.RateLimited({
          message: `Too many failed authentications from this address (${options.perMinute} a minute); retry later.`,
          retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000))
        })
      }
      return AuthFailures.of({
        guard: <A, E, R>(request: HttpServerRequest.HttpServerRequest, authenticate: Effect.Effect<A, E, R>) =>
          Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<A, E | Errors.RateLimited, R> => {
            const address = addressOf(request)
            const refused = refusal(address, now)
            if (refused !== undefined) return Effect.zipRight(Effect.sleep(hold(refused)), Effect.fail(refused))
            return Effect.tapError(authenticate, (error) =>
              error instanceof Errors.Unauthenticated
                ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
                  Effect.sync(() => {
                    tally.failed(address)
                    buckets?.take(address, now)
                  }))
                : Effect.void)
          })
      })
    })
  )
