/**
 * The SQLite store: every storage port of `@sendline/core` on one `SqlClient`, with its own
 * migrations (table `sendline_migrations`). Its queries are those of `@sendline/store-sql`, shared
 * with the PostgreSQL store; this module holds what SQLite does its own way.
 *
 * @since 0.1.0
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Errors, Stores } from "@sendline/core"
import { Readiness } from "@sendline/core"
import { type Database, Migrations, SqlStore } from "@sendline/store-sql"
import type { ConfigError, Scope } from "effect"
import { Config, Context, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"

/** Timestamps are INTEGER (SQLite's is 64-bit), tables STRICT (a column holds only its type). */
const ddl: Migrations.Ddl = {
  int8: "INTEGER",
  // SQLite lets a primary key other than INTEGER hold NULL unless it is declared NOT NULL.
  textKey: "TEXT PRIMARY KEY NOT NULL",
  tableOptions: " STRICT",
  // A table keyed by (account_id, key) is stored in that key's order, with no rowid beside it.
  keyedTableOptions: " STRICT, WITHOUT ROWID",
  // Descending, in the order the list reads it (its test checks the plan: an index, no sort);
  // PostgreSQL's is ascending, for the reason given in its store.
  listIndex: "created_at DESC, id DESC",
  // An FTS5 table of its own with the trigram tokenizer (SQLite 3.34+), which finds the rows
  // holding a phrase of three characters or more, in any case, by its trigrams (PostgreSQL's
  // pg_trgm indexes the table itself). It holds its own copy of the key and the columns, kept by
  // triggers, so that a row written by any client is indexed: not an external-content table, whose
  // rowids VACUUM may renumber (the table has no INTEGER PRIMARY KEY). A row's Sender ID and brand
  // name never change once written, and none is deleted; should one, the trigger finds its copy by
  // key, a scan of the copies.
  textIndex: (index) => {
    const columns = [index.key, ...index.columns]
    const list = columns.join(", ")
    const changed = columns.map((column) => `old.${column} IS NOT new.${column}`).join(" OR ")
    return Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.forEach([
        `CREATE VIRTUAL TABLE ${index.name} USING fts5(
          ${index.key} UNINDEXED, ${index.columns.join(", ")}, tokenize = 'trigram', columnsize = 0)`,
        `INSERT INTO ${index.name} (${list}) SELECT ${list} FROM ${index.table}`,
        `CREATE TRIGGER ${index.name}_insert AFTER INSERT ON ${index.table} BEGIN
          INSERT INTO ${index.name} (${list}) VALUES (${columns.map((column) => `new.${column}`).join(", ")});
        END`,
        `CREATE TRIGGER ${index.name}_update AFTER UPDATE ON ${index.table} WHEN ${changed} BEGIN
          UPDATE ${index.name} SET ${columns.map((column) => `${column} = new.${column}`).join(", ")}
          WHERE ${index.key} = old.${index.key};
        END`,
        `CREATE TRIGGER ${index.name}_delete AFTER DELETE ON ${index.table} BEGIN
          DELETE FROM ${index.name} WHERE ${index.key} = old.${index.key};
        END`
      ], (statement) =>
        sql.unsafe(statement), { discard: true }))
  },
  // Nothing: SQLite's planner cannot weigh the FTS5 table (a virtual table has no statistics), so
  // the store chooses between it and the ordered index itself (`textCandidates`), by counting.
  textStatistics: () => Effect.void
}

/**
 * Up to how many rows the text index may find for a list to read them all, rather than walk its
 * ordered index testing each row there. Reading them costs a lookup by key each (~10 µs, 1M rows
 * on disk); a walk about 0.1 µs for each row it passes before its page is full, the fewer the more
 * rows match. For a page of 50 of 1M rows the two meet near a thousand matches: beyond, the walk
 * passes fewer than 50,000 rows (5 ms). A text found in many rows of other networks only walks this
 * network's rows all; measured: `docs/performance.md`.
 */
const textCandidatesLimit = 1_000

/**
 * When a commit reaches the disk. `normal` (the default): in WAL mode a commit survives a crash of
 * the process but not a power loss or a crash of the operating system, which can roll back the last
 * ones. `full`: every commit is synced to the disk before it returns (one sync per group commit).
 *
 * @since 0.1.0
 * @category models
 */
export type Synchronous = "normal" | "full"

/** The store's own settings of the connection. @since 0.1.0 @category models */
export interface Options {
  /** Default `normal`. */
  readonly synchronous?: Synchronous | undefined
}

