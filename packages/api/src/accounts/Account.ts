/**
 * What the API says of accounts (CONTRACT §2): their kinds, and the caller a key authenticates as,
 * which the `Authentication` middleware provides to every `/v1` handler.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import type { Permission } from "./Permission.js"

/** The kinds of account. @since 0.1.0 @category models */
export const AccountType = Schema.Literal("brand", "aggregator", "cpaas", "operator")
/** A kind of account. @since 0.1.0 @category models */
export type AccountType = typeof AccountType.Type

/** Who is calling: the key's account, the key and its permissions. @since 0.1.0 @category models */
export interface Principal {
  readonly accountId: string
  readonly keyId: string
  readonly permissions: ReadonlySet<Permission>
}
