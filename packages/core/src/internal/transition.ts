/**
 * The one way a worker moves messages: each with its `message.*` event, stamped now, written in
 * the same store call as the new status, and only while the message is still in its `from`. A move
 * that lost its race (a cancel, a second report) is logged at debug level, once, here.
 *
 * Progress is logged here too, at info level: what the worker's moves have made of its messages
 * ("Dispatcher: 120 messages sent, 2 failed"), at once for the first moves and then at most once
 * per `summaryMillis` of Clock time, so that a busy server writes a few lines a minute. The
 * worker's loop asks after every pass, idle ones too, and when it stops, so that no move goes
 * unreported once the server falls quiet.
 */
import { Clock, Effect, Option } from "effect"
import type { StoreUnavailable } from "../Errors.js"
import * as MessageEvents from "../messaging/MessageEvents.js"
import { IdGenerator } from "../Ids.js"
import type { MessageStatus } from "../messaging/Message.js"
import { MessageStore } from "../messaging/MessageStore.js"

/** A worker's move of one message, before its event is made. */
export interface Change {
  readonly next: MessageEvents.EventfulMessage
  readonly from: MessageStatus
}

/** The least Clock time between two progress lines of one worker. */
const summaryMillis = 10_000

const describe = (moved: ReadonlyMap<MessageStatus, number>): string =>
  [...moved].map(([status, n], i) => (i === 0 ? `${n} ${n === 1 ? "message" : "messages"} ${status}` : `${n} ${status}`))
    .join(", ")

/** A worker's way to move messages, and the progress lines of what it moved. */
export interface Transition {
  /** Moves each `next` out of its `from` with its event, in one store call. */
  readonly move: (changes: ReadonlyArray<Change>) => Effect.Effect<void, StoreUnavailable>
  /** Logs the moves not logged yet: when `summaryMillis` have passed since the last line, or now with `always`. */
  readonly logProgress: (always: boolean) => Effect.Effect<void>
}

/** The `Transition` of the worker named `worker`. */
export const make = (worker: string): Effect.Effect<Transition, never, MessageStore | IdGenerator> =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    const ids = yield* IdGenerator
    const moved = new Map<MessageStatus, number>()
    let loggedAt = Number.NEGATIVE_INFINITY

    const logProgress = (always: boolean) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (moved.size === 0 || (!always && now - loggedAt < summaryMillis)) return Effect.void
        const line = `${worker}: ${describe(moved)}`
        moved.clear()
        loggedAt = now
        return Effect.logInfo(line)
      })

    const move = (changes: ReadonlyArray<Change>) =>
      changes.length === 0 ? Effect.void : Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const moves = yield* Effect.forEach(changes, ({ from, next }) =>
          Effect.map(ids.make("evt"), (id) => ({ next, from, event: Option.some(MessageEvents.make(id, next, now)) })))
        const done = yield* messages.transition(moves)
        for (const [i, { from, next }] of changes.entries()) {
          if (done[i]) moved.set(next.status, (moved.get(next.status) ?? 0) + 1)
          else yield* Effect.logDebug(`${worker}: ${next.id} had already left ${from}; someone else moved it`)
        }
        yield* logProgress(false)
      })

    return { move, logProgress }
  })
