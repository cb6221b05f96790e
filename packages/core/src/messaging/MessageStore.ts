/**
 * Storage port for messages. Every write that changes a status takes the event it emits, and the
 * store writes both atomically (the outbox). Writes are single calls, so a store may batch the
 * commits of concurrent callers (group commit) without the use cases knowing; the workers hand
 * over a whole pass of status changes in one `transition`.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Event } from "../Event.js"
import type { IdempotencyKeyTaken } from "../idempotency/Idempotency.js"
import type { Batch, NewBatch, StatusCounts } from "./Batch.js"
import type { Keyset, Message, MessageFilter, MessageStatus } from "./Message.js"
import type { Charge, SpendingLimitReached } from "./SpendingStore.js"

/** A carrier's id for a message, with the carrier's name when it is known. @since 0.2.0 @category models */
export interface CarrierMessageKey {
  readonly carrier?: string | undefined
  readonly carrierMessageId: string
}

/** Messages and their events. @since 0.1.0 @category ports */
export class MessageStore extends Context.Tag("@sendline/core/MessageStore")<MessageStore, {
  /**
   * Inserts a new message and, when given, its event, in one transaction. A message's
   * `idempotencyKey` is unique within its account, across processes: when another message of the
   * account holds it, nothing is written and the insert fails `IdempotencyKeyTaken`. With a
   * `charge` (since 0.2.0), the month's spend grows by it in the same transaction, only while that
   * keeps it within the account's limit, checked and changed in one conditional update so that no
   * number of concurrent inserts, in any number of processes, takes it past; else nothing is
   * written and the insert fails `SpendingLimitReached`. The charge's mails are written with it
   * when it takes the spend to 80 % or 100 % of the limit, each once for the month.
   */
  readonly insert: (
    message: Message,
    event: Option.Option<Event>,
    charge?: Charge | undefined
  ) => Effect.Effect<void, IdempotencyKeyTaken | SpendingLimitReached | StoreUnavailable>
  /**
   * Writes a batch (since 0.3.0, CONTRACT §13) in one transaction: each valid entry's charge is
   * applied in request order (per currency), as `insert` applies one, and an entry the limit
   * refuses is answered `batch.refused`; then the valid messages that remain, their events and the
   * batch's record (`Batch.recordOf`). When none remains, nothing is written and the record answered
   * has no accepted message. A batch's `idempotencyKey` is unique within its account: when another
   * batch holds it, nothing is written and it fails `IdempotencyKeyTaken`. All or nothing, a crash too.
   */
  readonly insertBatch: (batch: NewBatch) => Effect.Effect<Batch, IdempotencyKeyTaken | StoreUnavailable>
  /** The account's batch `id`, if any (since 0.3.0). */
  readonly findBatch: (accountId: string, id: string) => Effect.Effect<Option.Option<Batch>, StoreUnavailable>
  /** The account's newest batch sent with this idempotency key and created at or after `since`, if any (since 0.3.0). */
  readonly findBatchByIdempotencyKey: (
    accountId: string,
    key: string,
    since: number
  ) => Effect.Effect<Option.Option<Batch>, StoreUnavailable>
  /** Takes the idempotency key `key` off the account's batches created before `before` (since 0.3.0). */
  readonly releaseBatchIdempotencyKey: (
    accountId: string,
    key: string,
    before: number
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * How many of batch `batchId`'s messages are in each status now (since 0.3.0), counted from an
   * index of the batch's messages by status, not by reading them.
   */
  readonly countBatch: (batchId: string) => Effect.Effect<StatusCounts, StoreUnavailable>
  readonly findById: (accountId: string, id: string) => Effect.Effect<Option.Option<Message>, StoreUnavailable>
  /** The account's newest message sent with this idempotency key and created at or after `since`, if any. */
  readonly findByIdempotencyKey: (
    accountId: string,
    key: string,
    since: number
  ) => Effect.Effect<Option.Option<Message>, StoreUnavailable>
  /**
   * Takes the idempotency key `key` off the account's messages created before `before` (they keep
   * everything else), so that a new message may be sent with it: a key is the account's again once
   * its retention has passed.
   */
  readonly releaseIdempotencyKey: (
    accountId: string,
    key: string,
    before: number
  ) => Effect.Effect<void, StoreUnavailable>
  /** `findById` for many at once, in one read: the answer for each key, in the keys' order. */
  readonly findMany: (
    keys: ReadonlyArray<MessageKey>
  ) => Effect.Effect<ReadonlyArray<Option.Option<Message>>, StoreUnavailable>
  /**
   * The messages each carrier accepted under these ids (`Message.carrier`, `Message.carrierMessageId`),
   * in one read: the answer for each key, in the keys' order. A key without a carrier, or a message
   * stored without one (before routing), matches on the id alone; the newest message wins a tie.
   */
  readonly findByCarrierMessageIds: (
    keys: ReadonlyArray<CarrierMessageKey>
  ) => Effect.Effect<ReadonlyArray<Option.Option<Message>>, StoreUnavailable>
  /** The account's messages matching `filter`, newest first (createdAt desc, id desc), after `after`. */
  readonly list: (
    accountId: string,
    filter: MessageFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Message>, StoreUnavailable>
  /**
   * Applies the moves in order, in one transaction: each replaces its message with `next` only
   * while the stored status is still its `from`, writing its event with it; for each move, whether
   * it did (false when the status had moved on: someone else won, or an earlier move of the same
   * message). A move ends any claim on the message: the claim was for the work of its old status.
   */
  readonly transition: (moves: ReadonlyArray<Move>) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
  /**
   * Claims up to `limit` messages due for `work` at `now` that no live claim holds, and holds them
   * until `leaseUntil`, oldest first: `dispatch` takes `queued` messages, `schedule` takes
   * `scheduled` ones whose `scheduledAt` has come. Two claimers, in one process or several, never
   * get the same message while its lease lasts; a claimer that dies loses it when the lease ends.
   */
  readonly claim: (
    work: ClaimWork,
    now: number,
    limit: number,
    leaseUntil: number
  ) => Effect.Effect<ReadonlyArray<Message>, StoreUnavailable>
}>() {}

/**
 * `insert` wrote nothing: the message's idempotency key is held by another message of its account
 * (`Idempotency.IdempotencyKeyTaken`, which a brand's relationship is refused with too).
 *
 * @since 0.1.0
 * @category errors
 */
export { IdempotencyKeyTaken } from "../idempotency/Idempotency.js"

/** Which message `findMany` looks for: its id, and the account it must belong to. @since 0.1.0 @category models */
export interface MessageKey {
  readonly accountId: string
  readonly id: string
}

/** One status change for `transition`: `next` replaces its message while its status is `from`. @since 0.1.0 @category models */
export interface Move {
  readonly next: Message
  readonly from: MessageStatus
  /** The `message.*` event the change emits, written only if the move happens. */
  readonly event: Option.Option<Event>
  /**
   * When true, and the move happens, the message's price, segments and count are taken off its
   * account's spend of the month it was created in, in the same transaction (since 0.2.0).
   */
  readonly refund?: boolean | undefined
}

/** The kinds of message work a worker claims. @since 0.1.0 @category models */
export type ClaimWork = "dispatch" | "schedule"
