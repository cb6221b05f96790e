/**
 * Read port for the event log that state changes write: the events of one subject, and an
 * account's events as `GET /v1/events` lists them (CONTRACT §7).
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Event, EventType } from "./Event.js"
import type { Keyset } from "./Pagination.js"

/** The filters of the event log: one type, and made at or after a time. @since 0.1.0 @category models */
export interface EventFilter {
  readonly type?: EventType | undefined
  readonly createdAfter?: number | undefined
}

/** Reads events. @since 0.1.0 @category ports */
export class EventStore extends Context.Tag("@sendline/core/EventStore")<EventStore, {
  /** The events of one subject (a message, a Sender ID…), oldest first: createdAt, then id. */
  readonly listBySubject: (
    accountId: string,
    subjectId: string
  ) => Effect.Effect<ReadonlyArray<Event>, StoreUnavailable>
  /** The event `id` of `accountId`, if any. */
  readonly findById: (accountId: string, id: string) => Effect.Effect<Option.Option<Event>, StoreUnavailable>
  /** The account's events, newest first (createdAt desc, id desc), after `after`, by `filter`. */
  readonly list: (
    accountId: string,
    filter: EventFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Event>, StoreUnavailable>
}>() {}
