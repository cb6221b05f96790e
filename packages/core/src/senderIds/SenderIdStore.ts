/**
 * Storage port for Sender ID records.
 *
 * @since 0.1.0
 */
import { Context, Effect, Option, Schema } from "effect"
import type { StoreUnavailable } from "../Errors.js"
import { canSend, type SenderIdRecord } from "./SenderId.js"

/** Sender ID records. @since 0.1.0 @category ports */
export class SenderIdStore extends Context.Tag("@sendline/core/SenderIdStore")<SenderIdStore, {
  /**
   * Inserts a record. A record that holds its Sender ID string (`holdsAt` its `createdAt`) takes the
   * string in its market for its brand, case-insensitively: while another brand has a record that
   * holds it then, the insert is `SenderIdTaken` and writes nothing; of two inserts at once of one
   * string under two brands, exactly one succeeds. A brand may hold a string with several records.
   */
  readonly insert: (record: SenderIdRecord) => Effect.Effect<void, SenderIdTaken | StoreUnavailable>
  readonly findById: (accountId: string, id: string) => Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable>
  /** The account's newest record for this Sender ID string in `market` that is `registered`, if any. */
  readonly findRegistered: (
    accountId: string,
    senderId: string,
    market: string
  ) => Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable>
  /** Every account's records of this Sender ID string in `market`, in any case, whose status is neither `rejected` nor `expired`. */
  readonly findHeld: (senderId: string, market: string) => Effect.Effect<ReadonlyArray<SenderIdRecord>, StoreUnavailable>
}>() {}

/**
 * A record was not inserted: its Sender ID string is held in its market by another brand,
 * `brandName` (CONTRACT §6's `sender_id_taken`).
 *
 * @since 0.1.0
 * @category errors
 */
export class SenderIdTaken extends Schema.TaggedError<SenderIdTaken>("@sendline/core/SenderIdTaken")(
  "SenderIdTaken",
  { senderId: Schema.String, market: Schema.String, brandName: Schema.String }
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
