/**
 * The one way to build a worker. A worker states its pass and what it logs; here are the settings
 * every worker shares with their defaults, its `runOnce` (one pass, in a span), its `run` (the loop:
 * a pass over due work, then a Clock-driven sleep) and the lease's deadline of a pass that waits on
 * others.
 */
import { Cause, Clock, Duration, Effect, Option } from "effect"
import type * as Scope from "effect/Scope"

/** The settings every worker takes. */
export interface Options {
  /**
   * Items a pass takes at most (messages, mails or Sender IDs claimed, reports taken from the inbox,
   * records deleted); after a pass that took as many, the next starts at once.
   */
  readonly batchSize: number
  /** Clock time between passes when the last one found less than a full batch. */
  readonly pollMillis: number
}

/** The settings of a worker that claims its items under a lease. */
export interface Leased extends Options {
  /**
   * How long a claim holds an item: one whose outcome was not recorded (the store failed, the
   * process stopped) is claimed again after it. A pass that waits on others (the carrier, the mail
   * server) stops waiting at four fifths of it (`withinLease`), leaving the rest to record what
   * came back.
   */
  readonly leaseMillis: number
}

/** The settings every worker starts from: batches of 100, 1 s polls. */
export const defaults: Options = { batchSize: 100, pollMillis: 1_000 }

/** The settings every worker that claims starts from: batches of 100, 30 s leases, 1 s polls. */
export const leasedDefaults: Leased = { ...defaults, leaseMillis: 30_000 }

/** A worker: one pass on demand, or passes until interrupted. */
export interface Worker<E> {
  /** One pass over the work due now; returns how many items it took. */
  readonly runOnce: Effect.Effect<number, E>
  /**
   * Passes forever: again at once after a full batch, otherwise after `pollMillis` of Clock time
   * (or as soon as work it left running ends); ends only by interruption.
   */
  readonly run: Effect.Effect<never>
}

/** What one pass did, as far as the loop cares. */
export interface Pass {
  /** How many items the pass took (claimed messages, taken reports). */
  readonly taken: number
  /** The pass took a full batch: more may be due, so the next pass starts at once. Left out: `taken` is `batchSize`. */
  readonly full?: boolean
  /** The pass met a transient failure (carrier throttled or down): wait before the next one. Left out: false. */
  readonly backOff?: boolean
}

/** A `run` that leaves work running between its passes: its own passes, and what wakes it. */
interface Background<E> {
  /** One of `run`'s passes: it starts work and leaves it running. */
  readonly pass: Effect.Effect<Pass, E>
  /** Completes when work left running ends: it ends the sleep between passes early. */
  readonly wake: Effect.Effect<void>
}

/** What a worker states of itself: its pass, and the progress lines it logs. */
export interface Definition<E> {
  /** One pass over the work due now: `runOnce`, and each of `run`'s passes unless `background` makes those. */
  readonly pass: Effect.Effect<Pass, E>
  /** Logs the progress not logged yet: asked after each of `run`'s passes, and with `always` when it stops. */
  readonly logProgress: (always: boolean) => Effect.Effect<void>
  /**
   * `run`'s passes when they leave work running (the WebhookDeliverer's attempts), made in a scope
   * that `run` closes when it stops.
   */
  readonly background?: Effect.Effect<Background<E>, never, Scope.Scope>
}

/**
 * The worker named `name`, with `settings`: `runOnce` is one pass in the span `<name>.runOnce`,
 * `run` the `loop` over its passes.
 */
export const make = <E>(name: string, settings: Options, definition: Definition<E>): Worker<E> => {
  const looping = (pass: Effect.Effect<Pass, E>, wake?: Effect.Effect<void>) =>
    loop(
      name,
      Effect.map(pass, ({ backOff = false, taken, full = taken === settings.batchSize }) => ({ taken, full, backOff })),
      settings.pollMillis,
      definition.logProgress,
      wake
    )
  return {
    runOnce: Effect.map(definition.pass, (p) => p.taken).pipe(Effect.withSpan(`${name}.runOnce`)),
    run: definition.background === undefined
      ? looping(definition.pass)
      : Effect.scoped(Effect.flatMap(definition.background, ({ pass, wake }) => looping(pass, wake)))
  }
}

