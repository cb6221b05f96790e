/**
 * Read port for the event log that state changes write.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { StoreUnavailable } from "./Errors.js"
import type { Event } from "./Event.js"

/** Reads events. @since 0.1.0 @category ports */
export class EventStore extends Context.Tag("@sendline/core/EventStore")<EventStore, {
  /** The events of one subject (a message, a Sender ID…), oldest first: createdAt, then id. */
  readonly listBySubject: (accountId: string, subjectId: string) => Effect.Effect<ReadonlyArray<Event>, StoreUnavailable>
}>() {}
