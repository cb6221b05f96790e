/**
 * Storage port for accounts and their API keys, and for who owns which legal identifier.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"
import type { Account, ApiKey } from "./Account.js"

/** Accounts and API keys. @since 0.1.0 @category ports */
export class AccountStore extends Context.Tag("@sendline/core/AccountStore")<AccountStore, {
  /**
   * Inserts `account`; a `brand` account owns its identifiers from then on, in the same write. When
   * another account owns one of them already, nothing is written and the insert fails
   * `IdentifierTaken`: of two inserts at once with one identifier, exactly one succeeds.
   */
  readonly insertAccount: (account: Account) => Effect.Effect<void, IdentifierTaken | StoreUnavailable>
  readonly findAccount: (id: string) => Effect.Effect<Option.Option<Account>, StoreUnavailable>
  /**
   * The id of the Brand Owner of an identifier: the `brand` account that owns it. The value is
   * compared as stored, so give it normalised (`Identifier.check` answers it so).
   */
  readonly findBrandOwner: (
    identifierType: string,
    identifierValue: string
  ) => Effect.Effect<Option.Option<string>, StoreUnavailable>
  readonly insertKey: (key: ApiKey) => Effect.Effect<void, StoreUnavailable>
  readonly findKeyByDigest: (digest: string) => Effect.Effect<Option.Option<ApiKey>, StoreUnavailable>
  /** Marks a key revoked at `at`; false when there is no such key or it was already revoked. */
  readonly revokeKey: (id: string, at: number) => Effect.Effect<boolean, StoreUnavailable>
}>() {}

/**
 * `insertAccount`'s expected outcome when another account owns one of the new account's
 * identifiers: the account `accountId` was not written.
 *
 * @since 0.1.0
 * @category errors
 */
export class IdentifierTaken extends Schema.TaggedError<IdentifierTaken>("@sendline/core/IdentifierTaken")(
  "IdentifierTaken",
  { accountId: Schema.String }
) {}
