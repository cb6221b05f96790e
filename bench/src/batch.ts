/**
 * Batch throughput (issue 34, CONTRACT §13): messages accepted a second through
 * `POST /v1/messaging/batches`, 1,000 messages a request from 4 concurrent clients, on
 * `sendline serve --demo` as served (its workers dispatching meanwhile), on each store, beside two
 * baselines of the same run and store:
 *
 * - the single send as served: `POST /v1/messaging/messages` under autocannon at 32 connections,
 *   the send bench's runner (`servers.ts`) and checks; target: batch ≥ 10× its messages/s;
 * - the durable limit of this machine: the same rows (messages, their `message.queued` events, the
 *   batch's record) written by the store's driver alone (`message-rows.ts`: better-sqlite3 on the
 *   file, node-postgres with 4 connections), the store's multi-row INSERTs of 256, one transaction
 *   per 1,000, on a database `serve --demo` migrated; target: batch ≥ 0.25× of it.
 *
 * Every server is a child process, one at a time, each on a fresh database (a SQLite file; a fresh
 * schema of TEST_DATABASE_URL, dropped afterwards). The batch clients run in the bench's process,
 * each posting its next request when its last is answered; a run's rate is the messages accepted
 * by the requests it started in its measured seconds, over the time until the last was answered.
 *
 * Environment: BENCH_SECONDS (measured, default 10), BENCH_WARMUP_SECONDS (default 2),
 * BENCH_BATCH_STORES (`sqlite`, `pg`, default both), TEST_DATABASE_URL.
 */
import { Demo } from "@sendline/core"
import {
  batchBody,
  BATCHES_PATH,
  demoKey,
  type FreshDatabase,
  getJson,
  percentile,
  postBatch,
  rate,
  sendlineServe,
  type StoreTarget,
  storeTargets
} from "./batch-kit.js"
import { batchWrite, pgWriter, sqliteWriter, type Writer } from "./message-rows.js"
import { demoKeyRequest, verifyStored } from "./servers.js"
import { type LoadSpec, numberFromEnv, runServerBench, startServer } from "./servers.js"

const BATCH_SIZE = 1000
const CLIENTS = 4
const SEND_CONNECTIONS = 32
/** Batch messages/s ÷ single send messages/s: at least this. */
const TARGET_SINGLE = 10
/** Batch messages/s ÷ the driver's: at least this. */
const TARGET_DRIVER = 0.25

/** One row of the table: messages a second, and the latency of a request. */
interface Row {
  readonly name: string
  readonly messagesPerSecond: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly messages: number
  /** Requests that failed (a batch: not 201), and the first one's answer. */
  readonly failed?: { readonly count: number; readonly first: string }
}

/** One store's three rows, or why the batch row is missing. */
interface StoreFigures {
  readonly store: string
  readonly single: Row
  readonly batch: Row | string
  readonly driver: Row
}

/**
 * Runs `one` from `clients` loops, each starting its next when its last ends, for `warmup` seconds
 * (discarded) then `seconds`; `one` resolves with the messages it wrote.
 */
const closedLoop = async (
  name: string,
  clients: number,
  load: LoadSpec,
  one: () => Promise<number>
): Promise<Row> => {
  const run = async (seconds: number) => {
    const started = performance.now()
    const until = started + seconds * 1000
    const latencies: Array<number> = []
    let messages = 0
    await Promise.all(Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const start = performance.now()
        // read after the await: `messages += await one()` would add to the count read before it
        const written = await one()
        messages += written
        latencies.push(performance.now() - start)
      }
    }))
    const elapsed = (performance.now() - started) / 1000
    return { elapsed, latencies, messages }
  }
  if (load.warmupSeconds > 0) await run(load.warmupSeconds)
  const { elapsed, latencies, messages } = await run(load.durationSeconds)
  latencies.sort((a, b) => a - b)
  return {
    name,
    messagesPerSecond: messages / elapsed,
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    messages
  }
}

/** `fn` on a fresh database of `target`, dropped afterwards. */
const onFresh = async <A>(target: StoreTarget, fn: (db: FreshDatabase) => Promise<A>): Promise<A> => {
  const db = await target.database()
  try {
    return await fn(db)
  } finally {
    await db.drop()
  }
}

/** The single send as served, under the send bench's runner and checks. */
const singleSend = (target: StoreTarget, load: LoadSpec): Promise<Row> =>
  onFresh(target, async (db) => {
    const f = await runServerBench(
      sendlineServe(`${target.name} single`, db.env),
      { ...load, connections: SEND_CONNECTIONS },
      demoKeyRequest,
      verifyStored
    )
    return {
      name: `single send (${SEND_CONNECTIONS} connections)`,
      messagesPerSecond: f.requestsPerSecond,
      requestsPerSecond: f.requestsPerSecond,
      p50Ms: f.p50Ms,
      p99Ms: f.p99Ms,
      messages: f.completed2xx
    }
  })

/**
 * Batches as served, from `CLIENTS` clients; afterwards the last batch is read back
 * (`GET /v1/messaging/batches/{id}`) and listed by `batch_id`. A string: why there is no figure.
 */
