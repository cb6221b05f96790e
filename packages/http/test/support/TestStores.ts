/**
 * The stores the HTTP tests that matter to both run over: SQLite `:memory:`, and PostgreSQL in a
 * fresh schema of TEST_DATABASE_URL when a server answers (one loud line otherwise, and a failure
 * under CI=true).
 */
import type { Stores } from "@sendline/core"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, type Layer, Option } from "effect"

/** A store to serve a test file from: its name, and a new empty one. */
export interface TestStore {
  readonly name: string
  readonly layer: () => Layer.Layer<Stores.Stores, unknown>
}

const reachable = await Effect.runPromise(TestDatabase.probe)

/** SQLite, and PostgreSQL when a server answers. */
export const all: ReadonlyArray<TestStore> = [
  { name: "SQLite", layer: () => SqliteStore.layerSqlite({ filename: ":memory:" }) },
  ...Option.match(reachable, {
    onNone: () => [],
    onSome: (url) => [{ name: "PostgreSQL", layer: () => TestDatabase.layerFreshStore(url) }]
  })
]
