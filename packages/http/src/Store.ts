/**
 * Picks the store from the configuration: PostgreSQL when `DATABASE_URL` is set (it must be a
 * `postgres://` URL), else the embedded SQLite file at `SQLITE_PATH`.
 *
 * @since 0.1.0
 */
import type { Services } from "@sendline/core"
import { Errors } from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Option, Redacted } from "effect"
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

/** The store layer for `config`. @since 0.1.0 @category layers */
export const layer = (config: ServerConfig): Layer.Layer<Services.Stores, Errors.StoreUnavailable> => {
  if (Option.isSome(config.databaseUrl)) {
    const url = config.databaseUrl.value
    if (!/^postgres(ql)?:\/\//.test(Redacted.value(url))) {
      return Layer.fail(
        new Errors.StoreUnavailable({ message: "DATABASE_URL must be a postgres:// URL; unset it to use SQLite." })
      )
    }
    return PgStore.layerPg({ url }).pipe(Layer.tap(() => Effect.logInfo(`Store: PostgreSQL at ${PgStore.location(url)}`)))
  }
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
    Layer.tap(() => Effect.logInfo(`Store: SQLite at ${config.sqlitePath} (synchronous ${config.sqliteSynchronous})`)),
    Layer.provide(Layer.effectDiscard(directory))
  )
}
