/**
 * The loop every worker runs: a pass over due work, then a Clock-driven sleep.
 */
import { Cause, Clock, Duration, Effect } from "effect"

/** What one pass did, as far as the loop cares. */
export interface Pass {
  /** How many items the pass took (claimed messages, taken reports). */
  readonly taken: number
  /** The pass took a full batch: more may be due, so the next pass starts at once. */
  readonly full: boolean
  /** The pass met a transient failure (carrier throttled or down): wait before the next one. */
  readonly backOff: boolean
}

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
  pass: Effect.Effect<Pass, E>,
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
          ? Effect.logWarning(`${name}: pass failed; retrying after ${wait} ms, and less often while it keeps failing`, cause)
          : due
          ? Effect.logWarning(`${name}: ${failures} passes in a row failed (${reasonOf(cause)}); the next in ${wait} ms`)
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
