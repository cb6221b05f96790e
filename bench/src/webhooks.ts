/**
 * Webhook delivery: signed deliveries per second from the WebhookDeliverer to a local receiver that
 * answers 200, on each store, with the SQL statements each successful delivery cost (counted); then
 * the time from an event's commit to its first attempt at 100 events/s, alone, beside a second
 * healthy subscription, and beside a subscription whose receiver never answers.
 *
 * Every part is the real one: the store as served (SQLite on a file in a temporary directory,
 * PostgreSQL on a fresh schema of TEST_DATABASE_URL), events written by `Messaging.send` (each send
 * commits its message and its `message.queued` event), subscriptions made by `Webhooks.create`, the
 * deliverer's own `run` loop with its default settings (batches of 256, 64 attempts in flight, 16
 * to one destination, a pass every 100 ms when idle), the `NodeWebhookTransport` (policy: http and
 * private addresses allowed), and the receivers in a child process (`webhook-receiver.ts`), so that
 * their CPU is not the deliverer's event loop. Every phase has a store of its own.
 *
 * - Throughput: N events written with the deliverer stopped, then it is started; the time until the
 *   receiver has N distinct event ids, each signature checked. deliveries/s = N / that time.
 * - Statements: every SQL statement the deliverer's store ran from its start until the store had
 *   recorded all N deliveries `succeeded`, divided by N. Counted by a `Tracer` over the default one:
 *   `@effect/sql` makes an `sql.execute` span for each statement it sends, and an `sql.transaction`
 *   span for each transaction, whose BEGIN (or SAVEPOINT) and COMMIT (or ROLLBACK) it sends on the
 *   connection itself (no span of their own: counted from the transaction's span and its commit or
 *   rollback event). Checked against the drivers (better-sqlite3's statement runs, node-postgres'
 *   queries, counted by wrapping them) in every throughput phase, and on a known case first.
 * - Latency: events written at a steady 100/s for BENCH_WEBHOOK_SECONDS (default 10) after a second
 *   of warm-up; for each, the receive time of its attempt 0 minus the time its send returned (its
 *   commit), both read from the machine's clock (`performance.timeOrigin + performance.now()`) in
 *   the two processes. The stuck subscription is another account's, at the same rate.
 *
 * Environment: BENCH_WEBHOOK_EVENTS (default 20,000), BENCH_WEBHOOK_EVENTS_PG (default the same),
 * BENCH_WEBHOOK_SECONDS (default 10), BENCH_WEBHOOK_STORES (`sqlite`, `pg`, default both),
 * TEST_DATABASE_URL for the PostgreSQL runs (skipped with one line when no server answers);
 * diagnostics: BENCH_WEBHOOK_BREAKDOWN=1 (the transport alone, and the deliverer with an in-process
 * transport answering at once and with one of bare `node:http`), BENCH_WEBHOOK_SQL_TIMES=1 (the time
 * of each SQLite statement of the throughput phase, by its text), BENCH_WEBHOOK_LATENCY=0 (the
 * throughput phases alone, for repeated runs).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Account, Stores } from "@sendline/core"
import {
  Admin,
  Auth,
  BrandVerifier,
  Demo,
  Ids,
  Markets,
  Messaging,
  MessagingConfig,
  Permission,
  Services,
  Signature,
  UrlPolicy,
  WebhookDeliverer,
  Webhooks,
  WebhookTransport
} from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import type { Scope } from "effect"
import { Duration, Effect, Fiber, FiberSet, Layer, Logger, LogLevel, Option, Redacted, Tracer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { numberFromEnv } from "./servers.js"
import type { Reply } from "./webhook-receiver.js"
import { type Receiver, startReceiver } from "./webhook-receivers.js"

const EVENTS = numberFromEnv("BENCH_WEBHOOK_EVENTS", 20_000)
const EVENTS_PG = numberFromEnv("BENCH_WEBHOOK_EVENTS_PG", EVENTS)
const SECONDS = numberFromEnv("BENCH_WEBHOOK_SECONDS", 10)
const STORES = (process.env["BENCH_WEBHOOK_STORES"] ?? "sqlite,pg").split(",").map((s) => s.trim())
const BREAKDOWN = process.env["BENCH_WEBHOOK_BREAKDOWN"] === "1"
const SQL_TIMES = process.env["BENCH_WEBHOOK_SQL_TIMES"] === "1"
const LATENCY = process.env["BENCH_WEBHOOK_LATENCY"] !== "0"
const RATE = 100
const WARMUP_SECONDS = 1

const TARGET_PER_SECOND = 2_000
const TARGET_STATEMENTS = 4
const TARGET_P95_MS = 250
const TARGET_STUCK_RATIO = 1.5

const SECRET = "whsec_bench_0123456789abcdef"
const POLICY = { allowHttp: true, allowPrivate: true } as const
const now = () => performance.timeOrigin + performance.now()

// ---------------------------------------------------------------------------------------------
// Counting statements

/** Statements seen through the spans of `@effect/sql`, and through the drivers, while `on`. */
interface Counts {
  on: boolean
  /** `sql.execute` spans: one per statement `@effect/sql` sends. */
  executes: number
  /** BEGIN or SAVEPOINT: one per `sql.transaction` span. */
  opens: number
  /** COMMIT or ROLLBACK (a nested transaction's success sends nothing). */
  closes: number
  /** What the drivers executed (better-sqlite3 statement runs, node-postgres queries). */
  driver: number
}

