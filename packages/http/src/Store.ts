/**
 * Picks the store from the configuration: PostgreSQL when `DATABASE_URL` is a `postgres://` URL,
 * else the embedded SQLite file at `SQLITE_PATH`.
 *
 * @since 0.1.0
 */
import type { Services } from "@sendline/core"
import { Errors } from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Option, Redacted } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import type { ServerConfig } from "./Config.js"

/** `host:port/database`, never the user or password, for logs and errors. */
const describePg = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.host}${parsed.pathname}`
  } catch {
    return "DATABASE_URL"
  }
}

/** The store's message and the driver's, e.g. "… could not connect (connect ECONNREFUSED …)". */
const reason = (error: Errors.StoreUnavailable): string => {
  const driver = error.cause instanceof Error && error.cause.cause instanceof Error ? error.cause.cause.message : ""
  return driver === "" ? `${error.message}.` : `${error.message} (${driver}).`
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
    const where = describePg(Redacted.value(url))
    return PgStore.layerPg({ url }).pipe(
      Layer.catchAll((cause) =>
        Layer.fail(new Errors.StoreUnavailable({ message: `Cannot use PostgreSQL at ${where}: ${reason(cause)}`, cause }))
      ),
      Layer.tap(() => Effect.logInfo(`Store: PostgreSQL at ${where}`))
    )
  }
  const directory = config.sqlitePath === ":memory:" ? Effect.void : Effect.try({
    try: () => void mkdirSync(dirname(config.sqlitePath), { recursive: true }),
    catch: (cause) =>
      new Errors.StoreUnavailable({
        message: `Cannot create the directory of SQLite at ${config.sqlitePath} (${(cause as Error).message}).`,
        cause
      })
  })
  return SqliteStore.layerSqlite({ filename: config.sqlitePath }).pipe(
    Layer.tap(() => Effect.logInfo(`Store: SQLite at ${config.sqlitePath}`)),
    Layer.provide(Layer.effectDiscard(directory))
  )
}
