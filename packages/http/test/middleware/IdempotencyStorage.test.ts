/**
 * What idempotency keys cost the database (issue 16, item 1): 100 previews of a 63 KB CJK body,
 * each under a key of its own (each answer ~126 KB), grow it by at most 20 KB each (measured: under
 * 1 KB each; an answer kept whole would take over 100 KB each), on a SQLite file
 * (the file and its `-wal`, checkpointed) and on PostgreSQL when a server answers (the idempotency
 * table with its TOAST and indexes, in a fresh schema of TEST_DATABASE_URL).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import type { Stores } from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const previews = 100
const allowedPerPreview = 20 * 1024

/** A database to measure: its store with its `SqlClient`, and how many bytes it takes. */
interface Measured {
  readonly name: string
  readonly layer: Layer.Layer<Stores.Stores | SqlClient.SqlClient, unknown>
  readonly bytes: Effect.Effect<number, unknown, SqlClient.SqlClient>
}

/** A SQLite file of its own, deleted afterwards: the file and its write-ahead log, checkpointed first. */
const sqliteFile: Measured = (() => {
  const file = path.join(os.tmpdir(), `sendline-idempotency-${process.pid}-${Date.now()}.sqlite`)
  const bytesOf = (name: string) => fs.existsSync(name) ? fs.statSync(name).size : 0
  const removed = Effect.sync(() => {
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true })
  })
  return {
    name: "a SQLite file",
    layer: SqliteStore.layer.pipe(
      Layer.provideMerge(SqliteClient.layer({ filename: file })),
      Layer.provideMerge(Layer.scopedDiscard(Effect.addFinalizer(() => removed)))
    ),
    bytes: Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => Effect.map(sql`PRAGMA wal_checkpoint(TRUNCATE)`, () => bytesOf(file) + bytesOf(`${file}-wal`))
    )
  }
})()

/** A fresh schema of `url`, dropped afterwards: the idempotency table with its TOAST table and indexes. */
const postgres = (url: string): Measured => ({
  name: "PostgreSQL",
  layer: Layer.unwrapScoped(
    Effect.acquireRelease(
      TestDatabase.createSchema(url),
      (schema) => Effect.orDie(TestDatabase.dropSchema(url, schema))
    ).pipe(
      Effect.map((schema) =>
        PgStore.layer.pipe(
          Layer.provideMerge(PgClient.layer({ url: Redacted.make(TestDatabase.withSchema(url, schema)) }))
        )
      )
    )
  ),
  bytes: Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly size: string }>`SELECT pg_total_relation_size('sendline_idempotency_keys') AS size`,
      ([row]) => Number(row!.size)
    ))
})

// PostgreSQL when a server answers (else one loud line; a failure under CI=true).
const reachable = await Effect.runPromise(TestDatabase.probe)
const databases = Option.isSome(reachable) ? [sqliteFile, postgres(reachable.value)] : [sqliteFile]

/** `previews` previews of `TestMessages.cjkBody`, each under a key of its own, a few at a time; each a first answer of ~126 KB. */
const previewAll = Effect.gen(function*() {
  const run = Math.random().toString(36).slice(2, 8)
  yield* Effect.forEach(
    Array.from({ length: previews }, (_, i) => i),
    (i) =>
      Effect.map(
        TestMessages.preview({ body: TestMessages.cjkBody }, { headers: { "idempotency-key": `storage-${run}-${i}` } }),
        (reply) => {
          assert.strictEqual(reply.status, 200, reply.text.slice(0, 200))
          assert.isNull(reply.headers.get("idempotent-replayed"))
          assert.isAbove(Buffer.byteLength(reply.text), 120_000)
        }
      ),
    { concurrency: 8, discard: true }
  )
})

for (const database of databases) {
  layer(TestServer.layer({ store: database.layer }), { timeout: 120_000 })(
    `idempotency storage on ${database.name}`,
    (it) => {
      it.effect(`${previews} previews of a 63 KB CJK body under distinct keys grow the database by at most 20 KB each`, () =>
        Effect.gen(function*() {
          const bytes = Effect.orDie(database.bytes)
          const before = yield* bytes
          yield* previewAll
          assert.isAtMost((yield* bytes) - before, previews * allowedPerPreview)
        }))
    }
  )
}