const counts: Counts = { on: false, executes: 0, opens: 0, closes: 0, driver: 0 }
/** The `sql.execute` statements by kind (verb and table; the claim by its CTE), while `counts.on`. */
const kinds = new Map<string, number>()
/** With BENCH_WEBHOOK_SQL_TIMES: calls and time of each SQLite statement by its text, while `counts.on`. */
const sqlTimes = new Map<string, { calls: number; millis: number }>()

const statementsOf = (c: Counts) => c.executes + c.opens + c.closes
const resetCounts = () => {
  kinds.clear()
  sqlTimes.clear()
  Object.assign(counts, { executes: 0, opens: 0, closes: 0, driver: 0 })
}

const CLAIM = "claim"
const kindOf = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").replaceAll("\"", "").trim()
  if (/in_flight AS/i.test(flat)) return CLAIM
  const verb = flat.match(/^(?:WITH .*?\)\s*)?(SELECT .*? FROM|INSERT INTO|UPDATE|DELETE FROM) (\w+)/i)
  return verb === null ? flat.slice(0, 40) : `${verb[1]!.split(" ")[0]} ${verb[2]}`
}

/** The current tracer, counting the statements of `@effect/sql` as it makes their spans. */
const countingTracer = (base: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span(name, parent, context, links, startTime, kind, options) {
      const span = base.span(name, parent, context, links, startTime, kind, options)
      if (!counts.on) return span
      if (name === "sql.execute") {
        counts.executes++
        const attribute = span.attribute.bind(span)
        span.attribute = (key, value) => {
          if (counts.on && key === "db.query.text" && typeof value === "string") {
            const kind = kindOf(value)
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
          }
          attribute(key, value)
        }
      } else if (name === "sql.transaction") {
        counts.opens++
        const event = span.event.bind(span)
        span.event = (eventName, time, attributes) => {
          if (counts.on && (eventName === "db.transaction.commit" || eventName === "db.transaction.rollback")) {
            counts.closes++
          }
          event(eventName, time, attributes)
        }
      }
      return span
    },
    context: (f, fiber) => base.context(f, fiber)
  })

/** Runs `effect` with the counting tracer over the current one, for it and every fiber it starts. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.tracer, (base) => Effect.withTracer(effect, countingTracer(base)))

/**
 * Counts, process-wide, what the drivers execute while `counts.on`: every run of a better-sqlite3
 * statement (`run`, `all`, `get`, `iterate`: how the SQLite client executes, BEGIN and COMMIT
 * included), every node-postgres `Client#query`. Both are resolved from the `@effect/sql` drivers'
 * own location, so these are the very modules they load.
 */
