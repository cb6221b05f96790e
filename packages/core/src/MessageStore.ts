/**
 * Storage port for messages. Every write that changes a status takes the event it emits, and the
 * store writes both atomically (the outbox). Writes are single calls, so a store may batch the
 * commits of concurrent callers (group commit) without the use cases knowing.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { StoreUnavailable } from "./Errors.js"
import type { Event } from "./Event.js"
import type { Keyset, Message, MessageFilter, MessageStatus } from "./Message.js"

/** Messages and their events. @since 0.1.0 @category ports */
export class MessageStore extends Context.Tag("@sendline/core/MessageStore")<MessageStore, {
  /** Inserts a new message and, when given, its event, in one transaction. */
  readonly insert: (message: Message, event: Option.Option<Event>) => Effect.Effect<void, StoreUnavailable>
  readonly findById: (accountId: string, id: string) => Effect.Effect<Option.Option<Message>, StoreUnavailable>
  /** The account's messages matching `filter`, newest first (createdAt desc, id desc), after `after`. */
  readonly list: (
    accountId: string,
    filter: MessageFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Message>, StoreUnavailable>
  /**
   * Replaces the message with `next` only while its stored status is still `from`, writing `event`
   * in the same transaction; false when the status had moved on (someone else won).
   */
  readonly transition: (
    next: Message,
    from: MessageStatus,
    event: Option.Option<Event>
  ) => Effect.Effect<boolean, StoreUnavailable>
}>() {}
