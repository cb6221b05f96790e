/**
 * `GET /ready` (no key): 200 `ready` with the last migration when the store answers and is
 * migrated, on both stores; else 503 `unavailable` with `Retry-After`, its message naming what
 * failed and never SQL: a database that lacks a migration, a PostgreSQL server that stopped (a
 * server of the test's own, never the shared one), each answering 200 again once mended.
 * `/health` stays 200 throughout. (A SQLite file that stops being a database: `JsonLogs.test.ts`,
 * on a real process; the 2 s bound on the store's answer: core's `Readiness.test.ts`.)
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, assert, describe, layer } from "@effect/vitest"
import { PgStore } from "@sendline/store-postgres"
import { PrivateServer } from "@sendline/store-postgres/testing"
import { Migrations } from "@sendline/store-sql"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import { patience } from "../support/Waiting.js"

/**
 * `GET /ready`, asked again every 20 ms (of real time: a server process is stopped or started
 * meanwhile) until it answers `status`, for at most `patience`: then its last answer.
 */
const readyAnswers = (status: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + patience
    for (;;) {
      const reply = yield* Http.request("GET", "/ready", { key: null })
      if (reply.status === status || Date.now() > deadline) return reply
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
    }
  })

/** Asserts a 503 `unavailable` whose message is `message`, with `Retry-After`, no SQL and no stack. */
const assertNotReady = (reply: Http.Reply, message: string) => {
  Replies.assertError(reply, 503, "unavailable")
  assert.strictEqual(reply.json.error.message, message)
  assert.strictEqual(reply.headers.get("retry-after"), "1")
  assert.notMatch(reply.text, /SELECT|sendline_migrations|\n\s+at /)
}

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }))(`GET /ready (${store.name})`, (it) => {
    it.effect("200 ready with the last migration, without a key; /health as ever", () =>
      Effect.gen(function*() {
        const reply = yield* Http.request("GET", "/ready", { key: null })
        assert.strictEqual(reply.status, 200, reply.text)
        Replies.assertMeta(reply)
        assert.deepStrictEqual(reply.json.data, { status: "ready", migration: Migrations.ids.at(-1) })
        assert.strictEqual((yield* Http.request("GET", "/health", { key: null })).status, 200)
      }))
  })
}

describe("GET /ready on a SQLite file", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-ready-"))
  const filename = join(dir, "ready.sqlite")
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // the test's own connection to the file, opened once the store has made and migrated it
  const store = SqliteClient.layer({ filename }).pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename })))
  const ready = Http.request("GET", "/ready", { key: null })

  layer(TestServer.layer({ store }))("a database that lacks a migration", (it) => {
    it.effect("503 naming how many migrations it lacks, 200 once it has them again", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.strictEqual((yield* ready).status, 200)
        const [last] = yield* sql<
          { readonly migration_id: number; readonly created_at: string; readonly name: string }
        >`
          SELECT migration_id, created_at, name FROM ${sql(Migrations.table)} ORDER BY migration_id DESC LIMIT 1`
        yield* sql`DELETE FROM ${sql(Migrations.table)} WHERE migration_id = ${last!.migration_id}`
        assertNotReady(
          yield* ready,
          `Not ready: The SQLite database lacks 1 of the ${Migrations.ids.length} migrations this version needs.`
        )
        assert.strictEqual((yield* Http.request("GET", "/health", { key: null })).status, 200, "liveness only")
        yield* sql`INSERT INTO ${sql(Migrations.table)} ${sql.insert(last!)}`
        assert.strictEqual((yield* ready).status, 200)
      }).pipe(Effect.orDie))
  })
})

const privateServer = await Effect.runPromise(PrivateServer.probe)

describe.skipIf(!privateServer)("GET /ready on a PostgreSQL server of the test's own", () => {
  const store = Layer.unwrapEffect(
    Effect.map(PrivateServer.PrivateServer, (server) => PgStore.layerPg({ url: Redacted.make(server.url) }))
  ).pipe(Layer.provideMerge(PrivateServer.layer))

  layer(TestServer.layer({ store }), { timeout: 60_000 })("stopped, then started again", (it) => {
    it.effect("503 naming the store while its server is stopped, 200 once it runs again", () =>
      Effect.gen(function*() {
        const server = yield* PrivateServer.PrivateServer
        assert.strictEqual((yield* readyAnswers(200)).status, 200)
        yield* server.stop
        assertNotReady(yield* readyAnswers(503), "Not ready: The PostgreSQL store cannot be reached or read.")
        assert.strictEqual((yield* Http.request("GET", "/health", { key: null })).status, 200, "liveness only")
        yield* server.start
        const back = yield* readyAnswers(200)
        assert.strictEqual(back.status, 200, back.text)
      }).pipe(Effect.orDie), 30_000)
  })
})