const countDrivers = (() => {
  let installed = false
  return () => {
    if (installed) return
    installed = true
    const wrap = (target: Record<string, unknown>, method: string, timed: boolean) => {
      const original = target[method] as (...args: Array<unknown>) => unknown
      target[method] = function(this: { readonly source?: string }, ...args: Array<unknown>) {
        if (!counts.on) return original.apply(this, args)
        counts.driver++
        if (!SQL_TIMES || !timed) return original.apply(this, args)
        const start = performance.now()
        try {
          return original.apply(this, args)
        } finally {
          const text = (this.source ?? "?").replace(/\s+/g, " ").slice(0, 90)
          const seen = sqlTimes.get(text) ?? { calls: 0, millis: 0 }
          seen.calls++
          seen.millis += performance.now() - start
          sqlTimes.set(text, seen)
        }
      }
    }
    const fromSqlite = createRequire(import.meta.resolve("@effect/sql-sqlite-node/SqliteClient"))
    const Sqlite = fromSqlite("better-sqlite3") as new(filename: string) => {
      readonly prepare: (sql: string) => object
      readonly close: () => void
    }
    const probe = new Sqlite(":memory:")
    const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, unknown>
    probe.close()
    for (const method of ["run", "all", "get", "iterate"]) wrap(statement, method, true)
    const fromPg = createRequire(import.meta.resolve("@effect/sql-pg/PgClient"))
    wrap(
      (fromPg("pg") as { readonly Client: { readonly prototype: Record<string, unknown> } }).Client.prototype,
      "query",
      false
    )
  }
})()

/** A known case: 13 statements, as `@effect/sql` sends them; both counts must say so. */
const checkCounting = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE IF NOT EXISTS bench_counting (n INTEGER)`
    resetCounts()
    counts.on = true
    yield* sql`INSERT INTO bench_counting (n) VALUES (1)` // 1
    yield* sql`SELECT n FROM bench_counting` // 1
    // BEGIN, INSERT, SELECT, COMMIT: 4
    yield* sql.withTransaction(
      Effect.zipRight(sql`INSERT INTO bench_counting (n) VALUES (2)`, sql`SELECT n FROM bench_counting`)
    )
    // BEGIN, SAVEPOINT, SELECT, COMMIT (a nested success sends nothing): 4
    yield* sql.withTransaction(sql.withTransaction(sql`SELECT 1`))
    // BEGIN, SELECT, ROLLBACK: 3
    yield* Effect.exit(sql.withTransaction(Effect.zipRight(sql`SELECT 1`, Effect.fail("rolled back"))))
    counts.on = false
    const expected = 13
    const spans = statementsOf(counts)
    yield* sql`DROP TABLE bench_counting`
    if (spans !== expected || counts.driver !== expected) {
      return yield* Effect.dieMessage(
        `statement counting is off: expected ${expected}, spans ${spans}, driver ${counts.driver}`
      )
    }
    return expected
  })

// ---------------------------------------------------------------------------------------------
// The system under test

/** A store for one phase, as served, and a second connection to its database for the bench's own checks. */
interface StoreSpec {
  readonly name: string
  readonly stores: Layer.Layer<Stores.Stores, unknown>
  readonly checker: Layer.Layer<SqlClient.SqlClient, unknown>
  readonly release: () => Promise<void>
}

const sqliteStore = (): StoreSpec => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-webhooks-"))
  const filename = join(dir, "bench.sqlite")
  return {
    name: "SQLite (file)",
    stores: SqliteStore.layerSqlite({ filename }),
    checker: SqliteClient.layer({ filename }),
    release: async () => rmSync(dir, { recursive: true, force: true })
  }
}

const pgStore = async (server: string): Promise<StoreSpec> => {
  const schema = await Effect.runPromise(TestDatabase.createSchema(server))
  const url = Redacted.make(TestDatabase.withSchema(server, schema))
  return {
    name: "PostgreSQL",
    stores: PgStore.layerPg({ url }),
    checker: PgClient.layer({ url, maxConnections: 1 }),
    release: () => Effect.runPromise(Effect.ignore(TestDatabase.dropSchema(server, schema)))
  }
}

/** How deliveries are posted: the real transport, or (BENCH_WEBHOOK_BREAKDOWN) an instant or a bare one. */
type Transport = "http" | "instant" | "bare"

/** An in-process transport answering 200 at once: the deliverer and its store without HTTP. */
const instantTransport = WebhookTransport.layerTest(() =>
  Effect.succeed({ status: 200, durationMillis: 0, body: "ok" })
)

/**
 * A transport of bare `node:http`: an agent per post, as `NodeWebhookTransport`'s, but no URL
 * policy, no timeout, no span: what a post costs at least on this stack.
 */
const bareTransport = WebhookTransport.layerTest((request) =>
  Effect.async<WebhookTransport.WebhookResponse, WebhookTransport.TransportFailure>((resume) => {
    const started = Date.now()
    const agent = new http.Agent({ keepAlive: false })
    const headers = { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) }
    const post = http.request(request.url, { method: "POST", agent, headers }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        agent.destroy()
        const body = Buffer.concat(chunks).toString("utf8")
        resume(Effect.succeed({ status: response.statusCode ?? 0, durationMillis: Date.now() - started, body }))
      })
    })
    post.on(
      "error",
      (error) => resume(Effect.fail(WebhookTransport.failure("connection_reset", error.message, Date.now() - started)))
    )
    post.end(request.body)
    return Effect.sync(() => post.destroy())
  })
)

const transports: Record<Transport, Layer.Layer<WebhookTransport.WebhookTransport>> = {
  http: NodeWebhookTransport.layer({ policy: POLICY }),
  instant: instantTransport,
  bare: bareTransport
}

/**
 * The deliverer (not started) on `transport`, the use cases as the server builds them (no spans),
 * callback and subscription URLs allowed on http and 127.0.0.1, the store, and the checker's connection.
 */
const system = (spec: StoreSpec, transport: Transport) =>
  WebhookDeliverer.layer().pipe(
    Layer.provideMerge(transports[transport]),
    Layer.provideMerge(Services.withoutSpans(Services.layerWithoutDefaults)),
    Layer.provideMerge(
      Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer(), UrlPolicy.layer(POLICY), BrandVerifier.layer)
    ),
    Layer.provideMerge(spec.stores),
    Layer.provideMerge(spec.checker)
  )

type System = Layer.Layer.Success<ReturnType<typeof system>>

/** Runs `body` on a fresh `system` of `spec`, counting statements, and releases the store's database after. */
const inPhase = <A, E>(
  spec: StoreSpec,
  body: Effect.Effect<A, E, System | Scope.Scope>,
  transport: Transport = "http"
) =>
  Effect.runPromise(
    counted(body.pipe(Effect.provide(system(spec, transport)), Effect.scoped)).pipe(
      // the deliverer's progress lines would interleave with the tables
      Logger.withMinimumLogLevel(LogLevel.Warning),
      Effect.ensuring(Effect.promise(spec.release))
    )
  )

const sendInput = (senderId: string) => ({ to: "+61412345678", senderId, body: "Webhook bench", market: "AU" })

/** The demo account (with its demo Sender ID) and a key of it, as `Demo.ensure` makes them. */
const accountA = Effect.gen(function*() {
  const { secret } = yield* Demo.ensure
  const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${secret}`)
  return { principal, senderId: Demo.senderId }
})

