/**
 * Send throughput: `POST /v1/messaging/messages` on `sendline serve --demo` (embedded SQLite, then
 * PostgreSQL) under autocannon at 32 connections, beside two baselines measured in the same run: a
 * bare `node:http` server answering a constant JSON body (first, and again last, so that a machine
 * whose speed drifted during the run is seen), and the same endpoint on HttpApi decoding the payload
 * and storing nothing. On SQLite it runs twice: as served, its workers dispatching every
 * accepted message meanwhile, and with its workers asleep (the API's own path). Each row is printed
 * beside its target, a share of the HttpApi row of the same run: at least 0.50× as served, 0.70×
 * with the workers asleep; the others are baselines or reported. Every server runs as
 * a child process, one after the other, so none shares an event loop with autocannon or with another.
 *
 * Every server runs on two Node lines in the same run: the Node running the bench (20, with the
 * workspace's better-sqlite3 12), whose figures make the table and judge the targets, and Node 24 from
 * the npm registry with better-sqlite3 13.2.0 (scripts/install-node-line.sh installs it,
 * scripts/redirect-better-sqlite3.mjs puts 13.2.0 in place of 12 in its processes). Each server's two
 * runs follow each other, the first of the pair alternating from one server to the next, so that both
 * lines see the same machine; a second table puts them side by side, with Node 24's req/s ÷ Node 20's.
 *
 * The runner (`servers.ts`: `startServer`, `runServerBench`) takes any server command and environment;
 * the PostgreSQL variant is the same command with `DATABASE_URL` on a fresh schema of
 * TEST_DATABASE_URL (default `postgres://postgres@127.0.0.1:5432/test`), dropped afterwards, and is
 * skipped with a line saying so when no server answers there.
 *
 * Environment: BENCH_SECONDS (measured run, default 10), BENCH_WARMUP_SECONDS (default 2),
 * BENCH_CPU_PROF_DIR (when set, the SQLite Sendline child runs with `--cpu-prof` and writes its profile there),
 * BENCH_READY_SECONDS (a server's start-up, at most; default 30), TEST_DATABASE_URL.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  benchNode,
  demoKeyRequest,
  format,
  type LoadSpec,
  node,
  type NodeLine,
  numberFromEnv,
  REPO_ROOT,
  runServerBench,
  SEND_PATH,
  sendlineServer,
  sendRequest,
  type ServerFigures,
  verifyStored,
  withPostgresSchemas
} from "./servers.js"

const CONNECTIONS = 32
/** Sendline (SQLite) as served, req/s ÷ the HttpApi row's of the same run: at least this. */
const TARGET_SERVED = 0.5
/** Sendline (SQLite) with its workers asleep, req/s ÷ the HttpApi row's: at least this. */
const TARGET_ASLEEP = 0.7
// how far apart the bare server's first and last runs may be for the run's ratios to be judged
const MAX_DRIFT = 0.25

/** What `runSendBench` measured. */
interface SendBenchResult {
  readonly load: LoadSpec
  /** The bare server: its first run, with the mean req/s of its two runs. */
  readonly bare: ServerFigures
  /** The bare server measured again after the others: how far the machine's speed drifted meanwhile. */
  readonly bareAgain: ServerFigures
  /** The same endpoint on HttpApi, decoding the payload and storing nothing. */
  readonly httpApi: ServerFigures
  /** Sendline on SQLite as it runs, its workers dispatching meanwhile. */
  readonly sendline: ServerFigures
  /** Sendline on SQLite with its workers asleep: the API's own path. */
  readonly apiOnly: ServerFigures
  readonly fullSync: ServerFigures
  /** Sendline req/s ÷ bare node:http req/s (the mean of its two runs). */
  readonly ratio: number
  /** Sendline (SQLite) as served, req/s ÷ HttpApi's. */
  readonly servedRatio: number
  /** Sendline (SQLite) with its workers asleep, req/s ÷ HttpApi's. */
  readonly asleepRatio: number
  /**
   * Each target met (as served ≥ 0.50× HttpApi, asleep ≥ 0.70×); undefined when not judged, the
   * two bare runs differing by more than 25 %.
   */
  readonly targetsMet: { readonly served: boolean; readonly asleep: boolean } | undefined
  /** Sendline on PostgreSQL; undefined when no server answered at TEST_DATABASE_URL. */
  readonly postgres: ServerFigures | undefined
  /** Sendline (PostgreSQL) req/s ÷ bare node:http req/s. */
  readonly postgresRatio: number | undefined
  /** Every server again on Node 24, each run beside its run above. */
  readonly node24: Node24Figures
}

