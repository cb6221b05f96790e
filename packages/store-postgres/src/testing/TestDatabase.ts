/**
 * A PostgreSQL database for tests and benchmarks: `TEST_DATABASE_URL` (default
 * `postgres://postgres@127.0.0.1:5432/test`), a fresh schema per test file so that runs never
 * collide, and the rule for a missing server: skip with one loud line, except under `CI=true`.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Stores } from "@sendline/core"
import type { Scope } from "effect"
import { Config, Console, Effect, Layer, Option, Redacted } from "effect"
import { layerPg, location } from "../PgStore.js"

/** The local test server, used when TEST_DATABASE_URL is unset. @since 0.1.0 @category constants */
export const defaultUrl = "postgres://postgres@127.0.0.1:5432/test"

/** Starts the local cluster of a Debian or Ubuntu machine. @since 0.1.0 @category constants */
export const startCommand = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"

/** `TEST_DATABASE_URL`, or `defaultUrl`. @since 0.1.0 @category config */
export const url: Config.Config<string> = Config.string("TEST_DATABASE_URL").pipe(Config.withDefault(defaultUrl))

/**
 * `url` with every connection's `search_path` set to `schema` (through the startup `options`), so
 * that unqualified table names resolve there.
 *
 * @since 0.1.0
 * @category urls
 */
export const withSchema = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

const withClient = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), connectTimeout: "3 seconds", maxConnections: 1 }))
  )

/** A new random schema name `sendline_test_…`. @since 0.1.0 @category schemas */
export const schemaName = (): string => `sendline_test_${Math.random().toString(36).slice(2, 10)}`

/**
 * pg_trgm in `public`, made once for the database: a store migrating a fresh schema makes it in
 * that schema unless it exists anywhere, and dropping that schema would then drop it, and the
 * indexes on it of every other test's schema, with it. Several test files may get there at once:
 * one of two `CREATE EXTENSION`s then fails a duplicate, and the next try finds it made.
 */
const sharedExtensions = (sql: SqlClient.SqlClient) =>
  Effect.retry(sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`, { times: 3 })

/** Creates a fresh schema on `url` (pg_trgm made in `public` first) and returns its name. @since 0.1.0 @category schemas */
export const createSchema = (url: string): Effect.Effect<string, SqlError> =>
  Effect.suspend(() => {
    const schema = schemaName()
    return Effect.as(
      withClient(url, (sql) => Effect.zipRight(sharedExtensions(sql), sql`CREATE SCHEMA ${sql(schema)}`)),
      schema
    )
  })

/** Drops `schema` and everything in it. @since 0.1.0 @category schemas */
export const dropSchema = (url: string, schema: string): Effect.Effect<void, SqlError> =>
  Effect.asVoid(withClient(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`))

/**
 * A fresh schema on `url` for as long as the scope lasts: `url` with its `search_path` set to it,
 * the schema dropped (everything in it) when the scope closes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const scopedSchema = (url: string): Effect.Effect<string, SqlError, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(createSchema(url), (schema) => Effect.orDie(dropSchema(url, schema))),
    (schema) => withSchema(url, schema)
  )

/**
 * The test database's URL when a server answers there. When none does: fails under `CI=true`
 * (an unreachable database must not pass a CI run), else prints one loud line on stderr saying
 * how to start one and yields none, for the caller to skip its tests.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe: Effect.Effect<Option.Option<string>, Error> = Effect.gen(function*() {
  const target = yield* Effect.orDie(url)
  const reached = yield* Effect.either(withClient(target, (sql) => sql`SELECT 1`))
  if (reached._tag === "Right") return Option.some(target)
  const ci = yield* Effect.orDie(Config.string("CI").pipe(Config.withDefault("")))
  const reason = `no PostgreSQL server answers at ${location(Redacted.make(target))} (TEST_DATABASE_URL)`
  if (ci === "true") {
    return yield* Effect.fail(new Error(`CI=true and ${reason}. Start it first: ${startCommand}`))
  }
  yield* Console.error(
    `\n!!!!! POSTGRESQL TESTS SKIPPED: ${reason}. Start one with: ${startCommand} !!!!!\n`
  )
  return Option.none()
})

/**
 * The PostgreSQL store in a fresh schema of `url` (`scopedSchema`), migrated, and dropped when the
 * layer is released: an empty store of its own for a test file.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFreshStore = (url: string): Layer.Layer<Stores.Stores, unknown> =>
  Layer.unwrapScoped(Effect.map(scopedSchema(url), (inSchema) => layerPg({ url: Redacted.make(inSchema) })))
