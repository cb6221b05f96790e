/**
 * Storage port for accounts and their API keys.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { Account, ApiKey } from "./Account.js"
import type { StoreUnavailable } from "../Errors.js"

/** Accounts and API keys. @since 0.1.0 @category ports */
export class AccountStore extends Context.Tag("@sendline/core/AccountStore")<AccountStore, {
  readonly insertAccount: (account: Account) => Effect.Effect<void, StoreUnavailable>
  readonly findAccount: (id: string) => Effect.Effect<Option.Option<Account>, StoreUnavailable>
  readonly insertKey: (key: ApiKey) => Effect.Effect<void, StoreUnavailable>
  readonly findKeyByDigest: (digest: string) => Effect.Effect<Option.Option<ApiKey>, StoreUnavailable>
  /** Marks a key revoked at `at`; false when there is no such key or it was already revoked. */
  readonly revokeKey: (id: string, at: number) => Effect.Effect<boolean, StoreUnavailable>
}>() {}
