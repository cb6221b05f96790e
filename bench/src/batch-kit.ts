/**
 * What the batch benches share: `sendline serve --demo` on a fresh database of each store (a
 * SQLite file, or a fresh schema of TEST_DATABASE_URL dropped afterwards), its demo key, and
 * batch requests as CONTRACT §13 shapes them (`POST /v1/messaging/batches`).
 */
import { TestDatabase } from "@sendline/store-postgres/testing"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RunningServer, ServerSpec } from "./servers.js"

/** The batch endpoint (CONTRACT §13). */
export const BATCHES_PATH = "/v1/messaging/batches"

/** A store to run Sendline on: each `database()` a fresh one, removed by its `drop`. */
export interface StoreTarget {
  readonly name: "SQLite" | "PostgreSQL"
  /** A fresh database: the server's environment for it, where the drivers reach it, and its removal. */
  readonly database: () => Promise<FreshDatabase>
}

/** A fresh database of a store. */
export interface FreshDatabase {
  /** `SQLITE_PATH` or `DATABASE_URL`, the other unset. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The SQLite file, or the PostgreSQL URL on its schema. */
  readonly location: string
  readonly drop: () => Promise<void>
}

const sqlite: StoreTarget = {
  name: "SQLite",
  database: async () => {
    const dir = mkdtempSync(join(tmpdir(), "sendline-bench-batch-"))
    const location = join(dir, "sendline.sqlite")
    return {
      env: { SQLITE_PATH: location, DATABASE_URL: undefined },
      location,
      drop: async () => rmSync(dir, { recursive: true, force: true })
    }
  }
}

const postgres = (base: string): StoreTarget => ({
  name: "PostgreSQL",
  database: async () => {
    const schema = await Effect.runPromise(TestDatabase.createSchema(base))
    const location = TestDatabase.withSchema(base, schema)
    return {
      env: { DATABASE_URL: location, SQLITE_PATH: undefined },
      location,
      drop: () => Effect.runPromise(Effect.ignore(TestDatabase.dropSchema(base, schema)))
    }
  }
})

/**
 * The stores to bench: SQLite, and PostgreSQL when a server answers at TEST_DATABASE_URL (else a
 * line says it is skipped). BENCH_BATCH_STORES (`sqlite`, `pg`, default both) narrows them.
 */
export const storeTargets = async (): Promise<ReadonlyArray<StoreTarget>> => {
  const wanted = (process.env["BENCH_BATCH_STORES"] ?? "sqlite,pg").split(",")
  const targets: Array<StoreTarget> = wanted.includes("sqlite") ? [sqlite] : []
  if (!wanted.includes("pg")) return targets
  const base = await Effect.runPromise(Effect.orDie(TestDatabase.url))
  const probe = await Effect.runPromise(Effect.option(TestDatabase.createSchema(base)))
  if (Option.isNone(probe)) {
    console.log(
      `PostgreSQL skipped: no server answers at TEST_DATABASE_URL; start one with: ${TestDatabase.startCommand}`
    )
    return targets
  }
  await Effect.runPromise(Effect.ignore(TestDatabase.dropSchema(base, probe.value)))
  return [...targets, postgres(base)]
}

/** `sendline serve --demo` on the bench's Node, from source, with no rate limit; `env` over that. */
export const sendlineServe = (name: string, env: Readonly<Record<string, string | undefined>>): ServerSpec => ({
  name,
  command: process.execPath,
  args: ["--conditions=@sendline/source", "--import", "tsx", "packages/http/src/bin.ts", "serve", "--demo"],
  env: {
    RATE_LIMIT_PER_SECOND: "0",
    RATE_LIMIT_PER_ACCOUNT_PER_SECOND: "0",
    LOG_LEVEL: "warning",
    ...env
  }
})

/** The demo key `sendline serve --demo` printed. */
export const demoKey = async (server: RunningServer): Promise<string> =>
  (await server.waitForStdout(/Demo API key \(all permissions\): (sk_\S+)/))[1]!

/**
 * A batch request's body: `count` messages to distinct AU mobiles (`+6141…` from `first`), the
 * demo Sender ID, market and body as `defaults`.
 */
export const batchBody = (count: number, first = 0): string =>
  batchBodyTo(Array.from({ length: count }, (_, i) => `+6141${String(first + i).padStart(7, "0")}`))

/** A batch request's body: a message to each of `numbers`, the demo Sender ID, market and body as `defaults`. */
export const batchBodyTo = (numbers: ReadonlyArray<string>): string =>
  JSON.stringify({
    defaults: { sender_id: "Sendline", market: "AU", body: "Bench message" },
    messages: numbers.map((to) => ({ to }))
  })

/** A batch's answer (CONTRACT §13), as far as the benches read it. */
export interface BatchAnswer {
  readonly id: string
  readonly accepted: number
  readonly rejected: number
  readonly messages: ReadonlyArray<{ readonly index: number; readonly id?: string; readonly error?: unknown }>
}

/** POSTs `body` to the batch endpoint of `origin` with `key`, its envelope's `data`; fails unless it answers 201. */
export const postBatch = async (origin: string, key: string, body: string): Promise<BatchAnswer> => {
  const response = await fetch(`${origin}${BATCHES_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
    signal: AbortSignal.timeout(120_000)
  })
  const text = await response.text()
  if (response.status !== 201) {
    throw new Error(`POST ${BATCHES_PATH} answered ${response.status}: ${text.slice(0, 300)}`)
  }
  return (JSON.parse(text) as { readonly data: BatchAnswer }).data
}

/** GET `path` on `origin` with `key`, its JSON (the whole envelope); fails unless it answers 2xx. */
export const getJson = async <A>(origin: string, key: string, path: string): Promise<A> => {
  const response = await fetch(`${origin}${path}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(30_000)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as A
}

/** The `p` quantile of the sorted `values` (nearest rank). */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!

/** An integer with thousands separators. */
export const rate = (n: number): string => Math.round(n).toLocaleString("en-US")
