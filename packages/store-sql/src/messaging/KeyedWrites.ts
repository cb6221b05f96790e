/**
 * The idempotency key a send keeps on its own row (a single send's message, a batch's record): the
 * same two statements over either table, found while its window lasts and released after it.
 *
 * @since 0.3.0
 */
import type { Errors } from "@sendline/core"
import type { Option } from "effect"
import { Effect } from "effect"
import type * as Database from "../Database.js"
import type * as Rows from "../Rows.js"

/** The key's reads and releases on `table`, whose rows carry `account_id`, `idempotency_key` and `created_at`. @since 0.3.0 @category constructors */
export const make = <A, I>({ read, sql, write }: Database.Database, table: Rows.Table<A, I>) => ({
  /** The newest row of `accountId` keeping `key`, created at or after `since`. */
  find: (accountId: string, key: string, since: number): Effect.Effect<Option.Option<A>, Errors.StoreUnavailable> =>
    read(Effect.flatMap(
      sql`SELECT * FROM ${sql(table.name)}
        WHERE account_id = ${accountId} AND idempotency_key = ${key} AND created_at >= ${since}
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      table.decodeFirst
    )),
  /** Frees `key` from `accountId`'s rows created before `before`, so that a new send may take it. */
  release: (accountId: string, key: string, before: number): Effect.Effect<void, Errors.StoreUnavailable> =>
    write(Effect.asVoid(sql`UPDATE ${sql(table.name)} SET idempotency_key = NULL
      WHERE account_id = ${accountId} AND idempotency_key = ${key} AND created_at < ${before}`))
})
