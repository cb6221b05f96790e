/**
 * The servers the benches measure over HTTP, and how: `startServer` runs any command as a child
 * process on a free port and waits for `GET /health`; `runServerBench` starts one, measures a
 * request under autocannon (a warm-up, then the measured run, with the child's CPU over the measured
 * run) and stops it; `sendlineServer` is `sendline serve --demo` on a SQLite file or a PostgreSQL
 * schema, as `npm start` runs it; `withPostgresSchemas` gives fresh schemas of TEST_DATABASE_URL
 * (default `postgres://postgres@127.0.0.1:5432/test`), dropped afterwards, or says why there are none.
 * The send bench (`send.ts`) and the opt-outs bench (`optouts.ts`) share them.
 */
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import autocannon from "autocannon"
import { Effect, Option, Redacted } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const STOP_TIMEOUT_MS = 10_000
const OUTPUT_LIMIT = 64 * 1024

/** The repository's root, where every server runs. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
/** The send endpoint. */
export const SEND_PATH = "/v1/messaging/messages"
/** The number every bench send goes to. */
const SEND_TO = "+61412345678"
const SEND_BODY = JSON.stringify({ to: SEND_TO, sender_id: "Sendline", body: "Bench message", market: "AU" })

/** A server's start-up, at most (BENCH_READY_SECONDS, default 30: more on a machine this loaded). */
const readyTimeoutMs = () => numberFromEnv("BENCH_READY_SECONDS", 30) * 1000

/** The positive number in the environment variable `name`, or `fallback` when it is unset or empty. */
export const numberFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`)
  return value
}

/** A server to bench: the command and arguments that start it, run from the repository root. */
export interface ServerSpec {
  /** Shown in the results table. */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Merged over `process.env`; `undefined` removes a variable. `PORT` and `HOST` are set by the runner. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A started server child: its origin, its output so far, and how to stop it. */
export interface RunningServer {
  readonly name: string
  /** e.g. `http://127.0.0.1:40123` */
  readonly origin: string
  /** Everything the child has written to stdout so far (the last 64 KiB). */
  readonly stdout: () => string
  /** Resolves with the first match of `pattern` in stdout, waiting up to `timeoutMs` for it. */
  readonly waitForStdout: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  /** The CPU (user + system, every thread) the child has used so far, in µs, to the kernel's tick (10 ms). */
  readonly cpuMicros: () => number
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves once it has exited. */
  readonly stop: () => Promise<void>
}

/** The request autocannon repeats, on the server's origin. */
export interface RequestSpec {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

/** Load shape: connections, warm-up and measured durations in seconds. */
export interface LoadSpec {
  readonly connections: number
  readonly warmupSeconds: number
  readonly durationSeconds: number
}

/** One server's figures from the measured run. */
export interface ServerFigures {
  readonly name: string
  /** Mean of autocannon's per-second request counts. */
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly completed2xx: number
  /** The server child's CPU over the measured run ÷ the requests answered in it, in µs. */
  readonly cpuMicrosPerRequest: number
  readonly summary: autocannon.Result
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("could not find a free port"))))
    })
  })

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const tail = (text: string, lines = 20) => text.trimEnd().split("\n").slice(-lines).join("\n")

// Children still running when the bench process exits (e.g. on an uncaught error) are killed.
const live = new Set<ChildProcess>()
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL")
})

