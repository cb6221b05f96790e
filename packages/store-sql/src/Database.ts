/**
 * What every port module of a SQL store is built on: the client, the store's `Dialect` (the few
 * places where SQLite and PostgreSQL must differ, each with its reason written in the store), and
 * how a failure of the database reaches the ports: as core's `StoreUnavailable`, naming the
 * database, never the SQL, the driver's error kept as its `cause`, and counted in
 * `sendline_store_errors` (core's `Metrics.storeErrors`) by what it failed: a read, a write or a transaction.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Errors, Metrics } from "@sendline/core"
import type { Option } from "effect"
import { Effect } from "effect"
import type * as Migrations from "./Migrations.js"

/**
 * What differs between the databases. Every write of the store, those below included, runs
 * through `write`, but for those of several statements that must commit together on both
 * databases, which run in `Database.transaction`: a worker's pass of message transitions, the
 * idempotency reserve (its upsert and read-back), a brand account with the identifiers it owns,
 * the writes that carry mails, and the webhook fan-out, settlements and subscription deletion.
 * The statements given to the outbox writes and the claim come from the port modules.
 *
 * @since 0.1.0
 * @category models
 */
export interface Dialect {
  /** How a write runs (a single statement, or the statements of one outbox write or claim). */
  readonly write: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError>
  /** Runs `insertMessages` and `insertEvents` (both multi-row inserts), atomically. */
  readonly insertWithEvents: (
    insertMessages: Statement.Statement<object>,
    insertEvents: Statement.Statement<object>
  ) => Effect.Effect<unknown, SqlError>
  /**
   * Sets `claimed_until = leaseUntil` on the rows of `table` (keyed by `id`, with a `claimed_until`
   * column) whose ids `due` selects, so that no concurrent claimer gets them too; their full rows,
   * in any order.
   */
  readonly claim: (
    table: string,
    due: Statement.Statement<{ readonly id: string }>,
    leaseUntil: number
  ) => Effect.Effect<ReadonlyArray<unknown>, SqlError>
  /**
   * What ends a SELECT of rows a claim picks, so that concurrent claimers skip the rows another one
   * is taking (PostgreSQL's `FOR UPDATE SKIP LOCKED`); nothing where one writer claims at a time.
   */
  readonly skipLocked: Statement.Fragment
  /**
   * A FROM clause: the rows of `outer` (a CTE) beside the rows of `table` that `pick` selects for
   * each of them, as `picked` (with at least the columns `pick` selects, `id` among them); `pick`
   * names the outer row `outer`, and ends in its LIMIT. PostgreSQL joins it LATERAL; SQLite, which
   * has no LATERAL, looks the ids it selects up by key.
   */
  readonly joinEach: (
    outer: string,
    table: string,
    pick: Statement.Fragment
  ) => Statement.Fragment
  /** Whether `error` is a write refused for a duplicate in `index` (each driver says so its own way). */
  readonly isUniqueViolation: (error: SqlError, index: Migrations.UniqueIndex) => boolean
  /** The operator of a LIKE that ignores case, the pattern's `\` its escape character. */
  readonly likeIgnoringCase: "ILIKE" | "LIKE"
  /**
   * Whether a list whose rows must contain `terms` (each a column of `index` and a text of three
   * characters or more) should read the few rows its text index finds rather than walk the list's
   * ordered index: then the keys of those rows (and maybe of a few more), else none (the ordered
   * index is cheaper, or the database's planner chooses by itself).
   */
  readonly textCandidates: (
    index: Migrations.TextIndex,
    terms: ReadonlyArray<TextTerm>
  ) => Effect.Effect<Option.Option<ReadonlyArray<string>>, SqlError>
}

/**
 * A text that the `column` of a row must contain, in any case.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextTerm {
  readonly column: string
  readonly text: string
}

/**
 * The most items one batched statement carries: the 18 columns of an inserted message row × 256
 * stays far below the variable limit of SQLite (32,766) and the 65,535 parameters of one
 * PostgreSQL statement.
 *
 * @since 0.1.0
 * @category constants
 */
export const batchLimit = 256

/**
 * One database as the port modules use it. Every query names its snake_case columns itself,
 * whatever transforms the embedder's client has: `sql` has none.
 *
 * @since 0.1.0
 * @category models
 */
export interface Database {
  /** The store's client, without transforms. */
  readonly sql: SqlClient.SqlClient
  /** What this database does its own way. */
  readonly dialect: Dialect
  /** A failure of a write that the port maps itself, as the ports report it (and counted as a write's). */
  readonly unavailable: (cause: SqlError) => Errors.StoreUnavailable
  /** Runs a read; a failure of the database is `StoreUnavailable`. */
  readonly read: <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, Errors.StoreUnavailable>
  /** Runs a write through the dialect's `write`; a failure of the database is `StoreUnavailable`. */
  readonly write: <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, Errors.StoreUnavailable>
  /** Runs statements that must see each other in one transaction, on both databases. */
  readonly transaction: <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, Errors.StoreUnavailable>
}

/**
 * The database `name` ("SQLite", as errors name it: "The SQLite store failed") behind `sql`, with
 * its dialect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (name: string, sql: SqlClient.SqlClient, dialect: Dialect): Database => {
  const failed = (operation: Metrics.StoreOperation) => (cause: SqlError) => {
    Metrics.storeFailed(operation)
    return new Errors.StoreUnavailable({ message: `The ${name} store failed`, cause })
  }
  const [readFailed, writeFailed, transactionFailed] = [failed("read"), failed("write"), failed("transaction")]
  return {
    sql,
    dialect,
    unavailable: writeFailed,
    read: (effect) => Effect.mapError(effect, readFailed),
    write: (effect) => Effect.mapError(dialect.write(effect), writeFailed),
    transaction: (effect) => Effect.mapError(sql.withTransaction(effect), transactionFailed)
  }
}
