/**
 * The submits in doubt since start: a session lost before their answer, or no answer within the
 * response timeout. Each is left to the Dispatcher's lease and submitted again, at least once
 * (docs/decisions.md), and each is counted here and said in a warning with the total.
 */
import { Duration, Effect } from "effect"

/** The count of submits in doubt, and what the logs say of them. */
export interface InDoubt {
  /** How many since start. */
  readonly total: Effect.Effect<number>
  /** Counts the submits a lost session left awaiting their answer (their messages' references): its warning's words. */
  readonly lost: (references: ReadonlyArray<string>) => string
  /** Counts the submit of `reference` that had no answer within the response timeout, and warns of it. */
  readonly timedOut: (reference: string) => Effect.Effect<void>
}

/** None in doubt yet, on the session with `where`. */
export const make = (where: string, responseTimeout: Duration.Duration): InDoubt => {
  let total = 0
  return {
    total: Effect.sync(() => total),
    lost: (references) => {
      total += references.length
      return references.length === 0
        ? "no submit awaited its answer"
        : `${references.length} submits in doubt (${[...new Set(references)].join(", ")}): each message ` +
          `stays queued and is submitted again after its lease, at least once; ${total} in doubt since start`
    },
    timedOut: (reference) =>
      Effect.suspend(() => {
        total++
        return Effect.logWarning(
          `SMPP: no answer from ${where} to ${reference}'s submit within ${
            Duration.format(responseTimeout)
          }: in doubt, ` +
            `submitted again after its lease; ${total} in doubt since start`
        )
      })
  }
}
