/**
 * The PostgreSQL store: every storage port of `@sendline/core` on one `SqlClient` (`@effect/sql-pg`),
 * with its own migrations (table `sendline_migrations`). Several processes may share one database:
 * migrations are serialised, idempotency keys are a unique constraint, and workers claim messages
 * with `FOR UPDATE SKIP LOCKED`. Its queries are those of `@sendline/store-sql`, shared with the
 * SQLite store; this module holds what PostgreSQL does its own way.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Errors, Stores } from "@sendline/core"
import { type Database, Migrations, SqlStore } from "@sendline/store-sql"
import type { ConfigError, Context, Scope } from "effect"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import * as PgPool from "./PgPool.js"

// ---------------------------------------------------------------------------------------------
// migrations
// ---------------------------------------------------------------------------------------------

// The tables, names and columns of the SQLite store, in PostgreSQL types: timestamps are BIGINT
// epoch milliseconds (as SQLite's INTEGER), JSON-shaped fields are TEXT holding JSON, not JSONB:
// nothing queries inside them, TEXT keeps the bytes as written (JSONB reorders keys and drops
// whitespace) and the driver hands back a string either store maps with the same JSON.parse.
const ddl: Migrations.Ddl = {
  int8: "BIGINT",
  textKey: "TEXT PRIMARY KEY",
  tableOptions: "",
  keyedTableOptions: "",
  // Ascending, unlike SQLite's DESC list index: a B-tree scanned backwards gives the newest-first
  // order, and PostgreSQL uses the keyset's row comparison `(created_at, id) < (…)` as an index
  // bound only on columns of one direction.
  listIndex: "created_at, id",
  // pg_trgm's GIN index of each column (SQLite keeps an FTS5 table beside): it serves `ILIKE
  // '%text%'` for a text of three characters or more. The extension is the database's, once: made
  // in the current schema unless it exists, and its operator class named in the schema it is in
  // (which need not be on this store's search_path). Two stores in two schemas of one database
  // share it: dropping the schema that holds it drops their indexes too.
  textIndex: (index) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
      const [extension] = yield* sql<{ readonly schema: string }>`SELECT n.nspname AS schema
        FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`
      for (const column of index.columns) {
        yield* sql`CREATE INDEX ${sql(`${index.name}_${column}`)} ON ${sql(index.table)}
          USING gin (${sql(column)} ${sql(extension!.schema)}.gin_trgm_ops)`
      }
    }),
  // The planner estimates `ILIKE '%text%'` from each column's histogram, of 100 bounds from a
  // sample of 30,000 rows by default: at 1M registrations one ANALYZE in six took a text 3 % of the
  // rows hold for one a hundred hold, and read them all through the trigram index (684 ms against
  // 1.6). 300 bounds from 90,000 rows told them apart in ten ANALYZEs of ten; 1,000 did too, but
  // planning each text query then tests the text against every bound: 0.85 ms, against 0.3 (and
  // 0.15 at 100). ANALYZE now, not at autovacuum's next: a table written once per registration may
  // wait long for it.
  textStatistics: (index) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        Effect.forEach(
          index.columns,
          (column) => sql`ALTER TABLE ${sql(index.table)} ALTER COLUMN ${sql(column)} SET STATISTICS 300`,
          { discard: true }
        ),
        sql`ANALYZE ${sql(index.table)}`
      ))
}

/**
 * Effect's Migrator locks its table while it migrates, but creates that table first, outside the
 * lock: two processes starting on an empty database both see no table and one `CREATE TABLE`
 * fails. So the whole run holds a transaction-scoped advisory lock (per schema), and the table is
 * created under it, with the Migrator's own columns, before the Migrator looks for it.
 */
