/**
 * What issue 29's items of `abuse.ts` share: the server they run against (its port, its demo key,
 * its checkout and SQLite file, for accounts made with the checkout's own `sendline`), calls to its
 * API, receivers on 127.0.0.1 that answer, or never do, and the figures they print. Plain HTTP;
 * nothing of Sendline's is imported.
 */
import { execFileSync } from "node:child_process"
import { createServer as createHttpServer, type Server } from "node:http"
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net"

/** The server under test, as `abuse.ts` started it. */
export interface Target {
  readonly port: number
  readonly key: string
  readonly checkout: string
  readonly sqlitePath: string
}

/**
 * One call of the API as `key`: its status and JSON. Made again once if the connection was closed
 * under it (a kept-alive one the server closed as idle while `sendline` ran).
 */
export const api = async (
  target: Target,
  key: string,
  method: string,
  path: string,
  json?: unknown,
  again = true
): Promise<{
  readonly status: number
  readonly json: any
}> => {
  try {
    const response = await fetch(`http://127.0.0.1:${target.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(json === undefined ? {} : { "content-type": "application/json" })
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) })
    })
    return { status: response.status, json: await response.json() }
  } catch (error) {
    if (again && error instanceof TypeError) return api(target, key, method, path, json, false)
    throw error
  }
}

/** Runs the checkout's `sendline` on the server's SQLite file: the JSON object it prints. */
export const sendline = (target: Target, args: ReadonlyArray<string>): any =>
  JSON.parse(execFileSync(
    process.execPath,
    ["--conditions=@sendline/source", "--import", "tsx", "packages/http/src/bin.ts", ...args],
    {
      cwd: target.checkout,
      env: { ...process.env, SQLITE_PATH: target.sqlitePath, DATABASE_URL: "", LOG_LEVEL: "warning" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"] // its stderr kept with a failure, not printed
    }
  ))

/**
 * `sids import` with `args`, naming a legal identifier (the demo's ABN: holds are by Sender ID) as
 * it must since issue 29; a checkout from before it knows no `--identifier` and is asked without.
 */
const importSenderId = (target: Target, args: ReadonlyArray<string>) => {
  try {
    return sendline(target, [...args, "--identifier", "ABN:51824753556"])
  } catch (error) {
    if (!String((error as { readonly stderr?: unknown }).stderr).includes("--identifier")) throw error
    return sendline(target, args)
  }
}

/** A second account, with a key that sends from `senderId` in AU and manages webhooks. */
export const newAccount = (target: Target, name: string, senderId: string) => {
  const account = sendline(target, [
    "accounts",
    "create",
    "--name",
    name,
    "--type",
    "cpaas",
    "--admin-email",
    "ops@abuse.example"
  ])
  importSenderId(target, [
    "sids",
    "import",
    "--account",
    account.id,
    "--sender-id",
    senderId,
    "--market",
    "AU",
    "--brand-name",
    name
  ])
  return sendline(target, [
    "keys",
    "create",
    "--account",
    account.id,
    "--permissions",
    "messaging:send,messaging:read,webhooks:manage"
  ]).key as string
}

/** An HTTP receiver that answers 204 after `delayMillis`, calling `seen` with each event body and its arrival time. */
export const receiver = async (delayMillis: number, seen: (event: any, at: number) => void) => {
  const server = createHttpServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      seen(JSON.parse(Buffer.concat(chunks).toString()), performance.now())
      setTimeout(() => res.writeHead(204).end(), delayMillis)
    })
  })
  return { url: await listening(server), close: () => closed(server) }
}

/** A TCP receiver that accepts every connection and never answers. */
export const deadReceiver = async () => {
  const sockets = new Set<Socket>()
  const server = createTcpServer((socket) => {
    sockets.add(socket)
    socket.on("data", () => {})
    socket.on("close", () => sockets.delete(socket))
  })
  const url = await listening(server)
  return {
    url,
    close: () => {
      for (const s of sockets) s.destroy()
      return closed(server)
    }
  }
}

const listening = (server: Server | ReturnType<typeof createTcpServer>) =>
  new Promise<string>((done) =>
    server.listen(0, "127.0.0.1", () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  )

const closed = (server: Server | ReturnType<typeof createTcpServer>) =>
  new Promise<void>((done) => server.close(() => done()))

/** Resolves once `check` holds (polled every 50 ms), or after `maxMillis`: whether it held. */
export const until = async (check: () => boolean, maxMillis: number) => {
  const began = performance.now()
  while (!check()) {
    if (performance.now() - began > maxMillis) return false
    await new Promise((r) => setTimeout(r, 50))
  }
  return true
}

/** The `q` quantile of `values` (nearest rank). */
export const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN
}

/** Counts of `statuses`, as `{"201": 25, "422": 175}`. */
export const tally = (statuses: ReadonlyArray<number>) =>
  JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((t) => t === s).length])))