const batches = (target: StoreTarget, load: LoadSpec): Promise<Row | string> =>
  onFresh(target, async (db) => {
    const server = await startServer(sendlineServe(`${target.name} batch`, db.env))
    try {
      const key = await demoKey(server)
      const body = batchBody(BATCH_SIZE)
      try {
        await postBatch(server.origin, key, batchBody(1))
      } catch (error) {
        return `not measured: ${(error as Error).message.slice(0, 160)}`
      }
      let last = ""
      let failed: { count: number; first: string } | undefined
      const row = await closedLoop(
        `batch (${BATCH_SIZE.toLocaleString("en-US")} a request, ${CLIENTS} clients)`,
        CLIENTS,
        load,
        async () => {
          const answer = await postBatch(server.origin, key, body).catch((error: Error) => {
            // a failed batch (the store unavailable under load, say) is counted and shown, not fatal
            failed = { count: (failed?.count ?? 0) + 1, first: failed?.first ?? error.message.slice(0, 200) }
            return undefined
          })
          if (answer === undefined) return 0
          if (answer.accepted !== BATCH_SIZE) {
            throw new Error(
              `a batch accepted ${answer.accepted} of ${BATCH_SIZE}: ${
                JSON.stringify(answer.messages.find((m) => m.error !== undefined))
              }`
            )
          }
          last = answer.id
          return answer.accepted
        }
      )
      const { data: read } = await getJson<
        { readonly data: { readonly accepted: number; readonly statuses: Record<string, number> } }
      >(server.origin, key, `${BATCHES_PATH}/${last}`)
      const counted = Object.values(read.statuses).reduce((a, b) => a + b, 0)
      if (read.accepted !== BATCH_SIZE || counted !== BATCH_SIZE) {
        throw new Error(
          `GET ${BATCHES_PATH}/${last}: accepted ${read.accepted}, statuses ${JSON.stringify(read.statuses)}`
        )
      }
      const listed = await getJson<{ readonly data: ReadonlyArray<unknown> }>(
        server.origin,
        key,
        `/v1/messaging/messages?batch_id=${last}&page_size=100`
      )
      if (listed.data.length !== 100) throw new Error(`the list by batch_id gave ${listed.data.length} of 100`)
      return failed === undefined ? row : { ...row, failed }
    } finally {
      await server.stop()
    }
  })

/**
 * The durable limit: a database `serve --demo` migrated (and made its demo account in), then the
 * batches' rows written there by the driver alone, `CLIENTS` transactions at once on PostgreSQL,
 * one at a time on SQLite (better-sqlite3 holds its thread for each, and SQLite has one writer).
 */
const driver = (target: StoreTarget, load: LoadSpec): Promise<Row> =>
  onFresh(target, async (db) => {
    const server = await startServer(sendlineServe(`${target.name} migrate`, db.env))
    try {
      await demoKey(server)
    } finally {
      await server.stop()
    }
    const writer: Writer = target.name === "SQLite"
      ? sqliteWriter(db.location)
      : await pgWriter(db.location, CLIENTS)
    try {
      const accountId = Demo.accountId
      const clients = target.name === "SQLite" ? 1 : CLIENTS
      return await closedLoop(
        `driver, ${BATCH_SIZE.toLocaleString("en-US")} a transaction`,
        clients,
        load,
        async () => {
          await writer.write([batchWrite(accountId, BATCH_SIZE, Date.now())])
          return BATCH_SIZE
        }
      )
    } finally {
      await writer.close()
    }
  })

const verdict = (met: boolean) => (met ? "PASS" : "MISS")

/** Prints one store's rows, its two ratios and their verdicts. */
const print = (f: StoreFigures) => {
  console.log(`\n  ${f.store}`)
  console.log(
    `  ${"".padEnd(36)} ${"messages/s".padStart(11)} ${"requests/s".padStart(11)} ${"p50 ms".padStart(8)} ${
      "p99 ms".padStart(8)
    } ${"messages".padStart(10)}`
  )
  for (const r of [f.single, f.batch, f.driver]) {
    if (typeof r === "string") {
      console.log(`  ${"batch".padEnd(36)} ${r}`)
      continue
    }
    console.log(
      `  ${r.name.padEnd(36)} ${rate(r.messagesPerSecond).padStart(11)} ${
        r.requestsPerSecond.toFixed(1).padStart(11)
      } ${r.p50Ms.toFixed(1).padStart(8)} ${r.p99Ms.toFixed(1).padStart(8)} ${rate(r.messages).padStart(10)}`
    )
  }
  if (typeof f.batch === "string") return
  const single = f.batch.messagesPerSecond / f.single.messagesPerSecond
  const durable = f.batch.messagesPerSecond / f.driver.messagesPerSecond
  console.log(
    `  batch ÷ single send: ${single.toFixed(1)}×, target ≥ ${TARGET_SINGLE}×: ${verdict(single >= TARGET_SINGLE)}`
  )
  console.log(
    `  batch ÷ driver alone: ${durable.toFixed(2)}×, target ≥ ${TARGET_DRIVER}×: ${verdict(durable >= TARGET_DRIVER)}`
  )
}

/**
 * Measures, on each store, the single send, batches and the driver alone, one after the other,
 * and prints each store's table with its ratios judged.
 *
 * @since 0.3.0
 */
export async function runBatchBench(): Promise<ReadonlyArray<StoreFigures>> {
  const load: LoadSpec = {
    connections: CLIENTS,
    warmupSeconds: numberFromEnv("BENCH_WARMUP_SECONDS", 2),
    durationSeconds: numberFromEnv("BENCH_SECONDS", 10)
  }
  console.log(
    `Messages accepted a second: POST ${BATCHES_PATH} (${BATCH_SIZE} messages a request, ${CLIENTS} clients) on ` +
      `sendline serve --demo as served,\nbeside the single send (${SEND_CONNECTIONS} connections) and the same rows ` +
      `written by the store's driver alone (one transaction per ${BATCH_SIZE});\n${load.warmupSeconds} s warm-up then ` +
      `${load.durationSeconds} s measured per row, each on a fresh database.`
  )
  const results: Array<StoreFigures> = []
  for (const target of await storeTargets()) {
    const single = await singleSend(target, load)
    const batch = await batches(target, load)
    const durable = await driver(target, load)
    const f = { store: target.name, single, batch, driver: durable }
    print(f)
    results.push(f)
  }
  return results
}