const migrate = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || ${Migrations.table}))`
    yield* sql`CREATE TABLE IF NOT EXISTS ${sql(Migrations.table)} (
      migration_id integer primary key,
      created_at timestamp with time zone not null default now(),
      name text not null
    )`
    return yield* Migrations.run(ddl)
  })).pipe(Effect.provideService(SqlClient.SqlClient, sql))

// ---------------------------------------------------------------------------------------------
// the store
// ---------------------------------------------------------------------------------------------

/**
 * What PostgreSQL does its own way, on the store's client (`withoutTransforms`), each with its reason.
 *
 * @since 0.1.0
 * @category dialect
 */
export const dialect = (sql: SqlClient.SqlClient): Database.Dialect => ({
  // Unlike SQLite (one connection, a transaction per write), a write that is one statement runs
  // on its own: PostgreSQL makes each statement atomic, and a transaction would cost a pinned pool
  // connection and two more round trips. (The idempotency reserve and its read-back, which must
  // see each other, share a transaction in both stores.)
  write: (effect) => effect,
  // The outbox writes are one statement each: the data-modifying WITH runs the message write and
  // the event insert atomically in one round trip (SQLite has no such WITH and runs two
  // statements in a transaction instead).
  insertWithEvents: (insertMessages, insertEvents) => sql`WITH messages AS (${insertMessages}) ${insertEvents}`,
  // One statement, so one short transaction: `due` locks the rows it picks and skips rows another
  // claimer has locked, so concurrent claimers (here or in other processes) never pick the same
  // row; the lease then keeps them out of later claims until it ends.
  claim: (table, due, leaseUntil) =>
    sql`WITH due AS (${due} FOR UPDATE SKIP LOCKED)
      UPDATE ${sql(table)} AS claimed SET claimed_until = ${leaseUntil}
      FROM due WHERE claimed.id = due.id
      RETURNING claimed.*`,
  // Locks the rows a claim picks as it reads them, skipping those another claimer holds: two
  // claims at once pick different rows, rather than the second finding the first's all locked.
  skipLocked: sql.literal("FOR UPDATE SKIP LOCKED"),
  // LATERAL: an index scan of `pick` for each outer row, its rows as it reads them (no join back to
  // the table, which the planner may make a scan of it).
  joinEach: (outer, _table, pick) => sql`${sql(outer)} CROSS JOIN LATERAL (${pick}) AS picked`,
  // node-postgres' error carries the SQLSTATE (23505: unique_violation) and the name of the
  // violated constraint, here the unique index (SQLite names its columns instead).
  isUniqueViolation: (error, index) => {
    const cause = error.cause as { readonly code?: unknown; readonly constraint?: unknown } | undefined
    return cause?.code === "23505" && cause.constraint === index.name
  },
  // PostgreSQL's LIKE heeds case; ILIKE does not, and pg_trgm's indexes serve it.
  likeIgnoringCase: "ILIKE",
  // The planner weighs the trigram indexes against the ordered index itself, by the statistics
  // of each column: the trigram index for a text few rows contain, the ordered index for a common
  // one (checked at 1M rows: `docs/performance.md`).
  textCandidates: () => Effect.succeed(Option.none())
})

/**
 * Migrates the database behind `SqlClient` and builds every storage port on it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<
  Context.Context<Stores.Stores>,
  Errors.StoreUnavailable,
  SqlClient.SqlClient | Scope.Scope
> = SqlStore.make({ name: "PostgreSQL", migrate, dialect })

/**
 * Every storage port on the embedder's `SqlClient` (migrated when built).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Stores.Stores, Errors.StoreUnavailable, SqlClient.SqlClient> = Layer.scopedContext(make)

/**
 * Where the PostgreSQL store connects, its pool size and its timeouts (see `PgPool.Options` for
 * each, and its defaults: a request on a connection whose server vanished fails within 10 seconds).
 *
 * @since 0.1.0
 * @category models
 */
export type PgOptions = PgPool.Options

/**
 * Every storage port on a PostgreSQL database of their own: the database is migrated on a
 * connection of its own, then the ports serve from a `PgPool` on `url` (keepalive,
 * `statement_timeout`, a bound on each query).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPg = (options: PgOptions): Layer.Layer<Stores.Stores, Errors.StoreUnavailable> => {
  // The migrations run without the timeouts: building an index of a large table may take
  // minutes, and must not fail every start. One connection, closed once they are done.
  const migrated = Layer.effectDiscard(
    Effect.flatMap(SqlClient.SqlClient, migrate).pipe(Effect.provide(PgClient.layer({
      url: options.url,
      maxConnections: 1,
      connectTimeout: options.connectTimeout ?? PgPool.defaults.connectTimeout,
      applicationName: "sendline"
    })))
  )
  const serving = Layer.scopedContext(SqlStore.make({ name: "PostgreSQL", migrate: () => Effect.void, dialect }))
  return serving.pipe(
    Layer.provide(PgPool.layer(options)),
    Layer.provide(migrated),
    SqlStore.failingToStartAs(`Cannot use PostgreSQL at ${location(options.url)}`)
  )
}

/**
 * Where `url` points, `host:port/database`, never its user or password: for logs and errors.
 *
 * @since 0.1.0
 * @category formatting
 */
export const location = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.host}${parsed.pathname}`
  } catch {
    return "an unreadable URL"
  }
}

/**
 * `layerPg` with its settings read from configuration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Config.Wrap<PgOptions>
): Layer.Layer<Stores.Stores, Errors.StoreUnavailable | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(options), layerPg))