/**
 * Node 24 from the npm registry, installed on first use (scripts/install-node-line.sh), its processes
 * loading better-sqlite3 13.2.0 in place of the workspace's 12 (scripts/redirect-better-sqlite3.mjs),
 * each of them appending a line to `loads` when it does.
 */
const node24 = (loads: string): NodeLine => {
  const execPath = execFileSync("sh", [join(REPO_ROOT, "scripts/install-node-line.sh"), "24"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"]
  }).trim()
  const copy = join(REPO_ROOT, "scripts/node24/node_modules/better-sqlite3/package.json")
  const hook = `--import="${join(REPO_ROOT, "scripts/redirect-better-sqlite3.mjs")}"`
  const inherited = process.env["NODE_OPTIONS"]
  return {
    name: "Node 24",
    version: execFileSync(execPath, ["-p", "process.version"], { encoding: "utf8" }).trim(),
    execPath,
    betterSqlite3: (JSON.parse(readFileSync(copy, "utf8")) as { version: string }).version,
    env: {
      NODE_OPTIONS: inherited === undefined || inherited === "" ? hook : `${hook} ${inherited}`,
      BETTER_SQLITE3_LOADS: loads
    }
  }
}

/** One server's figures on the bench's Node and on Node 24, measured one right after the other. */
interface Paired {
  readonly current: ServerFigures
  readonly node24: ServerFigures
}

/** The send bench's servers on Node 24, each beside its run on the bench's Node. */
interface Node24Figures {
  /** e.g. `v24.21.0` */
  readonly version: string
  readonly betterSqlite3: string
  /** Every row of the table, in its order. */
  readonly rows: ReadonlyArray<Paired>
  /** Sendline (SQLite) as served, req/s ÷ HttpApi's, both on Node 24. */
  readonly servedRatio: number
  /** Sendline (SQLite) with its workers asleep, req/s ÷ HttpApi's, both on Node 24. */
  readonly asleepRatio: number
  /** How many Node 24 processes loaded better-sqlite3, by "node <version> better-sqlite3 <version>". */
  readonly loads: ReadonlyMap<string, number>
}

/**
 * Benches `POST /v1/messaging/messages` on `sendline serve --demo` against the two baselines and prints a
 * table, then the same servers on Node 24 beside the bench's Node.
 */
export async function runSendBench(): Promise<SendBenchResult> {
  const loadsDir = mkdtempSync(join(tmpdir(), "sendline-bench-loads-"))
  try {
    return await benchOnBothLines(join(loadsDir, "better-sqlite3-loads.txt"))
  } finally {
    rmSync(loadsDir, { recursive: true, force: true })
  }
}

/** What `measureOnBothLines` measured: each row on the bench's Node, and every pair. */
interface Measured {
  readonly bareFirst: ServerFigures
  readonly httpApi: ServerFigures
  readonly sendline: ServerFigures
  readonly apiOnly: ServerFigures
  readonly fullSync: ServerFigures
  readonly postgres: ServerFigures | undefined
  readonly bareAgain: ServerFigures
  /** Every row on both lines, in the table's order. */
  readonly pairs: ReadonlyArray<Paired>
}

/**
 * Runs every server of the table under `load` on `current` and on `next`, one at a time; with
 * `profileDir`, the Sendline (SQLite) row on `current` writes a CPU profile there.
 */
