/**
 * Storage port for Sender ID records.
 *
 * @since 0.1.0
 */
import { Context, Effect, Option } from "effect"
import type { StoreUnavailable } from "../Errors.js"
import { canSend, type SenderIdRecord } from "./SenderId.js"

/** Sender ID records. @since 0.1.0 @category ports */
export class SenderIdStore extends Context.Tag("@sendline/core/SenderIdStore")<SenderIdStore, {
  readonly insert: (record: SenderIdRecord) => Effect.Effect<void, StoreUnavailable>
  readonly findById: (accountId: string, id: string) => Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable>
  /** The account's newest record for this Sender ID string in `market` that is `registered`, if any. */
  readonly findRegistered: (
    accountId: string,
    senderId: string,
    market: string
  ) => Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable>
  /** Every account's records of this Sender ID string in `market` whose status is neither `rejected` nor `expired`. */
  readonly findHeld: (senderId: string, market: string) => Effect.Effect<ReadonlyArray<SenderIdRecord>, StoreUnavailable>
}>() {}

/** The account's registration of `senderId` in `market` that may send at `now`, if any (see `canSend`). @since 0.1.0 @category lookups */
export const findSendable = (
  store: Context.Tag.Service<SenderIdStore>,
  accountId: string,
  senderId: string,
  market: string,
  now: number
): Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable> =>
  Effect.map(store.findRegistered(accountId, senderId, market), Option.filter((record) => canSend(record, now)))
