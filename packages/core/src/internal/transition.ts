/**
 * The one way a worker moves a message: its `message.*` event, stamped now, written in the same
 * store call as the new status, and only while the message is still in `from`.
 */
import { Clock, Effect, Option } from "effect"
import * as Event from "../Event.js"
import { IdGenerator } from "../Ids.js"
import type { Message, MessageStatus } from "../Message.js"
import { MessageStore } from "../MessageStore.js"

/** Moves `next` out of `from` with its event; false when someone else moved it first. */
export const make = Effect.gen(function*() {
  const messages = yield* MessageStore
  const ids = yield* IdGenerator
  return (next: Message, from: MessageStatus) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return yield* messages.transition(next, from, Option.some(Event.forMessage(yield* ids.make("evt"), next, now)))
    })
})