async function measureOnBothLines(
  load: LoadSpec,
  current: NodeLine,
  next: NodeLine,
  profileDir: string | undefined
): Promise<Measured> {
  // Each server on both lines, one right after the other; which goes first alternates from one
  // server to the next, so that a machine slowing down or speeding up favours neither.
  const pairs: Array<Paired> = []
  const onBoth = async (run: (line: NodeLine) => Promise<ServerFigures>): Promise<ServerFigures> => {
    const currentFirst = pairs.length % 2 === 0
    const first = await run(currentFirst ? current : next)
    const second = await run(currentFirst ? next : current)
    const pair = currentFirst ? { current: first, node24: second } : { current: second, node24: first }
    pairs.push(pair)
    return pair.current
  }

  const runBare = (name: string) =>
    onBoth((line) =>
      runServerBench(
        { name, ...node(line, "bench/src/bare-server.ts"), env: line.env },
        load,
        async () => sendRequest("sk_bare")
      )
    )
  const bareFirst = await runBare("bare node:http")
  const httpApi = await onBoth((line) =>
    runServerBench(
      { name: "HttpApi, no storage", ...node(line, "bench/src/httpapi-server.ts"), env: line.env },
      load,
      async () => sendRequest("sk_httpapi")
    )
  )

  // Sendline on a fresh SQLite file, as `npm start` runs it; `env` adds to the server's settings.
  const onSqlite = (
    name: string,
    env: Readonly<Record<string, string>>,
    nodeFlags: ReadonlyArray<string> = []
  ) =>
    onBoth(async (line) => {
      const dataDir = mkdtempSync(join(tmpdir(), "sendline-bench-"))
      try {
        return await runServerBench(
          sendlineServer(
            name,
            line,
            { sqlitePath: join(dataDir, "sendline.sqlite") },
            env,
            line === current ? nodeFlags : []
          ),
          load,
          demoKeyRequest,
          verifyStored
        )
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
      }
    })
  // The headline: the server as it runs, its workers dispatching every accepted message meanwhile.
  const sendline = await onSqlite(
    "Sendline (SQLite)",
    {},
    profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]
  )
  // The API's own path: the workers' first pass finds nothing and their next is a day away.
  const apiOnly = await onSqlite("  workers asleep", { WORKER_POLL_MS: String(24 * 60 * 60 * 1000) })
  // What surviving a power loss costs: the write-ahead log synced at every (group) commit.
  const fullSync = await onSqlite("  synchronous full", { SQLITE_SYNCHRONOUS: "full" })

  // The same server on PostgreSQL, on each line in a fresh schema of TEST_DATABASE_URL that is dropped afterwards.
  const postgres = await withPostgresSchemas(
    "Sendline (PostgreSQL)",
    2,
    ([currentSchema, node24Schema]) =>
      onBoth((line) =>
        runServerBench(
          sendlineServer("Sendline (PostgreSQL)", line, {
            databaseUrl: line === current ? currentSchema! : node24Schema!
          }),
          load,
          demoKeyRequest,
          verifyStored
        )
      )
  )

  // The machine's speed may drift during a run (a shared VM): the bare server again, last, brackets
  // the others; ratios are to the mean of its two runs, and a large drift is said.
  const bareAgain = await runBare("bare node:http, again")
  return { apiOnly, bareAgain, bareFirst, fullSync, httpApi, pairs, postgres, sendline }
}

