/**
 * The connection pool the PostgreSQL store serves from: a node-postgres pool behind
 * `@effect/sql-pg`'s `PgClient`, whose connections cannot hang a request when the server vanishes
 * without a word (a host powered off, a cable cut, a firewall that starts dropping packets).
 *
 * - TCP keepalive on every connection (`keepAliveDelay`): an idle connection whose server is gone
 *   fails once the operating system's probes find out, and the pool drops it before lending it
 *   (and firewalls do not forget a connection that is idle but alive).
 * - `statement_timeout` on every connection (`statementTimeout`): the server cancels a statement
 *   that runs too long, and the connection stays usable.
 * - A client-side bound on each query (`queryTimeout`): the server cannot cancel anything when
 *   its packets no longer arrive, so a query with no answer within it closes its connection,
 *   fails (the store's `StoreUnavailable`, HTTP 503), and the pool opens a new connection for
 *   the next query rather than lend the dead one again.
 *
 * `@effect/sql-pg`'s own `PgClient.layer` passes none of these to node-postgres, so the pool is
 * made here and handed to `PgClient.layerFromPool`.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, type Layer, Redacted } from "effect"
import * as Pg from "pg"

/** Where the pool connects, how many connections it keeps, and its timeouts. @since 0.1.0 @category models */
export interface Options {
  /** `postgres://user[:password]@host[:port]/database[?options=-c%20search_path%3Dschema]` */
  readonly url: Redacted.Redacted<string>
  /** The pool size (node-postgres' default is 10). */
  readonly maxConnections?: number | undefined
  /**
   * How long to wait for a connection, at start and whenever the pool opens one (default 5
   * seconds); past it the call fails `StoreUnavailable` rather than waiting on a server that stopped
   * answering.
   */
  readonly connectTimeout?: Duration.DurationInput | undefined
  /**
   * The server's `statement_timeout` on every connection (default 5 seconds): a statement still
   * running then is cancelled by the server and fails; the connection stays in the pool. Zero
   * leaves the server's own setting.
   */
  readonly statementTimeout?: Duration.DurationInput | undefined
  /**
   * How long a query may go without an answer before its connection is closed and it fails
   * (default 8 seconds): what bounds a request on a connection whose server vanished, where
   * `statementTimeout` cannot help. Longer than `statementTimeout`, so that a slow statement is
   * the server's to cancel and costs no connection. Zero turns the bound off.
   */
  readonly queryTimeout?: Duration.DurationInput | undefined
}

/** The defaults of `Options`: together, a request on a dead connection fails within 10 seconds. @since 0.1.0 @category constants */
export const defaults = {
  connectTimeout: Duration.seconds(5),
  statementTimeout: Duration.seconds(5),
  queryTimeout: Duration.seconds(8)
} as const

/**
 * How long a connection stays idle before TCP's first keepalive probe: half the 10 seconds after
 * which the pool closes an idle connection (node-postgres' default), so that an idle connection is
 * probed before it is lent again. A server that restarted answers the probe with a reset, and the
 * pool drops the connection at once; one that vanished answers nothing, and the operating system
 * gives up only after its further probes (on Linux nine, 75 seconds apart, unless tuned), which is
 * why the query bound exists.
 *
 * @since 0.1.0
 * @category constants
 */
export const keepAliveDelay: Duration.Duration = Duration.seconds(5)

/** The longest timer Node keeps (and PostgreSQL's largest timeout): about 24.8 days. */
const longest = 2 ** 31 - 1

/** Whole milliseconds of `duration`, at most `longest`; 0 for zero or an infinite duration (no bound). */
const millis = (duration: Duration.DurationInput): number => {
  const ms = Duration.toMillis(duration)
  return Number.isFinite(ms) ? Math.min(Math.ceil(ms), longest) : 0
}

/**
 * node-postgres' client, where a query given a callback (as `@effect/sql-pg` and the pool give
 * each of theirs) that has no answer within `timeoutMillis` ends the connection: `end` destroys
 * the socket of a connection with a query in flight, every query on it fails, and the pool
 * discards a client that is ending when it is released.
 */
const boundedClient = (timeoutMillis: number): typeof Pg.Client =>
  class BoundedClient extends Pg.Client {
    // The overloads of node-postgres' `query`, passed through unchanged but for the callback.
    override query(...args: Array<any>): any {
      const query: (...args: Array<unknown>) => unknown = super.query
      const callback: unknown = args.at(-1)
      if (typeof callback !== "function") return query.apply(this, args)
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        this.end(() => {})
      }, timeoutMillis)
      const bounded = (error: unknown, result: unknown) => {
        clearTimeout(timer)
        callback(
          timedOut
            ? new Error(`PostgreSQL did not answer within ${timeoutMillis} ms; the connection is closed`)
            : error,
          result
        )
      }
      return query.apply(this, [...args.slice(0, -1), bounded])
    }
  }

/**
 * A `PgClient` (and `SqlClient`) on a pool of `url` with keepalive, `statement_timeout` and the
 * query bound of `options`; the pool is ended (for at most a second) when the layer's scope closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> => {
  const statementTimeout = millis(options.statementTimeout ?? defaults.statementTimeout)
  const queryTimeout = millis(options.queryTimeout ?? defaults.queryTimeout)
  const applicationName = "sendline"
  const acquire = Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pg.Pool({
        connectionString: Redacted.value(options.url),
        max: options.maxConnections,
        connectionTimeoutMillis: millis(options.connectTimeout ?? defaults.connectTimeout),
        application_name: applicationName,
        keepAlive: true,
        keepAliveInitialDelayMillis: Duration.toMillis(keepAliveDelay),
        statement_timeout: statementTimeout > 0 ? statementTimeout : undefined,
        Client: queryTimeout > 0 ? boundedClient(queryTimeout) : Pg.Client
      })
      // An idle connection that failed (keepalive found its server gone) is already out of the
      // pool when it says so; the next query opens a new one. Unheard, the event would throw.
      pool.on("error", () => {})
      return pool
    }),
    // A connection on a dead socket never finishes closing: give up on it after a second.
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption("1 second"))
  )
  return PgClient.layerFromPool({ acquire, applicationName })
}
