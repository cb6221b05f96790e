/**
 * The operator list bench's loads: a store's database made with `oplist-data.ts`'s rows, after the
 * store's own migrations ran. The secondary indexes of the filled tables are dropped first and made
 * again from their own definitions once the rows are in (several times faster than keeping them
 * through the load, and the same indexes); triggers stay, so that whatever the store keeps through
 * them (SQLite's text index) sees every row as in production.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { AccountStore } from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Redacted } from "effect"
import * as Data from "./oplist-data.js"

/** The tables the bench fills. */
const filled: ReadonlyArray<string> = ["sendline_sender_ids", "sendline_operator_registrations"]

/** How far a load is: Sender IDs written, of how many. */
export type Progress = (written: number, of: number) => Effect.Effect<void>

interface Index {
  readonly name: string
  readonly definition: string
}

/**
 * Writes the rows into the store's database on `sql` (migrated, with its accounts port): the
 * `indexes` dropped, the rows inserted, the indexes made again, then the statements `after`.
 */
const fill = (
  sql: SqlClient.SqlClient,
  indexes: ReadonlyArray<Index>,
  size: number,
  progress: Progress,
  after: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const accounts = yield* AccountStore.AccountStore
    for (const index of indexes) yield* sql.unsafe(`DROP INDEX ${index.name}`)
    yield* Data.generate(sql, accounts.insertAccount, size, progress)
    for (const index of indexes) yield* sql.unsafe(index.definition)
    for (const statement of after) yield* sql.unsafe(statement)
  })

/** The SQLite store on `filename` (migrated when built), with its client. */
export const sqliteWithClient = (filename: string) =>
  Layer.provideMerge(SqliteStore.layer, SqliteClient.layer({ filename }))

/**
 * Loads a new SQLite file, named as unfinished until it is complete: so without a journal or syncs
 * (the store sets its own when it opens it), with a large page cache, in one transaction.
 * Statistics are left to the store: it gathers them when it opens a database whose tables grew.
 */
export const loadSqlite = (filename: string, size: number, progress: Progress) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`PRAGMA journal_mode = OFF`
    yield* sql`PRAGMA synchronous = OFF`
    yield* sql`PRAGMA cache_size = -1000000`
    const indexes = yield* sql<Index>`SELECT name, sql AS definition FROM sqlite_master
      WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ${sql.in(filled)} ORDER BY name`
    yield* sql.withTransaction(fill(sql, indexes, size, progress, []))
  }).pipe(Effect.provide(sqliteWithClient(filename)))

/**
 * A client of one connection on `url`, without the store's timeouts: loads and index builds take
 * minutes.
 */
export const pgClient = (url: string) =>
  PgClient.layer({ url: Redacted.make(url), maxConnections: 1, connectTimeout: "30 seconds" })

/** The PostgreSQL store on the schema of `url` (migrated when built), with its client. */
export const pgWithClient = (url: string) => Layer.provideMerge(PgStore.layer, pgClient(url))

/**
 * Loads the empty schema of `url`, then runs VACUUM ANALYZE as autovacuum would after such a load:
 * statistics, the visibility map (index-only scans) and the pending lists of GIN indexes.
 */
export const loadPg = (url: string, size: number, progress: Progress) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SET maintenance_work_mem = '512MB'`
    // not those of constraints (primary keys): their tables need them
    const indexes = yield* sql<Index>`SELECT i.indexname AS name, i.indexdef AS definition
      FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = current_schema()::regnamespace
      WHERE i.schemaname = current_schema() AND i.tablename IN ${sql.in(filled)}
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)
      ORDER BY i.indexname`
    yield* fill(
      sql,
      indexes,
      size,
      progress,
      ["sendline_accounts", ...filled].map((table) => `VACUUM ANALYZE ${table}`)
    )
  }).pipe(Effect.provide(pgWithClient(url)))