/** `runSendBench` itself; Node 24's servers append a line to `loads` when they load better-sqlite3. */
async function benchOnBothLines(loads: string): Promise<SendBenchResult> {
  const load: LoadSpec = {
    connections: CONNECTIONS,
    warmupSeconds: numberFromEnv("BENCH_WARMUP_SECONDS", 2),
    durationSeconds: numberFromEnv("BENCH_SECONDS", 10)
  }
  const profileDir = process.env["BENCH_CPU_PROF_DIR"]
  const current = benchNode()
  const next = node24(loads)
  console.log(
    `POST ${SEND_PATH}, ${load.connections} connections, ${load.warmupSeconds} s warm-up then ${load.durationSeconds} s measured ` +
      `per server; each server is a child process, run one at a time, on ${current.name} (${current.version}, ` +
      `better-sqlite3 ${current.betterSqlite3}) and right before or after on ${next.name} (${next.version}, ` +
      `better-sqlite3 ${next.betterSqlite3})`
  )

  const { apiOnly, bareAgain, bareFirst, fullSync, httpApi, pairs, postgres, sendline } = await measureOnBothLines(
    load,
    current,
    next,
    profileDir
  )
  const bare: ServerFigures = {
    ...bareFirst,
    name: "bare node:http (mean)",
    requestsPerSecond: (bareFirst.requestsPerSecond + bareAgain.requestsPerSecond) / 2
  }
  const drift = Math.abs(bareAgain.requestsPerSecond - bareFirst.requestsPerSecond) / bare.requestsPerSecond
  const trusted = drift <= MAX_DRIFT

  const times = (r: ServerFigures, base: ServerFigures) =>
    `${(r.requestsPerSecond / base.requestsPerSecond).toFixed(2)}×`
  const servedRatio = sendline.requestsPerSecond / httpApi.requestsPerSecond
  const asleepRatio = apiOnly.requestsPerSecond / httpApi.requestsPerSecond
  const targetsMet = trusted
    ? { served: servedRatio >= TARGET_SERVED, asleep: asleepRatio >= TARGET_ASLEEP }
    : undefined
  const verdict = (met: boolean | undefined) => (met === undefined ? "not judged" : met ? "met" : "NOT met")
  // each row's target: a share of the HttpApi row; the bare server and HttpApi are the baselines
  const targets = new Map<ServerFigures, string>([
    [bareFirst, "(baseline)"],
    [httpApi, "(baseline)"],
    [sendline, `≥ ${TARGET_SERVED.toFixed(2)}× HttpApi: ${verdict(targetsMet?.served)}`],
    [apiOnly, `≥ ${TARGET_ASLEEP.toFixed(2)}× HttpApi: ${verdict(targetsMet?.asleep)}`],
    [bareAgain, "(baseline)"]
  ])
  console.log(
    `\n  ${"server".padEnd(22)} ${"req/s (mean)".padStart(12)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${
      "non-2xx".padStart(8)
    } ${"2xx total".padStart(10)} ${"÷ bare".padStart(7)} ${"÷ HttpApi".padStart(10)}  target`
  )
  const rows = [
    bareFirst,
    httpApi,
    sendline,
    apiOnly,
    fullSync,
    ...(postgres === undefined ? [] : [postgres]),
    bareAgain
  ]
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(22)} ${format.rate(r.requestsPerSecond).padStart(12)} ${format.ms(r.p50Ms).padStart(7)} ${
        format.ms(r.p99Ms).padStart(7)
      } ${String(r.non2xx).padStart(8)} ${format.rate(r.completed2xx).padStart(10)} ${times(r, bare).padStart(7)} ${
        (r === bareFirst || r === bareAgain ? "" : times(r, httpApi)).padStart(10)
      }  ${targets.get(r) ?? "(reported)"}`
    )
  }
  const ratio = sendline.requestsPerSecond / bare.requestsPerSecond
  const postgresRatio = postgres === undefined ? undefined : postgres.requestsPerSecond / bare.requestsPerSecond
  console.log(`\n÷ bare is to the mean of the two bare runs (${format.rate(bare.requestsPerSecond)} req/s).`)
  if (!trusted) {
    console.log(
      `The bare server's two runs differ by ${
        Math.round(drift * 100)
      } %: the machine's speed drifted during this run, ` +
        `so its ratios are not to be trusted; run the bench again.`
    )
  }
  console.log(`Sendline (SQLite) / bare node:http: ${ratio.toFixed(2)}× (reported)`)
  if (postgresRatio !== undefined) {
    console.log(`Sendline (PostgreSQL) / bare node:http: ${postgresRatio.toFixed(2)}× (reported)`)
  }
  const drifted = trusted ? "" : " (the machine drifted)"
  console.log(
    `Sendline (SQLite) as served / HttpApi, no storage: ${servedRatio.toFixed(2)}×, target ≥ ${
      TARGET_SERVED.toFixed(2)
    }×: ${verdict(targetsMet?.served)}${drifted}`
  )
  console.log(
    `Sendline (SQLite), workers asleep / HttpApi, no storage: ${asleepRatio.toFixed(2)}×, target ≥ ${
      TARGET_ASLEEP.toFixed(2)
    }×: ${verdict(targetsMet?.asleep)}${drifted}`
  )
  if (profileDir !== undefined) console.log(`Sendline CPU profile written under ${profileDir}`)
  const onNode24 = sideBySide(current, next, pairs, { httpApi, sendline, apiOnly }, loads)
  return {
    load,
    bare,
    bareAgain,
    httpApi,
    sendline,
    apiOnly,
    fullSync,
    ratio,
    servedRatio,
    asleepRatio,
    targetsMet,
    postgres,
    postgresRatio,
    node24: onNode24
  }
}