/**
 * Ends `self` by four fifths of the lease its items were claimed under at `claimedAt`: what still
 * waits then is interrupted, before another claimer can take those items, and `late` is logged.
 */
export const withinLease =
  (settings: Leased, claimedAt: number, late: () => Effect.Effect<void>) =>
  <E, R>(self: Effect.Effect<void, E, R>): Effect.Effect<void, E, R> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      self.pipe(
        Effect.timeoutOption(Duration.millis(Math.max(0, claimedAt + settings.leaseMillis * 0.8 - now))),
        Effect.flatMap(Option.match({ onNone: late, onSome: () => Effect.void }))
      ))

/** The longest wait between failing passes, unless the poll interval is longer. */
const maxBackoffMillis = 30_000

/** How often a run of failing passes is logged again, after its first failure. */
const failureLogMillis = 10_000

/** The innermost message of what failed a pass. */
const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/**
 * Runs `pass` forever: again at once after a full batch, otherwise after `pollMillis` of Clock time.
 * A failed pass is retried after the interval, doubled after each failure in a row up to
 * `maxBackoffMillis` (a store that is down is not asked twice a second). The first failure is
 * logged with its cause, then one line every ten seconds while failures go on, and one when a pass
 * succeeds again. Only interruption ends the loop. After each pass, and when the loop ends, the
 * worker's progress is logged if it is due (`logProgress`). A worker that has work finishing in the
 * background (the webhook deliverer's attempts) passes `wake`, which ends a sleep early when it
 * completes.
 *
 * "At once" is a sleep of zero: on the live clock a timer, so that the I/O that arrived during the
 * pass (a server's requests, in the same process) runs before the next one, where a fiber's yield
 * would run it first; on `TestClock` no wait at all, so a backlog drains within one `adjust`.
 */
export const loop = <E>(
  name: string,
  pass: Effect.Effect<Required<Pass>, E>,
  pollMillis: number,
  logProgress: (always: boolean) => Effect.Effect<void>,
  wake?: Effect.Effect<void>
): Effect.Effect<never> =>
  Effect.suspend(() => {
    const interval = Duration.millis(pollMillis)
    let failures = 0
    let failureLoggedAt = 0

    const failed = (cause: Cause.Cause<unknown>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        failures++
        const wait = Math.min(pollMillis * 2 ** Math.min(failures - 1, 30), Math.max(pollMillis, maxBackoffMillis))
        const due = failures === 1 || now - failureLoggedAt >= failureLogMillis
        if (due) failureLoggedAt = now
        const log = failures === 1
          ? Effect.logWarning(
            `${name}: pass failed; retrying after ${wait} ms, and less often while it keeps failing`,
            cause
          )
          : due
          ? Effect.logWarning(
            `${name}: ${failures} passes in a row failed (${reasonOf(cause)}); the next in ${wait} ms`
          )
          : Effect.void
        return Effect.zipRight(log, Effect.sleep(Duration.millis(wait)))
      })

    const succeeded = Effect.suspend(() => {
      if (failures === 0) return Effect.void
      const after = failures
      failures = 0
      return Effect.logInfo(`${name}: passes succeed again, after ${after} failed`)
    })

    const idle = wake === undefined ? Effect.sleep(interval) : Effect.race(Effect.sleep(interval), wake)
    const once = Effect.zipLeft(pass, Effect.zipRight(succeeded, logProgress(false))).pipe(
      Effect.flatMap((result) => result.full && !result.backOff ? Effect.sleep(Duration.zero) : idle),
      Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.interrupt : failed(cause))
    )
    return Effect.forever(once)
  }).pipe(
    Effect.onInterrupt(() => logProgress(true)),
    Effect.annotateLogs("worker", name)
  )
