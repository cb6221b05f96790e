/**
 * Storage port for Sender ID records and their operator registrations. A record is written with
 * its registrations and events in one transaction (the outbox, as messages are); a change to it is
 * written only over the version it was made from (`Move`), so that two decisions at once on one
 * Sender ID never both derive its status from what the other has not written yet.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Context, Effect, Option, Schema } from "effect"
import type { Event } from "../Event.js"
import type { Keyset } from "../Pagination.js"
import type { Registration, RegistrationStatus, SubmitterType } from "./Registration.js"
import { canSend, type SenderIdRecord, type SenderIdStatus } from "./SenderId.js"

/** A record with its registrations (none for an imported one), oldest network first. @since 0.1.0 @category models */
export interface WithRegistrations {
  readonly record: SenderIdRecord
  readonly registrations: ReadonlyArray<Registration>
}

/**
 * One change to a record: `next` (its `version` one more than the stored one) replaces it, with
 * `registrations` replacing those of theirs ids, and `events` written with them, only while the
 * stored version is still `next.version - 1`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Move {
  readonly next: SenderIdRecord
  readonly registrations: ReadonlyArray<Registration>
  readonly events: ReadonlyArray<Event>
}

/** The filters of an account's Sender ID list. @since 0.1.0 @category models */
export interface SenderIdFilter {
  readonly status?: SenderIdStatus | undefined
  readonly market?: string | undefined
}

/**
 * The filters of an operator's registration list: always its `network` in its `markets`, then
 * each given filter. `senderId` and `brandName` are case-insensitive substrings, every character
 * taken literally (`%` and `_` too); `submittedAfter` is inclusive, `submittedBefore` exclusive.
 *
 * @since 0.1.0
 * @category models
 */
export interface RegistrationFilter {
  readonly network: string
  readonly markets: ReadonlyArray<string>
  readonly status?: RegistrationStatus | undefined
  readonly market?: string | undefined
  readonly senderId?: string | undefined
  readonly brandName?: string | undefined
  readonly submitterType?: SubmitterType | undefined
  readonly submittedAfter?: number | undefined
  readonly submittedBefore?: number | undefined
}

/** Sender ID records and their registrations. @since 0.1.0 @category ports */
export class SenderIdStore extends Context.Tag("@sendline/core/SenderIdStore")<SenderIdStore, {
  /**
   * Inserts a record with its registrations and events, in one transaction. A record that holds
   * its Sender ID string (`holdsAt` its `createdAt`) takes the string and its look-alikes (one
   * `skeleton`) in its market for its legal entity (`Holder`): while another entity has a record
   * that holds one of them then, the insert is `SenderIdTaken` and writes nothing; of two inserts
   * at once of one string or look-alike under two entities, exactly one succeeds. An entity may
   * hold a string with several records, under any brand name. With `pendingLimit`, a `pending` or
   * `info_requested` record is `PendingLimitReached` when its account has that many such records
   * already, however many inserts run at once (checked before the hold, so that an account at its
   * limit learns nothing of what others hold).
   */
  readonly insert: (
    record: SenderIdRecord,
    registrations: ReadonlyArray<Registration>,
    events: ReadonlyArray<Event>,
    pendingLimit?: number
  ) => Effect.Effect<void, SenderIdTaken | PendingLimitReached | StoreUnavailable>
  /** The record `id` with its registrations, whoever's it is: the use case decides who may see it. */
  readonly findById: (id: string) => Effect.Effect<Option.Option<WithRegistrations>, StoreUnavailable>
  /** The account's records with their registrations, newest first (createdAt desc, id desc), after `after`. */
  readonly list: (
    accountId: string,
    filter: SenderIdFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<WithRegistrations>, StoreUnavailable>
  /** The account's newest record for this Sender ID string in `market` that is `registered`, if any. */
  readonly findRegistered: (
    accountId: string,
    senderId: string,
    market: string
  ) => Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable>
  /** The registration `id`, whoever's it is: the use case decides who may see it. */
  readonly findRegistration: (id: string) => Effect.Effect<Option.Option<Registration>, StoreUnavailable>
  /** The registrations `filter` selects, newest first (submittedAt desc, id desc), after `after` (its `createdAt` is a `submittedAt`). */
  readonly listRegistrations: (
    filter: RegistrationFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Registration>, StoreUnavailable>
  /**
   * Applies the moves in order, in one transaction, each only over the version it was made from
   * (see `Move`); for each, whether it did.
   */
  readonly transition: (moves: ReadonlyArray<Move>) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
  /**
   * Claims up to `limit` records the expiry watcher must look at by `now` (`SenderId.watchAt`) that
   * no live claim holds, the earliest first, and holds them until `leaseUntil`. Two claimers, in one
   * process or several, never get the same record while its lease lasts; any move of a record ends
   * its claim.
   */
  readonly claimWatched: (
    now: number,
    limit: number,
    leaseUntil: number
  ) => Effect.Effect<ReadonlyArray<SenderIdRecord>, StoreUnavailable>
}>() {}

/**
 * A record was not inserted: its Sender ID string, or a look-alike of it, is held in its market by
 * another legal entity, which is not named (CONTRACT §6's `sender_id_taken`).
 *
 * @since 0.1.0
 * @category errors
 */
export class SenderIdTaken extends Schema.TaggedError<SenderIdTaken>("@sendline/core/SenderIdTaken")(
  "SenderIdTaken",
  { senderId: Schema.String, market: Schema.String }
) {}

/**
 * A record was not inserted: its account has `limit` Sender IDs `pending` or `info_requested`
 * already (CONTRACT §6, `Limits.pendingSenderIds`).
 *
 * @since 0.1.0
 * @category errors
 */
export class PendingLimitReached extends Schema.TaggedError<PendingLimitReached>("@sendline/core/PendingLimitReached")(
  "PendingLimitReached",
  { accountId: Schema.String, limit: Schema.Number }
) {}

/** The account's registration of `senderId` in `market` that may send at `now`, if any (see `canSend`). @since 0.1.0 @category lookups */
export const findSendable = (
  store: Context.Tag.Service<SenderIdStore>,
  accountId: string,
  senderId: string,
  market: string,
  now: number
): Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable> =>
  Effect.map(store.findRegistered(accountId, senderId, market), Option.filter((record) => canSend(record, now)))