/**
 * Prints every server's figures on Node 24 beside its run on the bench's Node, with Node 24's req/s ÷
 * the bench Node's, then Node 24's own ratios to its HttpApi row and what its processes loaded.
 */
function sideBySide(
  current: NodeLine,
  next: NodeLine,
  pairs: ReadonlyArray<Paired>,
  rowsOfCurrent: { readonly httpApi: ServerFigures; readonly sendline: ServerFigures; readonly apiOnly: ServerFigures },
  loads: string
): Node24Figures {
  const on24 = (r: ServerFigures) => pairs.find((pair) => pair.current === r)!.node24
  const short = (line: NodeLine) => line.name.replace("Node ", "")
  console.log(
    `\n${next.name} (${next.version}, better-sqlite3 ${next.betterSqlite3}) beside ${current.name} (${current.version}, ` +
      `better-sqlite3 ${current.betterSqlite3}): each server's two runs one right after the other\n`
  )
  console.log(
    `  ${"server".padEnd(22)} ${`${current.name} req/s`.padStart(14)} ${`${next.name} req/s`.padStart(14)} ${
      `${short(next)} ÷ ${short(current)}`.padStart(8)
    } ${`p99 ms ${short(current)}`.padStart(10)} ${`p99 ms ${short(next)}`.padStart(10)} ${
      `non-2xx ${short(next)}`.padStart(11)
    }`
  )
  for (const { current: a, node24: b } of pairs) {
    console.log(
      `  ${a.name.padEnd(22)} ${format.rate(a.requestsPerSecond).padStart(14)} ${
        format.rate(b.requestsPerSecond).padStart(14)
      } ${`${(b.requestsPerSecond / a.requestsPerSecond).toFixed(2)}×`.padStart(8)} ${
        format.ms(a.p99Ms).padStart(10)
      } ${format.ms(b.p99Ms).padStart(10)} ${String(b.non2xx).padStart(11)}`
    )
  }
  const servedRatio = on24(rowsOfCurrent.sendline).requestsPerSecond / on24(rowsOfCurrent.httpApi).requestsPerSecond
  const asleepRatio = on24(rowsOfCurrent.apiOnly).requestsPerSecond / on24(rowsOfCurrent.httpApi).requestsPerSecond
  console.log(
    `\nOn ${next.name}: Sendline (SQLite) as served / HttpApi, no storage: ${
      servedRatio.toFixed(2)
    }×; workers asleep / ` +
      `HttpApi, no storage: ${asleepRatio.toFixed(2)}× (the targets are judged on ${current.name}, above)`
  )
  // each line "<pid> node <version> better-sqlite3 <version>", from scripts/redirect-better-sqlite3.mjs
  const counts = new Map<string, number>()
  const lines = (() => {
    try {
      return readFileSync(loads, "utf8").split("\n").filter((line) => line !== "")
    } catch {
      return []
    }
  })()
  for (const line of lines) {
    const what = line.slice(line.indexOf(" ") + 1)
    counts.set(what, (counts.get(what) ?? 0) + 1)
  }
  console.log(
    `${next.name}'s servers that loaded better-sqlite3: ${lines.length}, as ${
      [...counts].map(([what, n]) => `${what} (${n})`).join(", ") || "none"
    }`
  )
  return {
    version: next.version,
    betterSqlite3: next.betterSqlite3,
    rows: pairs,
    servedRatio,
    asleepRatio,
    loads: counts
  }
}
