/**
 * Opt-outs (issue 33, CONTRACT §12) on `sendline serve --demo` as served (`servers.ts`), on a SQLite
 * file and on PostgreSQL, on the Node running the bench:
 *
 * 1. **An import of 100,000 numbers**: `POST /v1/opt-outs/import` of a 1.3 MB CSV, timed from the
 *    request to its answer (target ≤ 10 s on SQLite), while another client (connections of its own)
 *    sends a request every 10 ms, open loop, in turn `GET /v1/messaging/messages/{id}`, a send, and
 *    `GET /v1/opt-outs/{phone}`: their latency from the moment each was due, p50/p95/p99 (target p99
 *    ≤ 50 ms on SQLite), beside the same requests for 3 s before the import (after 2 s of warm-up). PostgreSQL is reported.
 * 2. **The send's CPU with 100,000 opt-outs listed beside none**: the send bench's run (32
 *    connections, `POST /v1/messaging/messages`) on a server whose account lists 100,000 other
 *    numbers (imported first) and on one that lists none, one right after the other, the first of
 *    the pair alternating from round to round; the server child's CPU over the measured run ÷ the
 *    sends answered. Every send must succeed (the listed numbers are not the one sent to). Target:
 *    the median of the rounds' ratios with ÷ without ≤ 1.05 on SQLite; PostgreSQL reported.
 *
 * Environment: BENCH_OPTOUT_ROUNDS (rounds of each part, default 2), BENCH_OPTOUT_PARTS (`import`,
 * `cpu`, or both, the default), BENCH_SECONDS (each measured
 * send run, default 10), BENCH_WARMUP_SECONDS (default 2), BENCH_READY_SECONDS, TEST_DATABASE_URL.
 */
