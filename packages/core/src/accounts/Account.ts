/**
 * Accounts (organisations) and API keys of CONTRACT §2.
 *
 * @since 0.1.0
 */
import { AccountType } from "@sendline/api/accounts/Account"
import { Permission } from "@sendline/api/accounts/Permission"
import { Schema } from "effect"

export {
  /** The kinds of account, as the API names them. @since 0.1.0 @category models */
  AccountType,
  /** Who is calling: the key's account and permissions, established by `Auth`. @since 0.1.0 @category models */
  type Principal
} from "@sendline/api/accounts/Account"

/** A legal identifier a brand account owns, which makes it the Brand Owner. @since 0.1.0 @category models */
export const OwnedIdentifier = Schema.Struct({ identifierType: Schema.String, identifierValue: Schema.String })
/** A legal identifier a brand account owns. @since 0.1.0 @category models */
export type OwnedIdentifier = typeof OwnedIdentifier.Type

/** An organisation. @since 0.1.0 @category models */
export const Account = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: AccountType,
  adminEmail: Schema.String,
  network: Schema.optional(Schema.String),
  markets: Schema.Array(Schema.String),
  identifiers: Schema.Array(OwnedIdentifier),
  createdAt: Schema.Number
})
/** An organisation. @since 0.1.0 @category models */
export type Account = typeof Account.Type

/** A stored API key: only the SHA-256 digest of its secret is kept. @since 0.1.0 @category models */
export const ApiKey = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  digest: Schema.String,
  permissions: Schema.Array(Permission),
  expiresAt: Schema.optional(Schema.Number),
  revokedAt: Schema.optional(Schema.Number),
  createdAt: Schema.Number
})
/** A stored API key. @since 0.1.0 @category models */
export type ApiKey = typeof ApiKey.Type
