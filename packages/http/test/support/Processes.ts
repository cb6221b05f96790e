/**
 * Real `sendline` processes for tests: run a command, or start `serve --demo` and wait until it
 * listens. Each test gives its own environment (database, port, carrier journal). They run the built
 * executable, as `npm run sendline` does, which vitest's global setup (`Build.ts`) has built from the
 * sources under test before any test starts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { createServer } from "node:net"
import { bin, root } from "./Build.js"
import { patience, startupPatience } from "./Waiting.js"

/** A port nothing listens on now. */
const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => done(port))
    })
  })

/** What a finished command left. */
export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `sendline …args` to completion; one still running after `startupPatience` is killed. */
export const sendline = (env: Record<string, string>, ...args: Array<string>) =>
  new Promise<Run>((done) => {
    const options = {
      cwd: root,
      env: { ...process.env, ...env },
      timeout: startupPatience,
      killSignal: "SIGKILL" as const
    }
    execFile(process.execPath, [bin, ...args], options, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
  })

/** Creates a cpaas account "Acme" (ops@acme.test) with `sendline accounts create`; its id, or the run's stderr thrown. */
export const createAccount = async (env: Record<string, string>): Promise<string> => {
  const run = await sendline(
    env,
    "accounts",
    "create",
    "--name",
    "Acme",
    "--type",
    "cpaas",
    "--admin-email",
    "ops@acme.test"
  )
  if (run.code !== 0) throw new Error(`sendline accounts create failed: ${run.stderr}`)
  return JSON.parse(run.stdout).id as string
}

/** A running `serve --demo`. */
export interface Server {
  readonly origin: string
  /** The demo key it printed. */
  readonly key: string
  readonly child: ChildProcess
  /** Everything it wrote so far. */
  readonly output: () => string
  /** What it wrote to stderr so far: its log lines. */
  readonly stderr: () => string
  /** SIGTERM, and wait for the exit. */
  readonly stop: () => Promise<number | null>
  /** SIGKILL: no finalizer runs. */
  readonly kill: () => Promise<void>
}

/** The demo key `serve --demo` printed, if it has. */
const keyIn = (output: string) => /Demo API key \(all permissions\): (sk_[0-9A-Za-z]{40})/.exec(output)?.[1]

/**
 * `sendline serve --demo` on `env`: resolves once it has printed its demo key, which it does once it
 * listens (about a second on an idle machine, several on a loaded one); fails if it exits first or
 * is not listening within `startupPatience`, with what it printed.
 */
export const serve = async (env: Record<string, string>): Promise<Server> => {
  const port = await freePort()
  const child = spawn(process.execPath, [bin, "serve", "--demo"], {
    cwd: root,
    env: {
      ...process.env,
      RATE_LIMIT_PER_SECOND: "0",
      RATE_LIMIT_PER_ACCOUNT_PER_SECOND: "0",
      ...env,
      LOG_LEVEL: "Info",
      PORT: String(port)
    }
  })
  let output = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => {
    output += chunk
    stderr += chunk
  })
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  await new Promise<void>((ready, fail) => {
    const done = () => {
      clearInterval(poll)
      clearTimeout(late)
      child.off("exit", failed)
    }
    const failed = (code: number | null) => {
      done()
      fail(new Error(`serve exited ${code}: ${output}`))
    }
    child.once("exit", failed)
    const poll = setInterval(() => {
      if (keyIn(output) === undefined) return
      done()
      ready()
    }, 20)
    const late = setTimeout(() => {
      done()
      child.kill("SIGKILL")
      fail(new Error(`serve did not listen within ${startupPatience} ms: ${output}`))
    }, startupPatience)
  })
  const key = keyIn(output)!
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    origin: `http://127.0.0.1:${port}`,
    key,
    child,
    output: () => output,
    stderr: () => stderr,
    stop: () => {
      if (running()) child.kill("SIGTERM")
      return exited
    },
    kill: async () => {
      if (running()) child.kill("SIGKILL")
      await exited
    }
  }
}

/** A message as a running server answers it. */
export interface ServedMessage {
  readonly id: string
  readonly status: string
  readonly delivered_at?: string
  readonly error?: { readonly code: string; readonly message: string; readonly carrier_code?: string }
}

/** `POST /v1/messaging/messages` on `server` with its demo key: the message, once answered 201 (else fails with the answer). */
export const sendMessage = async (
  server: Server,
  message: { readonly to: string; readonly body: string; readonly market?: string; readonly sender_id?: string }
): Promise<ServedMessage> => {
  const response = await fetch(`${server.origin}/v1/messaging/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
    body: JSON.stringify({ sender_id: "Sendline", market: "AU", ...message })
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`send answered ${response.status}: ${text}`)
  return (JSON.parse(text) as { data: ServedMessage }).data
}

/** The message `id` once its status is `status`, or as it was when `patience` ran out. */
export const messageOnce = async (server: Server, id: string, status: string): Promise<ServedMessage> => {
  const deadline = Date.now() + patience
  for (;;) {
    const response = await fetch(`${server.origin}/v1/messaging/messages/${id}`, {
      headers: { authorization: `Bearer ${server.key}` }
    })
    const { data } = (await response.json()) as { data: ServedMessage }
    if (data.status === status || Date.now() > deadline) return data
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
