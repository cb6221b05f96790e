/**
 * `AccountStore` on SQL: the tables `sendline_accounts`, `sendline_owned_identifiers` and
 * `sendline_api_keys`. Every request looks its key up by digest, so concurrent lookups share one
 * `IN (…)` query (see `Batcher`). A brand account and the rows of the identifiers it owns are
 * written in one transaction, whose primary key refuses an identifier another account owns.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { Account, AccountStore, Permission } from "@sendline/core"
import type { Context, Scope } from "effect"
import { Effect, Option, Schema } from "effect"
import * as Batcher from "../Batcher.js"
import * as Database from "../Database.js"
import * as Migrations from "../Migrations.js"
import * as Rows from "../Rows.js"

/** `sendline_accounts`: an account per row, its lists as JSON. @since 0.1.0 @category tables */
export const accounts = Rows.table<Account.Account>()(
  "sendline_accounts",
  Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    type: Account.AccountType,
    adminEmail: Rows.column("admin_email", Schema.String),
    network: Rows.nullable(Schema.String),
    markets: Schema.parseJson(Schema.Array(Schema.String)),
    identifiers: Schema.parseJson(Schema.Array(Account.OwnedIdentifier)),
    createdAt: Rows.column("created_at", Rows.Int8)
  })
)

/** A legal identifier and the brand account that owns it. @since 0.1.0 @category models */
export interface Ownership extends Account.OwnedIdentifier {
  readonly accountId: string
}

/**
 * `sendline_owned_identifiers`: an identifier per row with its owner, keyed by the identifier
 * (`Migrations.ownedIdentifiers`), beside the account's own list (`identifiers`), which it repeats.
 *
 * @since 0.1.0
 * @category tables
 */
export const ownedIdentifiers = Rows.table<Ownership>()(
  Migrations.ownedIdentifiers.table,
  Schema.Struct({
    identifierType: Rows.column("identifier_type", Schema.String),
    identifierValue: Rows.column("identifier_value", Schema.String),
    accountId: Rows.column("account_id", Schema.String)
  })
)

/** The rows of the identifiers `account` owns (a brand's; each once). */
const ownershipsOf = (account: Account.Account): ReadonlyArray<Ownership> => {
  if (account.type !== "brand") return []
  const unique = new Map(
    account.identifiers.map((owned) => [JSON.stringify([owned.identifierType, owned.identifierValue]), owned])
  )
  return Array.from(unique.values(), (owned) => ({ ...owned, accountId: account.id }))
}

/** `sendline_api_keys`: a key per row, by the SHA-256 digest of its secret. @since 0.1.0 @category tables */
export const apiKeys = Rows.table<Account.ApiKey>()(
  "sendline_api_keys",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    digest: Schema.String,
    permissions: Schema.parseJson(Schema.Array(Permission.Permission)),
    expiresAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("expires_at")),
    revokedAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("revoked_at")),
    createdAt: Rows.column("created_at", Rows.Int8)
  })
)

/**
 * Holds the row of account `accountId` until the transaction this runs in ends (a write of it that
 * changes nothing): what that transaction counts of the account's rows and then inserts is done one
 * request at a time per account, in every process, so that a limit per account holds however many
 * requests run at once (PostgreSQL waits on the row's lock; SQLite has one writer anyway).
 *
 * @since 0.1.0
 * @category statements
 */
export const lock = (sql: SqlClient.SqlClient, accountId: string): Statement.Statement<object> =>
  sql`UPDATE sendline_accounts SET id = id WHERE id = ${accountId}`

/**
 * `AccountStore` on `db`; its batcher of key lookups lives as long as the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { dialect, read, sql, unavailable, write }: Database.Database
): Effect.Effect<Context.Tag.Service<AccountStore.AccountStore>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const keysByDigest = yield* Batcher.make({
      name: "AccountStore.findKeyByDigest",
      maxBatch: Database.batchLimit,
      run: (digests: ReadonlyArray<string>) =>
        read(Effect.map(
          Effect.flatMap(sql`SELECT * FROM sendline_api_keys WHERE digest IN ${sql.in(digests)}`, apiKeys.decode),
          (keys) => {
            const byDigest = new Map(keys.map((key) => [key.digest, key]))
            return digests.map((digest) => Option.fromNullable(byDigest.get(digest)))
          }
        ))
    })

    return AccountStore.AccountStore.of({
      insertAccount: (account) => {
        const insert = sql`INSERT INTO sendline_accounts ${sql.insert(accounts.encode(account))}`
        const owned = ownershipsOf(account)
        if (owned.length === 0) return write(Effect.asVoid(insert))
        // A transaction on both databases: the account is written with its identifiers or not at all.
        return sql.withTransaction(
          Effect.zipRight(
            insert,
            sql`INSERT INTO sendline_owned_identifiers ${sql.insert(owned.map(ownedIdentifiers.encode))}`
          )
        ).pipe(
          Effect.mapError((error) =>
            dialect.isUniqueViolation(error, Migrations.ownedIdentifiers)
              ? new AccountStore.IdentifierTaken({ accountId: account.id })
              : unavailable(error)
          ),
          Effect.asVoid
        )
      },
      findAccount: (id) =>
        read(Effect.flatMap(sql`SELECT * FROM sendline_accounts WHERE id = ${id}`, accounts.decodeFirst)),
      findBrandOwner: (identifierType, identifierValue) =>
        read(Effect.map(
          Effect.flatMap(
            sql`SELECT * FROM sendline_owned_identifiers
              WHERE identifier_type = ${identifierType} AND identifier_value = ${identifierValue}`,
            ownedIdentifiers.decodeFirst
          ),
          Option.map((owned) => owned.accountId)
        )),
      insertKey: (key) => write(Effect.asVoid(sql`INSERT INTO sendline_api_keys ${sql.insert(apiKeys.encode(key))}`)),
      findKeyByDigest: keysByDigest.submit,
      revokeKey: (id, at) =>
        write(Effect.map(
          sql`UPDATE sendline_api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`,
          (rows) => rows.length > 0
        ))
    })
  })