/** Spawns `spec` on a free port and resolves once `GET /health` answers 2xx (fails after ~30 s or if it exits). */
export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const port = await freePort()
  const host = "127.0.0.1"
  const origin = `http://${host}:${port}`
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, ...spec.env, PORT: String(port), HOST: host })) {
    if (v !== undefined) env[k] = v
  }
  const child = spawn(spec.command, [...spec.args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
  live.add(child)
  let stdout = ""
  let stderr = ""
  const waiters = new Set<() => void>()
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout = (stdout + chunk).slice(-OUTPUT_LIMIT)
    for (const wake of waiters) wake()
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-OUTPUT_LIMIT)
  })
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal }
      live.delete(child)
      for (const wake of waiters) wake()
      resolve()
    })
  })
  let spawnError: Error | undefined
  child.once("error", (error) => {
    spawnError = error
    live.delete(child)
  })

  const describeFailure = (what: string) =>
    new Error(
      `${spec.name}: ${what}` +
        (exit === undefined ? "" : ` (exited with ${exit.signal ?? `code ${exit.code}`})`) +
        `\n--- stdout (tail) ---\n${tail(stdout)}\n--- stderr (tail) ---\n${tail(stderr)}`
    )

  const stop = async () => {
    if (exit !== undefined || spawnError !== undefined) return
    child.kill("SIGTERM")
    const killed = await Promise.race([exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)])
    if (killed) {
      child.kill("SIGKILL")
      await exited
    }
  }

  const waitForStdout = (pattern: RegExp, timeoutMs = 5_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stdout.match(pattern)
        if (match !== null) return done(() => resolve(match))
        if (exit !== undefined) return done(() => reject(describeFailure(`no ${pattern} in its output`)))
      }
      const timer = setTimeout(
        () => done(() => reject(describeFailure(`no ${pattern} in its output within ${timeoutMs} ms`))),
        timeoutMs
      )
      const done = (settle: () => void) => {
        clearTimeout(timer)
        waiters.delete(check)
        settle()
      }
      waiters.add(check)
      check()
    })

  try {
    const deadline = Date.now() + readyTimeoutMs()
    for (;;) {
      if (spawnError !== undefined) throw describeFailure(`could not start: ${spawnError.message}`)
      if (exit !== undefined) throw describeFailure("exited before it was ready")
      try {
        const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(1_000) })
        await response.arrayBuffer()
        if (response.ok) break
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw describeFailure(`GET /health did not answer 2xx within ${readyTimeoutMs() / 1000} s`)
      }
      await sleep(200)
    }
  } catch (error) {
    await stop()
    throw error
  }
  const cpuMicros = () => cpuMicrosOf(child.pid!)
  return { name: spec.name, origin, stdout: () => stdout, waitForStdout, cpuMicros, stop }
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

// utime and stime of /proc/<pid>/stat (fields 14 and 15, after the parenthesised command name)
const cpuMicrosOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6
}

const figures = (name: string, { cpuMicros, summary }: Measurement): ServerFigures => ({
  name,
  requestsPerSecond: summary.requests.mean,
  p50Ms: summary.latency.p50,
  p99Ms: summary.latency.p99,
  non2xx: summary.non2xx,
  errors: summary.errors,
  timeouts: summary.timeouts,
  completed2xx: summary["2xx"],
  cpuMicrosPerRequest: cpuMicros / Math.max(1, summary["2xx"] + summary.non2xx),
  summary
})

/** autocannon's summary of a measured run, and the server's CPU over it in µs. */
interface Measurement {
  readonly summary: autocannon.Result
  readonly cpuMicros: number
}

/** Runs autocannon against `server`: a warm-up whose figures are discarded, then the measured run and the CPU it cost the server. */
async function measure(server: RunningServer, request: RequestSpec, load: LoadSpec): Promise<Measurement> {
  const options = {
    url: `${server.origin}${request.path}`,
    connections: load.connections,
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body })
  }
  if (load.warmupSeconds > 0) await autocannon({ ...options, duration: load.warmupSeconds })
  const before = server.cpuMicros()
  const summary = await autocannon({ ...options, duration: load.durationSeconds })
  return { summary, cpuMicros: server.cpuMicros() - before }
}

/** Starts `spec`, builds its request (`prepare`), measures it under `load`, runs `verify`, and always stops it. */
export async function runServerBench(
  spec: ServerSpec,
  load: LoadSpec,
  prepare: (server: RunningServer) => Promise<RequestSpec>,
  verify?: (server: RunningServer, request: RequestSpec, summary: autocannon.Result) => Promise<void>
): Promise<ServerFigures> {
  const server = await startServer(spec)
  try {
    const request = await prepare(server)
    const measured = await measure(server, request, load)
    if (verify !== undefined) await verify(server, request, measured.summary)
    return figures(spec.name, measured)
  } finally {
    await server.stop()
  }
}

/** The request the send bench repeats, authorised with `key`. */
export const sendRequest = (key: string): RequestSpec => ({
  method: "POST",
  path: SEND_PATH,
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: SEND_BODY
})

/** `prepare` for `sendline serve --demo`: reads the demo key from its output. */
export const demoKeyRequest = async (server: RunningServer): Promise<RequestSpec> => {
  const match = await server.waitForStdout(/Demo API key \(all permissions\): (sk_\S+)/)
  return sendRequest(match[1]!)
}

