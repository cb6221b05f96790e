/**
 * `OptOutStore` on SQL: the table `sendline_opt_outs` (`0020`), keyed by (account_id, phone), so
 * that an account lists a number once and a send's check is one lookup of that key; an account's
 * list read newest first through `sendline_opt_outs_list`. An add is one `INSERT … ON CONFLICT DO
 * NOTHING RETURNING`: a number listed already is read back as it was, never changed. An import's
 * chunk is one transaction of such inserts.
 *
 * @since 0.2.0
 */
import { OptOut, OptOutStore } from "@sendline/core"
import type { Pagination } from "@sendline/core"
import type { Context } from "effect"
import { Array as Arr, Effect, Option, Schema } from "effect"
import * as Database from "../Database.js"
import * as Rows from "../Rows.js"

/** `sendline_opt_outs`: an opt-out per row. @since 0.2.0 @category tables */
export const optOuts = Rows.table<OptOut.OptOut>()(
  "sendline_opt_outs",
  Schema.Struct({
    accountId: Rows.column("account_id", Schema.String),
    phone: Schema.String,
    reason: Schema.NullOr(Schema.String),
    source: OptOut.OptOutSource,
    createdAt: Rows.column("created_at", Rows.Int8)
  })
)

const columns = "account_id, phone, reason, source, created_at"

// `Arr.dedupe` compares every pair with `Equal.equals`: 1,000 numbers cost ~20 ms that a Set does in 0.1.
const distinct = (phones: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(phones)]

/**
 * `OptOutStore` on `db`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  { read, sql, transaction, write }: Database.Database
): Effect.Effect<Context.Tag.Service<OptOutStore.OptOutStore>> => {
  const get = (accountId: string, phone: string) =>
    read(Effect.flatMap(
      sql`SELECT ${sql.literal(columns)} FROM sendline_opt_outs WHERE account_id = ${accountId} AND phone = ${phone}`,
      optOuts.decodeFirst
    ))
  const insert = (optOut: OptOut.OptOut) =>
    write(Effect.flatMap(
      sql`INSERT INTO sendline_opt_outs ${sql.insert(optOuts.encode(optOut))}
        ON CONFLICT (account_id, phone) DO NOTHING RETURNING ${sql.literal(columns)}`,
      optOuts.decodeFirst
    ))
  const before = (after: Option.Option<Pagination.Keyset>) =>
    Option.match(after, {
      onNone: () => [],
      onSome: (keyset) => [sql`(created_at, phone) < (${keyset.createdAt}, ${keyset.id})`]
    })

  return Effect.succeed(OptOutStore.OptOutStore.of({
    // Inserted, or else the entry there; one deleted between the two is inserted again.
    add: (optOut) =>
      Effect.gen(function*() {
        for (let attempt = 0;; attempt++) {
          const inserted = yield* insert(optOut)
          if (Option.isSome(inserted)) return { optOut: inserted.value, created: true }
          const held = yield* get(optOut.accountId, optOut.phone)
          if (Option.isSome(held) || attempt > 0) {
            return { optOut: Option.getOrElse(held, () => optOut), created: false }
          }
        }
      }),
    addMany: (accountId, phones, source, createdAt) =>
      phones.length === 0 ? Effect.succeed(0) : transaction(Effect.map(
        Effect.forEach(Arr.chunksOf(distinct(phones), Database.batchLimit), (chunk) =>
          sql<{ readonly phone: string }>`INSERT INTO sendline_opt_outs ${
            sql.insert(chunk.map((phone) =>
              optOuts.encode({ accountId, phone, reason: null, source, createdAt })
            ))
          } ON CONFLICT (account_id, phone) DO NOTHING RETURNING phone`),
        (inserted) => inserted.reduce((n, rows) => n + rows.length, 0)
      )),
    get,
    listed: (accountId, phones) =>
      phones.length === 0
        ? Effect.succeed(new Set())
        : read(Effect.map(
          Effect.forEach(Arr.chunksOf(distinct(phones), Database.batchLimit), (chunk) =>
            chunk.length === 1
              ? sql<{ readonly phone: string }>`SELECT phone FROM sendline_opt_outs
                  WHERE account_id = ${accountId} AND phone = ${chunk[0]!}`
              : sql<{ readonly phone: string }>`SELECT phone FROM sendline_opt_outs
                  WHERE account_id = ${accountId} AND phone IN ${sql.in(chunk)}`),
          (found) => new Set(found.flat().map((row) => row.phone))
        )),
    list: (accountId, filter, after, limit) =>
      read(Effect.flatMap(
        sql`SELECT ${sql.literal(columns)} FROM sendline_opt_outs WHERE ${
          sql.and([
            sql`account_id = ${accountId}`,
            ...(filter.phone === undefined ? [] : [sql`phone = ${filter.phone}`]),
            ...(filter.source === undefined ? [] : [sql`source = ${filter.source}`]),
            ...(filter.from === undefined ? [] : [sql`created_at >= ${filter.from}`]),
            ...(filter.to === undefined ? [] : [sql`created_at <= ${filter.to}`]),
            ...before(after)
          ])
        } ORDER BY created_at DESC, phone DESC LIMIT ${limit}`,
        optOuts.decode
      )),
    delete: (accountId, phone) =>
      write(Effect.map(
        sql`DELETE FROM sendline_opt_outs WHERE account_id = ${accountId} AND phone = ${phone} RETURNING phone`,
        (rows) => rows.length > 0
      ))
  }))
}
