/**
 * The one way a worker moves messages: each with its `message.*` event, stamped now, written in
 * the same store call as the new status, and only while the message is still in its `from`. A move
 * that lost its race (a cancel, a second report) is logged at debug level, once, here.
 */
import { Clock, Effect, Option } from "effect"
import * as Event from "../Event.js"
import { IdGenerator } from "../Ids.js"
import type { Message, MessageStatus } from "../Message.js"
import { MessageStore } from "../MessageStore.js"

/** A worker's move of one message, before its event is made. */
export interface Change {
  readonly next: Message
  readonly from: MessageStatus
}

/** Moves each `next` out of its `from` with its event, in one store call, for the worker named `worker`. */
export const make = (worker: string) =>
  Effect.gen(function*() {
    const messages = yield* MessageStore
    const ids = yield* IdGenerator
    return (changes: ReadonlyArray<Change>) =>
      changes.length === 0 ? Effect.void : Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const moves = yield* Effect.forEach(changes, ({ from, next }) =>
          Effect.map(ids.make("evt"), (id) => ({ next, from, event: Option.some(Event.forMessage(id, next, now)) })))
        const moved = yield* messages.transition(moves)
        for (const [i, { from, next }] of changes.entries()) {
          if (!moved[i]) yield* Effect.logDebug(`${worker}: ${next.id} had already left ${from}; someone else moved it`)
        }
      })
  })
