/**
 * Dispatch under a backlog (issue 34): one account's 100,000 queued messages (written straight to
 * the store, as batches' accepted messages are) drain to the simulated carrier through the running
 * workers, with the default Dispatcher settings (passes of 100, 16 in flight), while another
 * account sends one message every 50 ms through `Messaging.send`. It reports the drain rate and the
 * single sends' time from accepted (`created_at`) to `sent_at`, p50 and p99; and, before the
 * workers start, the claim's SELECT at 100,000 queued: its plan and its time, fair (`fairDue`)
 * beside oldest first (`due`). One run per store.
 *
 * Environment: BENCH_DISPATCH_MESSAGES (default 100,000), TEST_DATABASE_URL for the PostgreSQL run
 * (skipped with one line when no server answers).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { CarrierMock } from "@sendline/carrier-mock"
import type { Message, Stores } from "@sendline/core"
import { Admin, Ids, MessageStore, Messaging, Services, UrlPolicy, Workers } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { type Database, Messages } from "@sendline/store-sql"
import { SqliteStore } from "@sendline/store-sqlite"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Effect, Fiber, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** One store's figures. */
interface DispatchResult {
  readonly store: string
  readonly backlog: number
  readonly drainSeconds: number
  readonly perSecond: number
  readonly singles: number
  readonly p50: number
  readonly p99: number
  readonly fifoClaimMillis: number
  readonly fairClaimMillis: number
}

const count = Number(process.env["BENCH_DISPATCH_MESSAGES"] ?? 100_000)

/** The `q`-quantile of `sorted` (ascending). */
const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** An account with the Sender ID "Acme" registered in AU, and a principal of it that may send. */
const seedAccount = (name: string) =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name, type: "cpaas", adminEmail: "ops@acme.test" })
    yield* admin.importSenderId({
      accountId: account.id,
      senderId: "Acme",
      market: "AU",
      identifier: Fixtures.exampleIdentifiers["AU"]!,
      brandName: "Acme Pty Ltd"
    })
    const issued = yield* admin.createKey({ accountId: account.id, permissions: ["messaging:send"] })
    return { accountId: account.id, keyId: issued.apiKey.id, permissions: new Set(issued.apiKey.permissions) }
  })

/** The best of 20 runs of `statement`, in milliseconds. */
const timeOf = (statement: Statement.Statement<unknown>) =>
  Effect.gen(function*() {
    let best = Infinity
    for (let i = 0; i < 20; i++) {
      const started = performance.now()
      yield* statement
      best = Math.min(best, performance.now() - started)
    }
    return best
  })

/** The claim's SELECT at the backlog: its plan printed, and its time, oldest first and fair. */
const claimCost = (store: string, dialect: (sql: SqlClient.SqlClient) => Database.Dialect, explain: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = Date.now()
    const fair = Messages.fairDue(sql, dialect(sql), now, 100, 2)
    const [text, params] = fair.compile()
    const plan = yield* sql.unsafe<Record<string, unknown>>(`${explain} ${text}`, params)
    console.log(`${store}: the fair claim's plan at ${count.toLocaleString("en")} queued (2 accounts)`)
    for (const row of plan) console.log(`  ${String(row["detail"] ?? row["QUERY PLAN"])}`)
    return {
      fifoClaimMillis: yield* timeOf(Messages.due(sql, "dispatch", now, 100)),
      fairClaimMillis: yield* timeOf(fair)
    }
  })

