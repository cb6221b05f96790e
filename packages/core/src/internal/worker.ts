/**
 * The loop every worker runs: a pass over due work, then a Clock-driven sleep.
 */
import { Cause, Duration, Effect } from "effect"

/** What one pass did, as far as the loop cares. */
export interface Pass {
  /** How many items the pass took (claimed messages, taken reports). */
  readonly taken: number
  /** The pass took a full batch: more may be due, so the next pass starts at once. */
  readonly full: boolean
  /** The pass met a transient failure (carrier throttled or down): wait before the next one. */
  readonly backOff: boolean
}

/**
 * Runs `pass` forever: again at once after a full batch, otherwise after `pollMillis` of Clock time.
 * A failed pass is logged and retried after the interval; only interruption ends the loop. After
 * each pass, and when the loop ends, the worker's progress is logged if it is due (`logProgress`).
 *
 * "At once" is a sleep of zero: on the live clock a timer, so that the I/O that arrived during the
 * pass (a server's requests, in the same process) runs before the next one, where a fiber's yield
 * would run it first; on `TestClock` no wait at all, so a backlog drains within one `adjust`.
 */
export const loop = <E>(
  name: string,
  pass: Effect.Effect<Pass, E>,
  pollMillis: number,
  logProgress: (always: boolean) => Effect.Effect<void>
): Effect.Effect<never> => {
  const interval = Duration.millis(pollMillis)
  const once = Effect.zipLeft(pass, logProgress(false)).pipe(
    Effect.flatMap((result) => result.full && !result.backOff ? Effect.sleep(Duration.zero) : Effect.sleep(interval)),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.interrupt
        : Effect.zipRight(Effect.logWarning(`${name}: pass failed; retrying after ${pollMillis} ms`, cause), Effect.sleep(interval))
    )
  )
  return Effect.forever(once).pipe(
    Effect.onInterrupt(() => logProgress(true)),
    Effect.annotateLogs("worker", name)
  )
}

