/**
 * `AccountStore` on SQL: the tables `sendline_accounts` and `sendline_api_keys`. Every request
 * looks its key up by digest, so concurrent lookups share one `IN (…)` query (see `Batcher`).
 *
 * @since 0.1.0
 */
import { Account, AccountStore, Permission } from "@sendline/core"
import type { Context, Scope } from "effect"
import { Effect, Option, Schema } from "effect"
import * as Batcher from "./Batcher.js"
import * as Database from "./Database.js"
import * as Rows from "./Rows.js"

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
 * `AccountStore` on `db`; its batcher of key lookups lives as long as the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { read, sql, write }: Database.Database
): Effect.Effect<Context.Tag.Service<AccountStore.AccountStore>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const keysByDigest = yield* Batcher.make({
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
      insertAccount: (account) => write(Effect.asVoid(sql`INSERT INTO sendline_accounts ${sql.insert(accounts.encode(account))}`)),
      findAccount: (id) => read(Effect.flatMap(sql`SELECT * FROM sendline_accounts WHERE id = ${id}`, accounts.decodeFirst)),
      insertKey: (key) => write(Effect.asVoid(sql`INSERT INTO sendline_api_keys ${sql.insert(apiKeys.encode(key))}`)),
      findKeyByDigest: keysByDigest.submit,
      revokeKey: (id, at) =>
        write(Effect.map(
          sql`UPDATE sendline_api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`,
          (rows) => rows.length > 0
        ))
    })
  })
