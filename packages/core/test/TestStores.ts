/**
 * The stores the worker tests run on: SQLite `:memory:`, and PostgreSQL in a fresh schema of
 * TEST_DATABASE_URL per test when a server answers (skipped with one loud line otherwise, and a
 * failure under CI=true).
 */
import type { Stores } from "@sendline/core"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, type Layer, Option } from "effect"

/** A store the tests can make afresh. */
export interface TestStore {
  readonly name: string
  /** A new, empty, migrated store; dropped when the layer is released. */
  readonly layer: () => Layer.Layer<Stores.Stores, unknown>
}

const postgres = (url: string): TestStore => ({ name: "postgres", layer: () => TestDatabase.layerFreshStore(url) })

const sqlite: TestStore = { name: "sqlite", layer: () => SqliteStore.layerSqlite({ filename: ":memory:" }) }

const reachable = await Effect.runPromise(TestDatabase.probe)

/** Every store to run on here. */
export const all: ReadonlyArray<TestStore> = Option.isSome(reachable) ? [sqlite, postgres(reachable.value)] : [sqlite]