/** `verify` for a Sendline send run: no non-2xx or socket errors, and the messages are listed afterwards. */
export const verifyStored = async (
  server: RunningServer,
  request: RequestSpec,
  summary: autocannon.Result
): Promise<void> => {
  const problems: Array<string> = []
  if (summary.non2xx > 0) {
    problems.push(`${summary.non2xx} non-2xx responses (${JSON.stringify(summary.statusCodeStats)})`)
  }
  if (summary.errors > 0 || summary.timeouts > 0) {
    problems.push(`${summary.errors} errors, ${summary.timeouts} timeouts`)
  }
  if (summary["2xx"] === 0) problems.push("no 2xx responses at all")
  const response = await fetch(`${server.origin}${SEND_PATH}?page_size=1`, {
    headers: { authorization: request.headers["authorization"]! },
    signal: AbortSignal.timeout(10_000)
  })
  const text = await response.text()
  let listed: ReadonlyArray<{ readonly to?: unknown }> = []
  try {
    const json = JSON.parse(text) as { readonly data?: unknown }
    if (Array.isArray(json.data)) listed = json.data
  } catch {
    // reported below
  }
  if (!response.ok || listed.length === 0 || listed[0]!.to !== SEND_TO) {
    problems.push(`GET ${SEND_PATH}?page_size=1 did not list a bench message: ${response.status} ${text.slice(0, 300)}`)
  }
  if (problems.length > 0) throw new Error(`${server.name}: send bench run is not valid:\n  ${problems.join("\n  ")}`)
}

/** A Node to run the servers on: its executable, and what it adds to their environment. */
export interface NodeLine {
  /** e.g. `Node 24` */
  readonly name: string
  /** `process.version` there, e.g. `v24.21.0` */
  readonly version: string
  readonly execPath: string
  /** The version of better-sqlite3 its processes load. */
  readonly betterSqlite3: string
  readonly env: Readonly<Record<string, string>>
}

/** The Node running the bench, with the workspace's better-sqlite3. */
export const benchNode = (): NodeLine => ({
  name: `Node ${process.versions.node.split(".")[0]}`,
  version: process.version,
  execPath: process.execPath,
  betterSqlite3: (createRequire(join(REPO_ROOT, "package.json"))("better-sqlite3/package.json") as { version: string })
    .version,
  env: {}
})

// `<line's node> --conditions=@sendline/source --import tsx [nodeFlags] script [scriptArgs]`, as `npm run sendline` does.
export const node = (
  line: NodeLine,
  script: string,
  scriptArgs: ReadonlyArray<string> = [],
  nodeFlags: ReadonlyArray<string> = []
): Pick<ServerSpec, "command" | "args"> => ({
  command: line.execPath,
  args: ["--conditions=@sendline/source", "--import", "tsx", ...nodeFlags, script, ...scriptArgs]
})

export const format = {
  rate: (n: number) => Math.round(n).toLocaleString("en-US"),
  ms: (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2))
}

/** Where a Sendline server keeps its data: a SQLite file, or a PostgreSQL URL (e.g. a schema of `withPostgresSchemas`). */
export type Storage = { readonly sqlitePath: string } | { readonly databaseUrl: string }

/**
 * `sendline serve --demo` on `line` and `storage`, as `npm start` runs it but with no rate limit and
 * warnings only in its log; `env` adds to its settings, `nodeFlags` to its Node's.
 */
export const sendlineServer = (
  name: string,
  line: NodeLine,
  storage: Storage,
  env: Readonly<Record<string, string>> = {},
  nodeFlags: ReadonlyArray<string> = []
): ServerSpec => ({
  name,
  ...node(line, "packages/http/src/bin.ts", ["serve", "--demo"], nodeFlags),
  env: {
    ...line.env,
    SQLITE_PATH: "sqlitePath" in storage ? storage.sqlitePath : undefined,
    DATABASE_URL: "databaseUrl" in storage ? storage.databaseUrl : undefined,
    RATE_LIMIT_PER_SECOND: "0",
    RATE_LIMIT_PER_ACCOUNT_PER_SECOND: "0",
    LOG_LEVEL: "warning",
    ...env
  }
})

/**
 * Runs `run` with the URLs of `count` fresh schemas of TEST_DATABASE_URL, dropped afterwards
 * whatever happens; undefined, with a line saying what `what` skipped, when no server answers there.
 */
export async function withPostgresSchemas<A>(
  what: string,
  count: number,
  run: (urls: ReadonlyArray<string>) => Promise<A>
): Promise<A | undefined> {
  const base = await Effect.runPromise(Effect.orDie(TestDatabase.url))
  const schemas = await Effect.runPromise(
    Effect.option(Effect.all(Array.from({ length: count }, () => TestDatabase.createSchema(base))))
  )
  if (Option.isNone(schemas)) {
    console.log(
      `\n${what} skipped: no server answers at ${PgStore.location(Redacted.make(base))} (TEST_DATABASE_URL); ` +
        `start one with: ${TestDatabase.startCommand}`
    )
    return undefined
  }
  try {
    return await run(schemas.value.map((schema) => TestDatabase.withSchema(base, schema)))
  } finally {
    for (const schema of schemas.value) {
      await Effect.runPromise(Effect.ignore(TestDatabase.dropSchema(base, schema)))
    }
  }
}