import type autocannon from "autocannon"
import { mkdtempSync, rmSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import {
  benchNode,
  demoKeyRequest,
  format,
  type LoadSpec,
  type NodeLine,
  numberFromEnv,
  type RunningServer,
  runServerBench,
  SEND_PATH,
  sendlineServer,
  type ServerFigures,
  sleep,
  startServer,
  type Storage,
  withPostgresSchemas
} from "./servers.js"

/** How many numbers are imported, and listed beside none. */
const LISTED = 100_000
/** The import of `LISTED` numbers on SQLite: at most this many seconds. */
const TARGET_IMPORT_SECONDS = 10
/** The other client's p99 during the import on SQLite: at most this many ms. */
const TARGET_P99_MS = 50
/** The send's CPU per request with `LISTED` opt-outs ÷ with none, median of the rounds: at most this. */
const TARGET_CPU_RATIO = 1.05
/** The other client sends one request every this many ms. */
const PROBE_INTERVAL_MS = 10
/** The other client alone first: a warm-up (its figures discarded), then the idle figures. */
const WARMUP_PROBE_MS = 2_000
const IDLE_PROBE_MS = 3_000
const IMPORT_PATH = "/v1/opt-outs/import"
/** Listed through `POST /v1/opt-outs` before the import, and read by the other client during it. */
const PROBED_OPT_OUT = "+61430000000"

const rounds = Number(process.env["BENCH_OPTOUT_ROUNDS"] ?? 2)
/** Which parts run: `import`, `cpu`, or both (the default). */
const parts = (process.env["BENCH_OPTOUT_PARTS"] ?? "import,cpu").split(",")

/** `count` distinct Australian mobile numbers, none of them the one the bench sends to, under a header line. */
const optOutCsv = (count: number): string => {
  const lines = ["phone"]
  for (let i = 0; i < count; i++) lines.push(`+614200${String(i).padStart(5, "0")}`)
  return `${lines.join("\n")}\n`
}

const keyOf = (request: { readonly headers: Readonly<Record<string, string>> }) =>
  request.headers["authorization"]!.replace(/^Bearer /, "")

/** Imports `csv` for `key`'s account; the seconds from the request to the answer. Fails unless all `expected` numbers were added. */
async function importCsv(origin: string, key: string, csv: string, expected: number): Promise<number> {
  const started = performance.now()
  const response = await fetch(`${origin}${IMPORT_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
    body: csv,
    signal: AbortSignal.timeout(300_000)
  })
  const text = await response.text()
  const seconds = (performance.now() - started) / 1000
  const data = (JSON.parse(text) as { readonly data?: { readonly imported?: unknown } }).data
  if (!response.ok || data?.imported !== expected) {
    throw new Error(`${IMPORT_PATH}: expected ${expected} imported, got ${response.status} ${text.slice(0, 300)}`)
  }
  return seconds
}

/** One request of the other client. */
interface Probe {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body?: string
}

/** Latencies in ms, sorted, and the requests that failed. */
interface Latencies {
  readonly sorted: ReadonlyArray<number>
  readonly failures: ReadonlyArray<string>
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!

/** Answers `probe` on `agent`'s connections: its status. */
const send = (agent: Agent, origin: string, key: string, probe: Probe) =>
  new Promise<number>((resolve, reject) => {
    const request = httpRequest(`${origin}${probe.path}`, {
      agent,
      method: probe.method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(probe.body === undefined ? {} : { "content-type": "application/json" })
      },
      timeout: 30_000
    }, (response) => {
      response.resume()
      response.once("end", () => resolve(response.statusCode ?? 0))
      response.once("error", reject)
    })
    request.once("error", reject)
    request.once("timeout", () => request.destroy(new Error("timed out")))
    request.end(probe.body)
  })

/**
 * Another client: `probes` in turn, one due every `PROBE_INTERVAL_MS` from now until `until`
 * settles (open loop: a late answer never delays the next), each timed from when it was due.
 */
async function probeUntil(
  origin: string,
  key: string,
  probes: ReadonlyArray<Probe>,
  until: Promise<unknown>
): Promise<Latencies> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  const samples: Array<number> = []
  const failures: Array<string> = []
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  until.then(() => (stopped = true), () => (stopped = true))
  const start = performance.now()
  for (let i = 0; !stopped; i++) {
    const due = start + i * PROBE_INTERVAL_MS
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    if (stopped) break
    const probe = probes[i % probes.length]!
    const done = send(agent, origin, key, probe).then(
      (status) => {
        samples.push(performance.now() - due)
        if (status >= 300) failures.push(`${probe.method} ${probe.path}: ${status}`)
      },
      (error: unknown) => void failures.push(`${probe.method} ${probe.path}: ${String(error)}`)
    )
    inFlight.add(done)
    void done.finally(() => inFlight.delete(done))
  }
  await Promise.all(inFlight)
  agent.destroy()
  return { sorted: samples.sort((a, b) => a - b), failures }
}

/** One import, timed, with the other client's latencies before and during it. */
interface ImportRun {
  readonly store: string
  readonly seconds: number
  readonly idle: Latencies
  readonly during: Latencies
}

/** A JSON request of `key` to `server`, failing unless it answers 2xx; its `data`. */
async function call(server: RunningServer, key: string, method: string, path: string, json?: unknown) {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    signal: AbortSignal.timeout(10_000)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
  return (JSON.parse(text) as { readonly data: { readonly id?: string } }).data
}

/** Part 1 on `storage`: a fresh server, the other client alone (2 s of warm-up, 3 s measured), then the import with the other client beside it. */
async function importRun(store: string, line: NodeLine, storage: Storage, csv: string): Promise<ImportRun> {
  const server = await startServer(sendlineServer(`Sendline (${store})`, line, storage))
  try {
    const sending = await demoKeyRequest(server)
    const key = keyOf(sending)
    const message = await call(server, key, "POST", SEND_PATH, JSON.parse(sending.body!))
    await call(server, key, "POST", "/v1/opt-outs", { phone: PROBED_OPT_OUT })
    const probes: ReadonlyArray<Probe> = [
      { method: "GET", path: `${SEND_PATH}/${message.id}` },
      { method: "POST", path: SEND_PATH, body: sending.body! },
      { method: "GET", path: `/v1/opt-outs/${encodeURIComponent(PROBED_OPT_OUT)}` }
    ]
    await probeUntil(server.origin, key, probes, sleep(WARMUP_PROBE_MS))
    const idle = await probeUntil(server.origin, key, probes, sleep(IDLE_PROBE_MS))
    const importing = importCsv(server.origin, key, csv, LISTED)
    const [seconds, during] = await Promise.all([importing, probeUntil(server.origin, key, probes, importing)])
    await call(server, key, "GET", `/v1/opt-outs/${encodeURIComponent(`+614200${LISTED - 1}`)}`)
    return { store, seconds, idle, during }
  } finally {
    await server.stop()
  }
}

/** One round of part 2: the send run without opt-outs and with `LISTED`, on fresh servers. */
interface CpuPair {
  readonly store: string
  readonly without: ServerFigures
  readonly with: ServerFigures
}

/** Part 2's round `round` on `storages` (two fresh ones): which of the pair runs first alternates with the round. */
async function cpuPair(
  store: string,
  round: number,
  line: NodeLine,
  storages: readonly [Storage, Storage],
  load: LoadSpec,
  csv: string
): Promise<CpuPair> {
  const run = (listed: boolean, storage: Storage) =>
    runServerBench(
      sendlineServer(`Sendline (${store}), ${listed ? `${LISTED / 1000}k` : "no"} opt-outs`, line, storage),
      load,
      async (server) => {
        const request = await demoKeyRequest(server)
        if (listed) await importCsv(server.origin, keyOf(request), csv, LISTED)
        return request
      },
      verifySent
    )
  if (round % 2 === 0) {
    const without = await run(false, storages[0])
    return { store, without, with: await run(true, storages[1]) }
  }
  const withListed = await run(true, storages[0])
  return { store, without: await run(false, storages[1]), with: withListed }
}

/**
 * `verify` of a send run here: every send answered succeeded (none refused as opted out) and some
 * were; sends unanswered within autocannon's 10 s (a machine this loaded) are only counted out.
 */
const verifySent = async (server: RunningServer, _request: unknown, summary: autocannon.Result) => {
  if (summary.non2xx > 0 || summary["2xx"] === 0) {
    throw new Error(
      `${server.name}: ${summary["2xx"]} sends succeeded, ${summary.non2xx} did not (${
        JSON.stringify(summary.statusCodeStats)
      })`
    )
  }
}

const verdict = (met: boolean | undefined) => (met === undefined ? "(reported)" : met ? "PASS" : "MISS")

const ms = (n: number) => format.ms(Math.round(n * 10) / 10)

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function printImports(runs: ReadonlyArray<ImportRun>) {
  console.log(
    `\n  ${"store".padEnd(11)} ${"import s".padStart(8)} ${"numbers/s".padStart(10)}  ${
      "idle p50/p95/p99 ms".padStart(19)
    }  ${"during p50/p95/p99/max ms".padStart(25)} ${"probes".padStart(6)} ${"failed".padStart(6)}  verdicts`
  )
  for (const run of runs) {
    const judged = run.store === "SQLite"
    const p = (l: Latencies, q: number) => ms(percentile(l.sorted, q))
    const p99 = percentile(run.during.sorted, 0.99)
    console.log(
      `  ${run.store.padEnd(11)} ${run.seconds.toFixed(2).padStart(8)} ${
        format.rate(LISTED / run.seconds).padStart(10)
      }  ${`${p(run.idle, 0.5)}/${p(run.idle, 0.95)}/${p(run.idle, 0.99)}`.padStart(19)}  ${
        `${p(run.during, 0.5)}/${p(run.during, 0.95)}/${ms(p99)}/${p(run.during, 1)}`.padStart(25)
      } ${String(run.during.sorted.length).padStart(6)} ${String(run.during.failures.length).padStart(6)}  ` +
        `import ≤ ${TARGET_IMPORT_SECONDS} s: ${verdict(judged ? run.seconds <= TARGET_IMPORT_SECONDS : undefined)}, ` +
        `p99 ≤ ${TARGET_P99_MS} ms: ${verdict(judged ? p99 <= TARGET_P99_MS : undefined)}`
    )
    for (const failure of run.during.failures.slice(0, 3)) console.log(`    failed: ${failure}`)
  }
}

function printPairs(pairs: ReadonlyArray<CpuPair>) {
  console.log(
    `\n  ${"store".padEnd(11)} ${"round".padStart(5)} ${"CPU µs/send, none".padStart(18)} ${
      `with ${LISTED / 1000}k`.padStart(10)
    } ${"ratio".padStart(6)} ${"sends/s, none".padStart(14)} ${`with ${LISTED / 1000}k`.padStart(10)}`
  )
  const stores = [...new Set(pairs.map((pair) => pair.store))]
  for (const store of stores) {
    const ofStore = pairs.filter((pair) => pair.store === store)
    ofStore.forEach((pair, i) => {
      console.log(
        `  ${store.padEnd(11)} ${String(i + 1).padStart(5)} ${
          format.rate(pair.without.cpuMicrosPerRequest).padStart(18)
        } ${format.rate(pair.with.cpuMicrosPerRequest).padStart(10)} ${
          (pair.with.cpuMicrosPerRequest / pair.without.cpuMicrosPerRequest).toFixed(3).padStart(6)
        } ${format.rate(pair.without.requestsPerSecond).padStart(14)} ${
          format.rate(pair.with.requestsPerSecond).padStart(10)
        }`
      )
    })
  }
  console.log("")
  for (const store of stores) {
    const ratios = pairs.filter((pair) => pair.store === store).map((p) =>
      p.with.cpuMicrosPerRequest / p.without.cpuMicrosPerRequest
    )
    const middle = median(ratios)
    console.log(
      `${store}: the send's CPU with ${format.rate(LISTED)} opt-outs ÷ with none, median of ${ratios.length}: ${
        middle.toFixed(3)
      } (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}), target ≤ ${TARGET_CPU_RATIO}: ${
        verdict(store === "SQLite" ? middle <= TARGET_CPU_RATIO : undefined)
      }`
    )
  }
}

/** Runs both parts on SQLite, then on PostgreSQL, and prints their tables with the verdicts. */
export async function runOptOutsBench(): Promise<void> {
  const line = benchNode()
  const csv = optOutCsv(LISTED)
  const load: LoadSpec = {
    connections: 32,
    warmupSeconds: numberFromEnv("BENCH_WARMUP_SECONDS", 2),
    durationSeconds: numberFromEnv("BENCH_SECONDS", 10)
  }
  console.log(
    `${line.name} (${line.version}); ${rounds} round(s) of each part. Import: ${format.rate(LISTED)} numbers ` +
      `(${(csv.length / 1e6).toFixed(1)} MB of CSV) in one ${IMPORT_PATH}, the other client one request every ` +
      `${PROBE_INTERVAL_MS} ms (GET a message, a send, GET an opt-out), timed from when it was due.`
  )
  const dataDir = mkdtempSync(join(tmpdir(), "sendline-bench-optouts-"))
  let files = 0
  const sqliteFile = (): Storage => ({ sqlitePath: join(dataDir, `sendline-${files++}.sqlite`) })
  try {
    if (parts.includes("import")) await importPart(line, sqliteFile, csv)
    if (parts.includes("cpu")) await cpuPart(line, sqliteFile, load, csv)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Part 1 on each store, its table printed once measured (so that a later failure keeps it). */
async function importPart(line: NodeLine, sqliteFile: () => Storage, csv: string) {
  const sqliteImports: Array<ImportRun> = []
  for (let round = 0; round < rounds; round++) sqliteImports.push(await importRun("SQLite", line, sqliteFile(), csv))
  printImports(sqliteImports)
  await withPostgresSchemas("The opt-outs import on PostgreSQL", rounds, async (urls) => {
    const runs: Array<ImportRun> = []
    for (const url of urls) runs.push(await importRun("PostgreSQL", line, { databaseUrl: url }, csv))
    printImports(runs)
  })
}

/** Part 2 on each store, its table printed once measured. */
async function cpuPart(line: NodeLine, sqliteFile: () => Storage, load: LoadSpec, csv: string) {
  console.log(
    `\nThe send (${SEND_PATH}, ${load.connections} connections, ${load.warmupSeconds} s warm-up, ${load.durationSeconds} s measured) ` +
      `with ${
        format.rate(LISTED)
      } other numbers listed beside none; the server's CPU over the measured run ÷ the sends answered.`
  )
  const sqlitePairs: Array<CpuPair> = []
  for (let round = 0; round < rounds; round++) {
    sqlitePairs.push(await cpuPair("SQLite", round, line, [sqliteFile(), sqliteFile()], load, csv))
  }
  printPairs(sqlitePairs)
  await withPostgresSchemas("The send with opt-outs on PostgreSQL", 2 * rounds, async (urls) => {
    const pairs: Array<CpuPair> = []
    for (let round = 0; round < rounds; round++) {
      const storages = [{ databaseUrl: urls[2 * round]! }, { databaseUrl: urls[2 * round + 1]! }] as const
      pairs.push(await cpuPair("PostgreSQL", round, line, storages, load, csv))
    }
    printPairs(pairs)
  })
}
