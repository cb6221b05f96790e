/**
 * The benches' servers: each a child process started on a free port of 127.0.0.1 and awaited
 * until `GET /health` answers, measured under autocannon, and stopped (factored out of the send
 * bench, whose runner the batch bench shares).
 */
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

const READY_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 10_000
const OUTPUT_LIMIT = 64 * 1024

/** The repository's root, where every server runs. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))

/** A positive number of seconds from the environment variable `name`, or `fallback` when unset. */
export const secondsFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds, got ${raw}`)
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
  readonly summary: autocannon.Result
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
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

/** Resolves after `ms` milliseconds. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

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
    const deadline = Date.now() + READY_TIMEOUT_MS
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
        throw describeFailure(`GET /health did not answer 2xx within ${READY_TIMEOUT_MS / 1000} s`)
      }
      await sleep(200)
    }
  } catch (error) {
    await stop()
    throw error
  }
  return { name: spec.name, origin, stdout: () => stdout, waitForStdout, stop }
}

/** A run's figures from autocannon's summary. */
const figures = (name: string, summary: autocannon.Result): ServerFigures => ({
  name,
  requestsPerSecond: summary.requests.mean,
  p50Ms: summary.latency.p50,
  p99Ms: summary.latency.p99,
  non2xx: summary.non2xx,
  errors: summary.errors,
  timeouts: summary.timeouts,
  completed2xx: summary["2xx"],
  summary
})

/** Runs autocannon against `origin`: a warm-up whose figures are discarded, then the measured run. */
async function measure(origin: string, request: RequestSpec, load: LoadSpec): Promise<autocannon.Result> {
  const options = {
    url: `${origin}${request.path}`,
    connections: load.connections,
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body })
  }
  if (load.warmupSeconds > 0) await autocannon({ ...options, duration: load.warmupSeconds })
  return autocannon({ ...options, duration: load.durationSeconds })
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
    const summary = await measure(server.origin, request, load)
    if (verify !== undefined) await verify(server, request, summary)
    return figures(spec.name, summary)
  } finally {
    await server.stop()
  }
}
