/**
 * Picks the store from the configuration: PostgreSQL when `DATABASE_URL` is set (a `postgres://`
 * URL), else the embedded SQLite file at `SQLITE_PATH`.
 *
 * @since 0.1.0
 */
import type { Stores } from "@sendline/core"
import { Errors } from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Option } from "effect"
import { mkdirSync, statSync } from "node:fs"
import { dirname } from "node:path"
import type { ServerConfig } from "./Config.js"

/**
 * Makes `directory` and its missing parents, its owner's only. Not Node's `recursive` mkdir: it
 * never returns where mkdir answers ENOENT for a parent that exists (under `/proc`).
 */
const makeDirectory = (directory: string): void => {
  const found = statSync(directory, { throwIfNoEntry: false })
  if (found?.isDirectory() === true) return
  if (found === undefined && dirname(directory) !== directory) makeDirectory(dirname(directory))
  mkdirSync(directory, { mode: 0o700 }) // a file in its place: EEXIST
}

/** Which store `config` picks and where, never a password: "PostgreSQL at host:5432/db". @since 0.1.0 @category formatting */
export const describe = (config: ServerConfig): string =>
  Option.match(config.databaseUrl, {
    onSome: (url) => `PostgreSQL at ${PgStore.location(url)}`,
    onNone: () => `SQLite at ${config.sqlitePath} (synchronous ${config.sqliteSynchronous})`
  })

/** The store layer for `config` (its `DATABASE_URL` a `postgres://` URL, as `Config` reads it). @since 0.1.0 @category layers */
export const layer = (config: ServerConfig): Layer.Layer<Stores.Stores, Errors.StoreUnavailable> => {
  if (Option.isSome(config.databaseUrl)) return PgStore.layerPg({ url: config.databaseUrl.value, ...config.postgres })
  const directory = config.sqlitePath === ":memory:" ? Effect.void : Effect.try({
    // A directory made here is its owner's only, as the database file is (see SqliteStore).
    try: () => makeDirectory(dirname(config.sqlitePath)),
    catch: (cause) =>
      new Errors.StoreUnavailable({
        message: `Cannot create the directory of SQLite at ${config.sqlitePath} (${(cause as Error).message}).`,
        cause
      })
  })
  return SqliteStore.layerSqlite({ filename: config.sqlitePath, synchronous: config.sqliteSynchronous }).pipe(
    Layer.provide(Layer.effectDiscard(directory))
  )
}