// Connection settings first: journal_mode cannot change inside a transaction (the migrator's).
const migrate = (options: Options) => (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`PRAGMA journal_mode = WAL`
    yield* (options.synchronous === "full" ? sql`PRAGMA synchronous = FULL` : sql`PRAGMA synchronous = NORMAL`)
    yield* sql`PRAGMA busy_timeout = 5000`
    yield* sql`PRAGMA foreign_keys = ON`
    yield* Migrations.run(ddl).pipe(Effect.provideService(SqlClient.SqlClient, sql))
    // Lets the query planner gather the statistics that pick the right list index (SQLite's advice
    // for long-lived connections).
    yield* sql`PRAGMA optimize = 0x10002`
  })

/**
 * What SQLite does its own way, on the store's client (`withoutTransforms`), each with its reason.
 * better-sqlite3 is synchronous and the client holds one connection: statements run one at a time
 * and the database has a single writer.
 *
 * @since 0.1.0
 * @category dialect
 */
export const dialect = (sql: SqlClient.SqlClient): Database.Dialect => ({
  // Each write is a transaction on the one connection (a statement or several; the batched
  // message insert is a group commit). Nothing else runs meanwhile, so it costs no waiting.
  write: (effect) => sql.withTransaction(effect),
  // SQLite has no data-modifying WITH (PostgreSQL writes both in one statement): two statements,
  // made atomic by `write`'s transaction.
  insertWithEvents: (insertMessages, insertEvents) => Effect.zipRight(insertMessages, insertEvents),
  // One statement under the single writer: the select and the update cannot interleave with
  // another claimer's, so no row lock is needed (PostgreSQL's needs FOR UPDATE SKIP LOCKED).
  claim: (table, due, leaseUntil) =>
    sql`UPDATE ${sql(table)} SET claimed_until = ${leaseUntil} WHERE id IN (${due}) RETURNING *`,
  // Nothing to lock: one writer claims at a time.
  skipLocked: sql.literal(""),
  // No LATERAL: the rows of the ids `pick` gives for each outer row looked up by key (a correlated
  // IN list, computed once per outer row).
  joinEach: (outer, table, pick) =>
    sql`${sql(outer)} JOIN ${sql(table)} AS picked ON picked.id IN (SELECT picks.id FROM (${pick}) AS picks)`,
  // SQLite's error (SQLITE_CONSTRAINT_UNIQUE) names the columns of the unique index, not the index
  // (PostgreSQL's names the index): "UNIQUE constraint failed: sendline_messages.account_id, …".
  // Its message is SQLite's own whatever the driver, which may put its code before it.
  isUniqueViolation: (error, index) => {
    const message = (error.cause as { readonly message?: unknown } | undefined)?.message
    return typeof message === "string" &&
      message.endsWith(
        `UNIQUE constraint failed: ${index.columns.map((column) => `${index.table}.${column}`).join(", ")}`
      )
  },
  // SQLite's LIKE ignores the case of ASCII letters already (PostgreSQL's needs ILIKE).
  likeIgnoringCase: "LIKE",
  // SQLite's planner cannot weigh the FTS5 table against the ordered index (a virtual table has no
  // statistics), so the store asks the text index first for the rows that contain every term:
  // when there are no more than `textCandidatesLimit`, the list reads those (its LIKE keeps the
  // rows that hold each text); more, and it walks the ordered index instead. A phrase reads the
  // rows of each of its trigrams, so a rare text with one common trigram costs as much as that
  // trigram ("vexlor": "lor", 95,000 rows of 3M): the index is asked first for the rows holding
  // the two likeliest rarest trigrams of each text (`rarestTrigrams`), a superset of those holding
  // it, and only if they are too many for the whole phrases (measured: `docs/performance.md`).
  textCandidates: (index, terms) => {
    const probe = (query: string) =>
      Effect.map(
        sql<{ readonly key: string }>`SELECT ${sql(index.key)} AS key FROM ${sql(index.name)} WHERE ${
          sql(index.name)
        } MATCH ${query}
          LIMIT ${textCandidatesLimit + 1}`,
        (found) => found.length <= textCandidatesLimit ? Option.some(found.map((row) => row.key)) : Option.none()
      )
    const phrases = terms.map(({ column, text }) => [column, [text]] as const)
    const rarest = terms.map(({ column, text }) => [column, rarestTrigrams(text)] as const)
    return terms.every(({ text }) => [...text].length === 3)
      ? probe(matchQuery(phrases))
      : Effect.flatMap(
        probe(matchQuery(rarest)),
        (found) => Option.isSome(found) ? Effect.succeed(found) : probe(matchQuery(phrases))
      )
  }
})

/**
 * An FTS5 query of the rows whose column holds every text given for it, each a phrase (`"…"`,
 * every character literal), all of them required.
 */
const matchQuery = (terms: ReadonlyArray<readonly [column: string, texts: ReadonlyArray<string>]>) =>
  terms.flatMap(([column, texts]) => texts.map((text) => `${column} : "${text.replaceAll("\"", "\"\"")}"`)).join(
    " AND "
  )

