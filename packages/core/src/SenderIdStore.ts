/**
 * Storage port for Sender ID records.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { StoreUnavailable } from "./Errors.js"
import type { SenderIdRecord } from "./SenderId.js"

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
}>() {}