/** Queues the backlog, runs the workers until it has drained, sending singles meanwhile. */
const measure = (store: string, dialect: (sql: SqlClient.SqlClient) => Database.Dialect, explain: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const messages = yield* MessageStore.MessageStore
    const messaging = yield* Messaging.Messaging
    const ids = yield* Ids.IdGenerator
    const busy = yield* seedAccount("Busy")
    const other = yield* seedAccount("Other")
    const input = { to: "+61412345678", senderId: "Acme", body: "Dispatch bench", market: "AU" }

    const first = yield* messaging.send(busy, input)
    const backlog = yield* Effect.forEach(
      Array.from({ length: count - 1 }),
      () => Effect.map(ids.make("msg"), (id): Message.Message => ({ ...first, id })),
      { concurrency: "unbounded" }
    )
    const queuing = performance.now()
    yield* Effect.forEach(backlog, (m) => messages.insert(m, Option.none()), { concurrency: 512, discard: true })
    console.log(
      `${store}: ${count.toLocaleString("en")} queued in ${((performance.now() - queuing) / 1000).toFixed(1)} s`
    )
    yield* sql.unsafe(explain.startsWith("EXPLAIN QUERY PLAN") ? "ANALYZE" : "ANALYZE sendline_messages")
    // one queued message of another account, as the singles will be
    const probe = yield* messaging.send(other, input)
    const costs = yield* claimCost(store, dialect, explain)

    const remaining = Effect.map(
      sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM sendline_messages
        WHERE status = 'queued' AND account_id = ${busy.accountId}`,
      (rows) => Number(rows[0]!.n)
    )
    const singles: Array<Message.Message> = [probe]
    const started = performance.now()
    const workers = yield* Effect.forkScoped(Workers.run)
    const sending = yield* Effect.forkScoped(Effect.forever(
      Effect.zipRight(
        Effect.sleep("50 millis"),
        Effect.map(messaging.send(other, input), (m) => singles.push(m))
      )
    ))
    while ((yield* remaining) > 0) yield* Effect.sleep("200 millis")
    const drainSeconds = (performance.now() - started) / 1000
    yield* Fiber.interrupt(sending)
    // every single send sent too
    const sentOf = Effect.map(
      messages.findMany(singles.map((m) => ({ accountId: m.accountId, id: m.id }))),
      (found) => found.flatMap((m) => Option.isSome(m) && m.value.sentAt !== undefined ? [m.value] : [])
    )
    while ((yield* sentOf).length < singles.length) yield* Effect.sleep("100 millis")
    yield* Fiber.interrupt(workers)
    const waits = (yield* sentOf).map((m) => m.sentAt! - m.createdAt).sort((a, b) => a - b)
    return {
      store,
      backlog: count,
      drainSeconds,
      perSecond: count / drainSeconds,
      singles: waits.length,
      p50: quantile(waits, 0.5),
      p99: quantile(waits, 0.99),
      ...costs
    } satisfies DispatchResult
  })

const run = (
  store: string,
  dialect: (sql: SqlClient.SqlClient) => Database.Dialect,
  explain: string,
  stores: Layer.Layer<Stores.Stores | SqlClient.SqlClient, unknown>
) =>
  measure(store, dialect, explain).pipe(
    Effect.provide(
      Workers.layerServices().pipe(
        Layer.provideMerge(CarrierMock.layer({ reportDelay: 0, submitLatency: 0 })),
        Layer.provideMerge(NodeWebhookTransport.layer({ policy: UrlPolicy.strict })),
        Layer.provideMerge(Services.withoutSpans(Services.layer)),
        Layer.provideMerge(stores)
      )
    ),
    Effect.scoped,
    Logger.withMinimumLogLevel(LogLevel.Warning)
  )

/** Runs the dispatch bench on SQLite and PostgreSQL and prints a table. @since 0.1.0 */
export async function runDispatchBench(): Promise<ReadonlyArray<DispatchResult>> {
  console.log(
    `${count.toLocaleString("en")} queued by one account, drained by the workers (passes of 100, 16 in flight) ` +
      "while another sends one every 50 ms; the simulated carrier answers at once\n"
  )
  const results: Array<DispatchResult> = []
  const dir = mkdtempSync(join(tmpdir(), "sendline-dispatch-"))
  try {
    const filename = join(dir, "bench.sqlite")
    results.push(
      await Effect.runPromise(
        run(
          "SQLite (file)",
          SqliteStore.dialect,
          "EXPLAIN QUERY PLAN",
          SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename })))
        )
      )
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const pg = await Effect.runPromise(Effect.catchAll(TestDatabase.probe, () => Effect.succeedNone))
  if (Option.isSome(pg)) {
    const schema = await Effect.runPromise(TestDatabase.createSchema(pg.value))
    try {
      const url = Redacted.make(TestDatabase.withSchema(pg.value, schema))
      results.push(
        await Effect.runPromise(
          run(
            "PostgreSQL",
            PgStore.dialect,
            "EXPLAIN (ANALYZE, COSTS OFF)",
            PgStore.layer.pipe(Layer.provideMerge(PgClient.layer({ url })))
          )
        )
      )
    } finally {
      await Effect.runPromise(TestDatabase.dropSchema(pg.value, schema))
    }
  } else {
    console.log("PostgreSQL: no server answered; skipped")
  }
  console.log(
    "\n  store            backlog   drain s   messages/s   singles   accepted → sent p50 / p99 ms   claim SELECT ms: oldest first / fair"
  )
  for (const r of results) {
    console.log(
      `  ${r.store.padEnd(15)} ${r.backlog.toLocaleString("en").padStart(8)} ${r.drainSeconds.toFixed(1).padStart(9)} ${
        Math.round(r.perSecond).toLocaleString("en").padStart(12)
      } ${String(r.singles).padStart(9)}   ${`${r.p50} / ${r.p99}`.padStart(28)}   ${
        `${r.fifoClaimMillis.toFixed(2)} / ${r.fairClaimMillis.toFixed(2)}`.padStart(36)
      }`
    )
  }
  return results
}