/** A second account with a Sender ID of its own and a key, made through `Admin`. */
const accountB = Effect.gen(function*() {
  const admin = yield* Admin.Admin
  const account = yield* admin.createAccount({
    name: "Webhook Bench B",
    type: "cpaas",
    adminEmail: "b@bench.sendline.test",
    market: "AU"
  })
  yield* admin.importSenderId({
    accountId: account.id,
    senderId: "BenchB",
    market: "AU",
    identifier: { identifierType: "ABN", identifierValue: "51824753556" },
    brandName: "Webhook Bench B"
  })
  const { secret } = yield* admin.createKey({ accountId: account.id, permissions: Permission.all })
  const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${secret}`)
  return { principal, senderId: "BenchB" }
})

const subscribe = (principal: Account.Principal, url: string) =>
  Effect.flatMap(
    Webhooks.Webhooks,
    (webhooks) => webhooks.create(principal, { url, events: ["message.queued"], secret: SECRET })
  )

/**
 * Whether the store still has work: an event not fanned out, or a pending delivery (both cheap: the
 * partial indexes of the outbox and of the claim). The bench's own query on its own connection, no span.
 */
const busy = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`SELECT 1 AS busy WHERE EXISTS (SELECT 1 FROM sendline_events WHERE fanned_out_at IS NULL)
      OR EXISTS (SELECT 1 FROM sendline_webhook_deliveries WHERE state = 'pending')`
).pipe(Effect.map((rows) => rows.length > 0), Effect.withTracerEnabled(false))

/** How many deliveries the store has recorded `succeeded`, as `busy` asks. */
const succeededCount = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<
      { readonly n: number | string }
    >`SELECT count(*) AS n FROM sendline_webhook_deliveries WHERE state = 'succeeded'`
).pipe(Effect.map((rows) => Number(rows[0]!.n)), Effect.withTracerEnabled(false))

// ---------------------------------------------------------------------------------------------
// Throughput and statements

interface ThroughputResult {
  readonly store: string
  readonly events: number
  /** Writing the events with the deliverer stopped. */
  readonly writeSeconds: number
  /** From the deliverer's start to the receiver's N-th distinct event (instant transport: the store's N-th `succeeded`). */
  readonly seconds: number
  readonly perSecond: number
  /** Every statement: `executes` + BEGIN/COMMIT. */
  readonly statements: number
  readonly executes: number
  readonly transactions: number
  /** The same statements counted by the drivers. */
  readonly driverStatements: number
  readonly perDelivery: number
  readonly byKind: ReadonlyArray<readonly [string, number]>
  /** Requests the receiver answered, and how many of them were badly signed. */
  readonly received: number
  readonly unsigned: number
  /** This process's CPU (user + system) from the deliverer's start to the last delivery recorded. */
  readonly cpuMicrosPerDelivery: number
}

const throughput = (spec: StoreSpec, receiver: Receiver, events: number, transport: Transport = "http") =>
  Effect.gen(function*() {
    const a = yield* accountA
    yield* subscribe(a.principal, receiver.okUrl)
    const messaging = yield* Messaging.Messaging
    const writing = now()
    yield* Effect.forEach(Array.from({ length: events }), () => messaging.send(a.principal, sendInput(a.senderId)), {
      concurrency: 64,
      discard: true
    })
    const writeSeconds = (now() - writing) / 1000
    yield* Effect.promise(() => receiver.ask({ type: "reset" }))
    const all = receiver.ask({ type: "await", distinct: events })
    const deliverer = yield* WebhookDeliverer.WebhookDeliverer
    let checks = 0
    resetCounts()
    counts.on = true
    const cpu = process.cpuUsage()
    const started = now()
    const running = yield* Effect.fork(deliverer.run)
    let seconds = NaN
    if (transport !== "instant") seconds = ((yield* Effect.promise(() => all)).at - started) / 1000
    // the last attempts are recorded by the passes after them: counted until the store has recorded them all
    while (yield* busy) {
      checks++
      yield* Effect.sleep(Duration.millis(10))
    }
    checks++
    if (transport === "instant") seconds = (now() - started) / 1000
    counts.on = false
    const used = process.cpuUsage(cpu)
    yield* Fiber.interrupt(running)
    const succeeded = yield* succeededCount
    if (succeeded !== events) {
      return yield* Effect.dieMessage(`${spec.name}: ${succeeded} deliveries succeeded of ${events}`)
    }
    const report = yield* Effect.promise(() => receiver.ask({ type: "report" }))
    const name = transport === "http" ? spec.name : `${spec.name}, ${transport} transport`
    if (sqlTimes.size > 0) {
      console.log(`${name}: SQLite statements of the throughput phase (calls, ms in all, µs each)`)
      for (const [text, { calls, millis }] of [...sqlTimes].sort((x, y) => y[1].millis - x[1].millis)) {
        console.log(
          `  ${int(calls).padStart(7)} ${int(millis).padStart(7)} ${int(1000 * millis / calls).padStart(6)}  ${text}`
        )
      }
    }
    const statements = statementsOf(counts)
    return {
      store: name,
      events,
      writeSeconds,
      seconds,
      perSecond: events / seconds,
      statements,
      executes: counts.executes,
      transactions: counts.opens,
      // the bench's own checks ran on the driver too, one statement each
      driverStatements: counts.driver - checks,
      perDelivery: statements / events,
      byKind: [["BEGIN/COMMIT", statements - counts.executes] as const, ...[...kinds].sort((x, y) => y[1] - x[1])],
      received: report.received.length,
      unsigned: report.received.filter((r) => !r.signed).length,
      cpuMicrosPerDelivery: (used.user + used.system) / events
    } satisfies ThroughputResult
  })

interface TransportResult {
  readonly concurrency: number
  readonly posts: number
  readonly perSecond: number
  readonly cpuMicrosPerPost: number
}

/** `NodeWebhookTransport` alone: `posts` signed posts of an event's size to the receiver, `concurrency` at a time. */
const transportAlone = (receiver: Receiver, posts: number, concurrency: number) =>
  Effect.gen(function*() {
    const transport = yield* WebhookTransport.WebhookTransport
    const body = JSON.stringify({
      id: "evt_01KBENCH0000000000000000000",
      type: "message.queued",
      created_at: "2026-11-25T09:00:00.000Z",
      data: {
        id: "msg_01KBENCH0000000000000000000",
        status: "queued",
        to: "+61412345678",
        sender_id: "Sendline",
        market: "AU"
      }
    })
    yield* Effect.promise(() => receiver.ask({ type: "reset" }))
    const cpu = process.cpuUsage()
    const started = now()
    yield* Effect.forEach(Array.from({ length: posts }, (_, i) => i), (i) => {
      const eventId = `evt_bench_${i}`
      const headers = Signature.headers({ secret: SECRET }, {
        eventId,
        eventType: "message.queued",
        attempt: 0,
        body,
        at: Date.now()
      })
      return transport.post({ url: receiver.okUrl, headers, body })
    }, { concurrency, discard: true })
    const seconds = (now() - started) / 1000
    const used = process.cpuUsage(cpu)
    const report = yield* Effect.promise(() => receiver.ask({ type: "report" }))
    if (report.received.filter((r) => r.signed).length !== posts) {
      return yield* Effect.dieMessage("the receiver missed posts")
    }
    return {
      concurrency,
      posts,
      perSecond: posts / seconds,
      cpuMicrosPerPost: (used.user + used.system) / posts
    } satisfies TransportResult
  }).pipe(Effect.provide(transports.http))

// ---------------------------------------------------------------------------------------------
// Latency

/** What account B's subscription points at beside account A's: nothing, the healthy receiver, or the stuck one. */
type Beside = "nothing" | "healthy" | "stuck"

interface LatencyResult {
  readonly store: string
  readonly beside: Beside
  /** Events written in all (warm-up included, both accounts). */
  readonly events: number
  /** A's events measured, and those of them without an attempt 0 at the receiver. */
  readonly measured: number
  readonly missing: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
  readonly stuckConnections: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? NaN

/** A's events at 100/s, and B's beside them to `beside`, the deliverer running: A's commit → attempt 0. */
const latency = (spec: StoreSpec, receiver: Receiver, beside: Beside) =>
  Effect.gen(function*() {
    const a = yield* accountA
    yield* subscribe(a.principal, receiver.okUrl)
    const b = beside === "nothing" ? undefined : yield* accountB
    if (b !== undefined) yield* subscribe(b.principal, beside === "stuck" ? receiver.stuckUrl : receiver.okUrl)
    const messaging = yield* Messaging.Messaging
    const deliverer = yield* WebhookDeliverer.WebhookDeliverer
    yield* Effect.promise(() => receiver.ask({ type: "reset" }))
    const running = yield* Effect.fork(deliverer.run)
    const committed = new Map<string, number>()
    const sends = yield* FiberSet.make()
    const total = (WARMUP_SECONDS + SECONDS) * RATE
    const warmup = WARMUP_SECONDS * RATE
    const started = now()
    for (let i = 0; i < total; i++) {
      const wait = started + (i * 1000) / RATE - now()
      if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
      const measured = i >= warmup
      yield* FiberSet.run(
        sends,
        Effect.tap(messaging.send(a.principal, sendInput(a.senderId)), (message) =>
          Effect.sync(() => {
            if (measured) committed.set(message.id, now())
          }))
      )
      if (b !== undefined) yield* FiberSet.run(sends, messaging.send(b.principal, sendInput(b.senderId)))
    }
    yield* FiberSet.awaitEmpty(sends)
    // the last events' first attempts are a pass or two away; 15 s at most
    const deadline = now() + 15_000
    let report: Extract<Reply, { type: "report" }>
    for (;;) {
      report = yield* Effect.promise(() => receiver.ask({ type: "report" }))
      const firsts = new Set(
        report.received.filter((r) => r.attempt === 0 && committed.has(r.subjectId)).map((r) => r.subjectId)
      )
      if (firsts.size >= committed.size || now() > deadline) break
      yield* Effect.sleep(Duration.millis(200))
    }
    yield* Fiber.interrupt(running)
    const firstAt = new Map<string, number>()
    for (const r of report.received) {
      if (r.attempt !== 0 || !r.signed) continue
      const seen = firstAt.get(r.subjectId)
      if (seen === undefined || r.at < seen) firstAt.set(r.subjectId, r.at)
    }
    const latencies: Array<number> = []
    for (const [id, at] of committed) {
      const received = firstAt.get(id)
      if (received !== undefined) latencies.push(received - at)
    }
    latencies.sort((x, y) => x - y)
    return {
      store: spec.name,
      beside,
      events: total * (b === undefined ? 1 : 2),
      measured: committed.size,
      missing: committed.size - latencies.length,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? NaN,
      stuckConnections: report.stuckConnections
    } satisfies LatencyResult
  })

// ---------------------------------------------------------------------------------------------
// The run

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en") : "–")
const ms = (n: number) => (Number.isNaN(n) ? "–" : n < 10 ? n.toFixed(1) : String(Math.round(n)))
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL")
const claimsOf = (r: ThroughputResult) => r.byKind.find(([kind]) => kind === CLAIM)?.[1] ?? 0

const printThroughput = (r: ThroughputResult) => {
  console.log(
    `  ${r.store.padEnd(36)} ${int(r.events).padStart(7)} ${r.seconds.toFixed(2).padStart(8)} ${
      int(r.perSecond).padStart(13)
    } ${r.perDelivery.toFixed(2).padStart(12)} ${(r.events / Math.max(1, claimsOf(r))).toFixed(1).padStart(11)} ${
      int(r.cpuMicrosPerDelivery).padStart(9)
    }`
  )
  console.log(
    `    ${int(r.statements)} statements (driver: ${int(r.driverStatements)}), ${
      int(r.transactions)
    } transactions; per delivery: ${
      r.byKind.map(([kind, n]) => `${kind} ${(n / r.events).toFixed(n / r.events < 0.01 ? 4 : 2)}`).join(", ")
    }`
  )
  if (r.store.includes("instant")) return
  if (r.received !== r.events || r.unsigned > 0) {
    console.log(
      `    the receiver answered ${int(r.received)} requests for ${int(r.events)} events, ${r.unsigned} badly signed`
    )
  }
}

/** Runs the webhook delivery bench on SQLite and PostgreSQL and prints its tables. @since 0.1.0 */
export async function runWebhooksBench(): Promise<{
  readonly throughput: ReadonlyArray<ThroughputResult>
  readonly latency: ReadonlyArray<LatencyResult>
}> {
  countDrivers()
  const pg = STORES.includes("pg")
    ? await Effect.runPromise(Effect.catchAll(TestDatabase.probe, () => Effect.succeedNone))
    : Option.none<string>()
  const stores: Array<() => Promise<StoreSpec>> = []
  if (STORES.includes("sqlite")) stores.push(async () => sqliteStore())
  if (Option.isSome(pg)) stores.push(() => pgStore(pg.value))
  else if (STORES.includes("pg")) {
    console.log("PostgreSQL: no server answered at TEST_DATABASE_URL; its runs are skipped")
  }

  console.log(
    `${int(EVENTS)} events (PostgreSQL ${
      int(EVENTS_PG)
    }) written with the deliverer stopped, then delivered to a receiver answering 200;\n` +
      `then ${RATE} events/s for ${SECONDS} s (after ${WARMUP_SECONDS} s of warm-up), alone, beside a second healthy subscription,\n` +
      `and beside one whose receiver never answers\n`
  )
  const receiver = await startReceiver(SECRET)
  const throughputs: Array<ThroughputResult> = []
  const latencies: Array<LatencyResult> = []
  const breakdown: Array<ThroughputResult> = []
  const alone: Array<TransportResult> = []
  try {
    if (BREAKDOWN) {
      for (const concurrency of [16, 64]) {
        alone.push(await Effect.runPromise(transportAlone(receiver, Math.min(EVENTS, 5_000), concurrency)))
      }
    }
    for (const make of stores) {
      const checking = await make()
      const verified = await Effect.runPromise(
        counted(Effect.flatMap(SqlClient.SqlClient, checkCounting)).pipe(
          Effect.provide(checking.checker),
          Effect.ensuring(Effect.promise(checking.release))
        )
      )
      console.log(
        `${checking.name}: statement counting checked on a known case (${verified} statements: spans and driver agree)`
      )
      const events = checking.name === "PostgreSQL" ? EVENTS_PG : EVENTS
      const spec = await make()
      const result = await inPhase(spec, throughput(spec, receiver, events))
      throughputs.push(result)
      console.log(
        `${spec.name}: ${int(result.perSecond)} deliveries/s, ${result.perDelivery.toFixed(2)} statements per delivery`
      )
      if (BREAKDOWN) {
        for (const transport of ["instant", "bare"] as const) {
          const other = await make()
          breakdown.push(await inPhase(other, throughput(other, receiver, events, transport), transport))
        }
      }
      for (const beside of LATENCY ? ["nothing", "healthy", "stuck"] as const : []) {
        const phase = await make()
        const measured = await inPhase(phase, latency(phase, receiver, beside))
        latencies.push(measured)
        console.log(
          `${phase.name}, ${beside === "nothing" ? "alone" : `beside a ${beside} receiver`}: p95 ${ms(measured.p95)} ms`
        )
      }
    }
  } finally {
    await receiver.stop()
  }

  console.log(
    "\nThroughput: signed deliveries to a receiver answering 200 (deliverer defaults: 64 in flight, 16 per destination)\n"
  )
  const header =
    "  store                                 events  seconds  deliveries/s  statements/   deliveries  CPU µs/"
  const header2 =
    "                                                                          delivery    per claim   delivery"
  console.log(`${header}\n${header2}`)
  for (const r of throughputs) printThroughput(r)
  if (BREAKDOWN) {
    console.log("\nWhere the time goes (BENCH_WEBHOOK_BREAKDOWN=1)\n")
    for (const t of alone) {
      console.log(
        `  NodeWebhookTransport alone, ${t.concurrency} at a time: ${int(t.perSecond)} posts/s, ${
          int(t.cpuMicrosPerPost)
        } µs of CPU per post (this process)`
      )
    }
    console.log(`\n${header}\n${header2}`)
    for (const r of breakdown) printThroughput(r)
  }

  if (latencies.length > 0) {
    console.log(`\nCommit → first attempt of account A's events at ${RATE}/s, ms\n`)
    console.log(
      "  store            beside                events     p50     p95     p99     max   missing   stuck connections"
    )
  }
  for (const r of latencies) {
    const beside = r.beside === "nothing" ? "nothing" : `a ${r.beside} receiver`
    console.log(
      `  ${r.store.padEnd(15)}  ${beside.padEnd(19)} ${int(r.events).padStart(8)} ${ms(r.p50).padStart(7)} ${
        ms(r.p95).padStart(7)
      } ${ms(r.p99).padStart(7)} ${ms(r.max).padStart(7)} ${String(r.missing).padStart(9)} ${
        String(r.stuckConnections).padStart(19)
      }`
    )
  }

  console.log("\nTargets\n")
  const sqlite = throughputs.find((r) => r.store.startsWith("SQLite"))
  if (sqlite !== undefined) {
    console.log(
      `  ≥ ${int(TARGET_PER_SECOND)} deliveries/s on SQLite: ${int(sqlite.perSecond)}  ${
        verdict(sqlite.perSecond >= TARGET_PER_SECOND)
      }`
    )
  }
  for (const r of throughputs) {
    console.log(
      `  ≤ ${TARGET_STATEMENTS} statements per delivery, ${r.store}: ${r.perDelivery.toFixed(2)}  ${
        verdict(r.perDelivery <= TARGET_STATEMENTS)
      }`
    )
  }
  for (const store of new Set(latencies.map((r) => r.store))) {
    const quiet = latencies.find((r) => r.store === store && r.beside === "nothing")!
    const stuck = latencies.find((r) => r.store === store && r.beside === "stuck")!
    console.log(
      `  p95 commit → first attempt < ${TARGET_P95_MS} ms, ${store}: ${ms(quiet.p95)} ms  ${
        verdict(quiet.p95 < TARGET_P95_MS && quiet.missing === 0)
      }`
    )
    const ratio = stuck.p95 / quiet.p95
    console.log(
      `  a stuck receiver raises the others' p95 ≤ ${TARGET_STUCK_RATIO}×, ${store}: ${ms(quiet.p95)} → ${
        ms(stuck.p95)
      } ms, ${ratio.toFixed(2)}×  ${verdict(ratio <= TARGET_STUCK_RATIO && stuck.missing === 0)}`
    )
  }
  return { throughput: throughputs, latency: latencies }
}
