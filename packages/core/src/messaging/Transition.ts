/**
 * The one way a worker moves messages: each with its `message.*` event, stamped now, written in
 * the same store call as the new status, and only while the message is still in its `from`. A move
 * that lost its race (a cancel, a second report) is logged at debug level, once, here.
 *
 * Progress is logged here too (see `progress`): what the worker's moves have made of its messages
 * ("Dispatcher: 120 messages sent, 2 failed").
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Effect, Option } from "effect"
import { IdGenerator } from "../Ids.js"
import * as Progress from "../internal/progress.js"
import type { MessageStatus } from "./Message.js"
import * as MessageEvents from "./MessageEvents.js"
import { MessageStore } from "./MessageStore.js"

/** A worker's move of one message, before its event is made. */
export interface Change {
  readonly next: MessageEvents.EventfulMessage
  readonly from: MessageStatus
}

const describe = (moved: ReadonlyMap<MessageStatus, number>): string =>
  [...moved].map((
    [status, n],
    i
  ) => (i === 0 ? `${n} ${n === 1 ? "message" : "messages"} ${status}` : `${n} ${status}`))
    .join(", ")

/** A worker's way to move messages, and the progress lines of what it moved. */
export interface Transition {
  /** Moves each `next` out of its `from` with its event, in one store call. */
  readonly move: (changes: ReadonlyArray<Change>) => Effect.Effect<void, StoreUnavailable>
  /** Logs the moves not logged yet (see `progress`). */
  readonly logProgress: (always: boolean) => Effect.Effect<void>
}

/** The `Transition` of the worker named `worker`. */
export const make = (worker: string): Effect.Effect<Transition, never, MessageStore | IdGenerator> =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    const ids = yield* IdGenerator
    const progress = Progress.make<MessageStatus>(worker, describe)

    const move = (changes: ReadonlyArray<Change>) =>
      changes.length === 0 ? Effect.void : Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const moves = yield* Effect.forEach(changes, ({ from, next }) =>
          Effect.map(ids.make("evt"), (id) => ({
            next,
            from,
            event: Option.some(MessageEvents.make(id, next, now)),
            // A message that fails before it is dispatched (CONTRACT §3: from queued) costs nothing (§12).
            refund: next.status === "failed"
          })))
        const done = yield* messages.transition(moves)
        for (const [i, { from, next }] of changes.entries()) {
          if (done[i]) {
            progress.count(next.status)
          } else yield* Effect.logDebug(`${worker}: ${next.id} had already left ${from}; someone else moved it`)
        }
        yield* progress.log(false)
      })

    return { move, logProgress: progress.log }
  })