/**
 * The characters from the most common to the least in English text, the space (between the words
 * of a brand name) among the first: a guess, without reading the index, of how many rows hold a
 * trigram. A character not listed (a digit, a sign, a letter beyond ASCII) counts as middling.
 */
const commonest = " etaoinsrhldcumfpgwybvkxjqz"

const rarityOf = (character: string) => {
  const rank = commonest.indexOf(character.toLowerCase())
  return rank === -1 ? commonest.length / 2 : rank
}

/**
 * The two trigrams of `text` (three characters or more) whose characters are rarest, in the order
 * they come in `text` (the text index ignores their case). FTS5 could count each trigram's rows
 * (`fts5vocab`), but only by reading them all, which is what this avoids.
 */
const rarestTrigrams = (text: string): ReadonlyArray<string> => {
  const characters = [...text]
  const trigrams = Array.from({ length: characters.length - 2 }, (_, i) => ({
    at: i,
    trigram: characters.slice(i, i + 3).join(""),
    rarity: characters.slice(i, i + 3).reduce((sum, character) => sum + rarityOf(character), 0)
  }))
  const distinct = trigrams.filter(({ trigram }, i) => trigrams.findIndex((t) => t.trigram === trigram) === i)
  return distinct.sort((a, b) => b.rarity - a.rarity).slice(0, 2).sort((a, b) => a.at - b.at).map(({ trigram }) =>
    trigram
  )
}

/**
 * Sets up the connection behind `SqlClient`, migrates its database and builds every storage
 * port on it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith = (options: Options): Effect.Effect<
  Context.Context<Stores.Stores>,
  Errors.StoreUnavailable,
  SqlClient.SqlClient | Scope.Scope
> => SqlStore.make({ name: "SQLite", migrate: migrate(options), dialect })

/**
 * `makeWith` the default options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = makeWith({})

/**
 * Every storage port on the embedder's `SqlClient` (set up and migrated when built).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<Stores.Stores, Errors.StoreUnavailable, SqlClient.SqlClient> =>
  Layer.scopedContext(makeWith(options))

/**
 * `layerWith` the default options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = layerWith({})

/** Whether `filename` names a file, not an in-memory or temporary database. */
const isFile = (filename: string) => filename !== ":memory:" && filename !== ""

/**
 * Creates the database file readable and writable by its owner only, if it does not exist yet (it
 * holds message bodies and phone numbers); SQLite gives its `-wal` and `-shm` files the same mode.
 * An existing file keeps its mode; a file that cannot be created is left for SQLite to report.
 */
const createPrivately = (filename: string) =>
  !isFile(filename)
    ? Effect.void
    : Effect.ignore(Effect.try(() => fs.closeSync(fs.openSync(filename, "a", 0o600))))

/**
 * The readiness of the database file `filename`, read on a connection of its own, read-only and
 * closed after: the store's connection keeps answering from its cache and its open file whatever
 * becomes of the path (removed, replaced, unreadable), so only a new one finds out. A file that
 * cannot be opened is `Unreachable` like a failed query.
 */
const fileReadiness = (filename: string): Context.Tag.Service<Readiness.Readiness> =>
  Readiness.Readiness.of({
    check: Effect.scoped(
      Effect.flatMap(
        Layer.build(SqliteClient.layer({ filename, readonly: true, disableWAL: true })).pipe(
          Effect.orDie,
          // better-sqlite3 throws when it cannot open the file
          Effect.catchAllDefect((cause) => Effect.fail(SqlStore.unreachable("SQLite", cause)))
        ),
        (client) => SqlStore.check("SQLite", Context.get(client, SqlClient.SqlClient))
      )
    )
  })

/**
 * Every storage port on a SQLite database file of their own (`:memory:` for tests), created
 * readable by its owner only; their `Readiness` opens the file anew each time. A file that cannot
 * be opened (no such directory, not a database, no permission) fails with `StoreUnavailable`
 * naming it and the driver's reason.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  options: Options & { readonly filename: string }
): Layer.Layer<Stores.Stores, Errors.StoreUnavailable> =>
  Layer.provide(
    layerWith(options),
    SqliteClient.layer({ filename: options.filename }).pipe(
      Layer.provide(Layer.effectDiscard(createPrivately(options.filename)))
    )
  ).pipe(
    // a `:memory:` database is the connection's own: its readiness is the store's, on it
    isFile(options.filename)
      ? Layer.map(Context.add(Readiness.Readiness, fileReadiness(options.filename)))
      : (layer) => layer,
    SqlStore.failingToStartAs(`Cannot open SQLite at ${options.filename}`)
  )

/**
 * `layerSqlite` with its settings read from configuration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: { readonly filename: Config.Config<string>; readonly synchronous?: Config.Config<Synchronous> }
): Layer.Layer<Stores.Stores, Errors.StoreUnavailable | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(options), layerSqlite))
