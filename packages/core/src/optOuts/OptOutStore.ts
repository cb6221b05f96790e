/**
 * Storage port for opt-outs (CONTRACT §12): an account's listed numbers, one entry per account and
 * number, read by the opt-out endpoints and checked by every send and before every dispatch.
 *
 * @since 0.2.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Keyset } from "../Pagination.js"
import type { OptOut, OptOutFilter, OptOutSource } from "./OptOut.js"

/** What an add did: the entry as stored, and whether this add created it. @since 0.2.0 @category models */
export interface Added {
  readonly optOut: OptOut
  readonly created: boolean
}

/** Opt-outs. @since 0.2.0 @category ports */
export class OptOutStore extends Context.Tag("@sendline/core/OptOutStore")<OptOutStore, {
  /**
   * Lists `optOut` unless its account lists its number already: the entry as stored afterwards
   * (the one there before, unchanged, when it was), and whether this add created it.
   */
  readonly add: (optOut: OptOut) => Effect.Effect<Added, StoreUnavailable>
  /**
   * Lists each of `phones` (E.164) not yet listed by `accountId`, all with `source` and `createdAt`
   * and no reason, in one transaction (committed whole or not at all); how many it added.
   */
  readonly addMany: (
    accountId: string,
    phones: ReadonlyArray<string>,
    source: OptOutSource,
    createdAt: number
  ) => Effect.Effect<number, StoreUnavailable>
  /** The account's entry for `phone`, if listed. */
  readonly get: (accountId: string, phone: string) => Effect.Effect<Option.Option<OptOut>, StoreUnavailable>
  /** Which of `phones` the account lists (one indexed lookup per statement: the check of a send). */
  readonly listed: (
    accountId: string,
    phones: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlySet<string>, StoreUnavailable>
  /**
   * The account's opt-outs that `filter` keeps, newest first (createdAt desc, then phone desc),
   * after `after` (its `id` a phone).
   */
  readonly list: (
    accountId: string,
    filter: OptOutFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<OptOut>, StoreUnavailable>
  /** Takes `phone` off the account's list; whether it was listed. */
  readonly delete: (accountId: string, phone: string) => Effect.Effect<boolean, StoreUnavailable>
}>() {}
