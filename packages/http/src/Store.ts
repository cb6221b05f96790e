/**
 * Picks the store from the configuration: PostgreSQL when `DATABASE_URL` is a `postgres://` URL,
 * else the embedded SQLite file at `SQLITE_PATH`.
 *
 * @since 0.1.0
 */
import type { Services } from "@sendline/core"
import { Errors } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Option, Redacted } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import type { ServerConfig } from "./Config.js"

/** The store layer for `config`. @since 0.1.0 @category layers */
export const layer = (config: ServerConfig): Layer.Layer<Services.Stores, Errors.StoreUnavailable> => {
  if (Option.isSome(config.databaseUrl)) {
    const url = Redacted.value(config.databaseUrl.value)
    const message = /^postgres(ql)?:\/\//.test(url)
      ? "The PostgreSQL store is not available yet; unset DATABASE_URL to use SQLite."
      : "DATABASE_URL must be a postgres:// URL; unset it to use SQLite."
    return Layer.fail(new Errors.StoreUnavailable({ message }))
  }
  if (config.sqlitePath !== ":memory:") {
    mkdirSync(dirname(config.sqlitePath), { recursive: true })
  }
  return SqliteStore.layerSqlite({ filename: config.sqlitePath }).pipe(
    Layer.catchAll((cause) =>
      Layer.fail(new Errors.StoreUnavailable({ message: `Cannot open SQLite at ${config.sqlitePath}.`, cause }))
    ),
    Layer.tap(() => Effect.logInfo(`Store: SQLite at ${config.sqlitePath}`))
  )
}
