/**
 * A worker's progress lines: what it did, counted by outcome ("sent", "failed"…) and logged at info
 * level, at once for the first outcomes and then at most once per `summaryMillis` of Clock time,
 * so that a busy server writes a few lines a minute. The worker's loop asks after every pass, idle
 * ones too, and when it stops, so that no outcome goes unreported once the server falls quiet.
 */
import { Clock, Effect } from "effect"

/** The least Clock time between two progress lines of one worker. */
const summaryMillis = 10_000

/** A worker's outcome counts and the line that reports them. */
export interface Progress<K> {
  /** Counts one more `outcome`. */
  readonly count: (outcome: K) => void
  /** Logs the outcomes not logged yet: when `summaryMillis` have passed since the last line, or now with `always`. */
  readonly log: (always: boolean) => Effect.Effect<void>
}

/** The progress of the worker named `worker`, its counts worded by `describe` ("2 messages sent, 1 failed"). */
export const make = <K>(worker: string, describe: (counts: ReadonlyMap<K, number>) => string): Progress<K> => {
  const counts = new Map<K, number>()
  let loggedAt = Number.NEGATIVE_INFINITY
  return {
    count: (outcome) => void counts.set(outcome, (counts.get(outcome) ?? 0) + 1),
    log: (always) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (counts.size === 0 || (!always && now - loggedAt < summaryMillis)) return Effect.void
        const line = `${worker}: ${describe(counts)}`
        counts.clear()
        loggedAt = now
        return Effect.logInfo(line)
      })
  }
}
