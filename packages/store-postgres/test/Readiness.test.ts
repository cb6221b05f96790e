/**
 * The PostgreSQL store's readiness on a pool pointed at a port nothing listens on: `Unreachable`,
 * naming the store, never its URL (this needs no server, so it runs everywhere; a server that
 * stops and starts again: the HTTP tests' `Readiness.test.ts`, on a server of the test's own).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { PgPool } from "@sendline/store-postgres"
import { SqlStore } from "@sendline/store-sql"
import { Effect, Redacted } from "effect"
import { createServer } from "node:net"

/** A port that was free a moment ago: nothing listens on it. */
const closedPort = Effect.async<number>((resume) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resume(Effect.succeed(port)))
  })
})

describe("PostgreSQL readiness", () => {
  it.effect("a pool on a closed port is not ready: Unreachable, naming PostgreSQL, never the URL", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = yield* Effect.flip(Effect.flatMap(SqlClient.SqlClient, (sql) => SqlStore.check("PostgreSQL", sql)))
        .pipe(
          Effect.provide(PgPool.layer({ url: Redacted.make(`postgres://postgres:s3cret@127.0.0.1:${port}/none`) }))
        )
      assert.deepStrictEqual([error.reason, error.message], [
        "Unreachable",
        "The PostgreSQL store cannot be reached or read"
      ])
      assert.instanceOf(error.cause, SqlError)
    }))
})
