/**
 * The hostile review's reproductions (issue 16, items 1–3), against a real `sendline serve --demo`
 * on a fresh SQLite file: `npm run --silent bench:abuse [-- <checkout>]` runs the server of
 * `<checkout>` (this one by default), so that a fix can be shown against the commit before it.
 * It speaks plain HTTP and imports nothing of Sendline's.
 *
 * 1. Idempotency storage: 1,000 previews of a 63 KB body of distinct CJK characters, each with its own `Idempotency-Key`:
 *    how much the database grew.
 * 2. Failed authentications: 32 connections from 127.0.0.2 sending random well-formed keys for a few
 *    seconds: their answers a second, and the median latency of a client with a valid key from
 *    127.0.0.1 meanwhile (and alone, before).
 * 3. Refused bodies: an unauthenticated chunked upload from 127.0.0.3: how many bytes the server
 *    took before it cut the connection; then eight at once, and the valid client's median meanwhile.
 * 4–5. Sender ID squatting and stacked renewals (issue 29, `abuse-sids.ts`).
 * 6. Brand submission as a mail relay (issue 29, `abuse-brand-relay.ts`): one key submitting brands
 *    as fast as it can, each mailing a stranger: how many mails were queued.
 * 7. Redelivery amplification (issue 29): `abuse-redelivery.ts`.
 * 8. The starving receiver (issue 29): `abuse-starving.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { Agent, request } from "node:http"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { brandRelay } from "./abuse-brand-relay.js"
import { redeliveryAmplification } from "./abuse-redelivery.js"
import { run as sidSquatting } from "./abuse-sids.js"
import { starvingReceiver } from "./abuse-starving.js"

const checkout = resolve(process.argv[2] ?? ".")
const port = 3900 + Math.floor(Math.random() * 90)
const seconds = Number(process.env.ABUSE_SECONDS ?? 5)

interface Answer {
  readonly status: number
  readonly body: string
}

/** One request on `agent`, from `localAddress`. */
const call = (
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; agent?: Agent; localAddress?: string } = {}
) =>
  new Promise<Answer>((done, fail) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: options.headers,
        agent: options.agent,
        localAddress: options.localAddress
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      }
    )
    req.on("error", fail)
    req.end(options.body)
  })

/** Starts the server of `checkout` and resolves with its demo key once it answers. */
const start = (dataDir: string) =>
  new Promise<{ server: ChildProcess; key: string }>((done, fail) => {
    const server = spawn(
      process.execPath,
      ["--conditions=@sendline/source", "--import", "tsx", "packages/http/src/bin.ts", "serve", "--demo"],
      {
        cwd: checkout,
        env: {
          ...process.env,
          PORT: String(port),
          SQLITE_PATH: join(dataDir, "sendline.sqlite"),
          DATABASE_URL: "",
          RATE_LIMIT_PER_SECOND: "0",
          RATE_LIMIT_PER_ACCOUNT_PER_SECOND: "0",
          // the webhook items' receivers listen on 127.0.0.1
          WEBHOOK_ALLOW_HTTP: "true",
          WEBHOOK_ALLOW_PRIVATE: "true",
          LOG_LEVEL: "warning"
        },
        stdio: ["ignore", "pipe", "inherit"]
      }
    )
    let out = ""
    server.stdout!.on("data", (data: Buffer) => {
      out += data.toString()
      const key = /Demo API key[^:]*: (sk_\w+)/.exec(out)?.[1]
      if (key !== undefined) done({ server, key })
    })
    server.on("exit", (code) => fail(new Error(`server exited ${code}`)))
  })

const median = (values: Array<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

/** A valid client's latencies (ms), one request after another, until `until` resolves. */
const validClient = async (key: string, stop: { done: boolean }) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const latencies: Array<number> = []
  while (!stop.done) {
    const began = performance.now()
    const answer = await call("GET", "/v1/messaging/messages?page_size=1", {
      headers: { authorization: `Bearer ${key}` },
      agent
    })
    if (answer.status !== 200) throw new Error(`valid client answered ${answer.status}`)
    latencies.push(performance.now() - began)
  }
  agent.destroy()
  return latencies
}

const during = async <A>(millis: number, work: (stop: { done: boolean }) => Promise<A>) => {
  const stop = { done: false }
  const running = work(stop)
  await new Promise((r) => setTimeout(r, millis))
  stop.done = true
  return running
}

const databaseBytes = (dataDir: string) =>
  ["sendline.sqlite", "sendline.sqlite-wal"].map((f) => join(dataDir, f)).filter(existsSync).reduce(
    (n, f) => n + statSync(f).size,
    0
  )

/** Item 1: the database's growth under 1,000 large previews with distinct keys. */
const idempotencyGrowth = async (key: string, dataDir: string) => {
  const body = JSON.stringify({
    to: "+61412345678",
    sender_id: "Sendline",
    market: "AU",
    body: String.fromCodePoint(...Array.from({ length: 21_000 }, (_, i) => 0x4e00 + i))
  })
  const before = databaseBytes(dataDir)
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  let responseBytes = 0
  const statuses = new Map<number, number>()
  const began = performance.now()
  await Promise.all(Array.from({ length: 1000 }, async (_, i) => {
    const answer = await call("POST", "/v1/messaging/preview", {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": `abuse-${i}` },
      body,
      agent
    })
    responseBytes = Math.max(responseBytes, Buffer.byteLength(answer.body))
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
  }))
  const took = performance.now() - began
  agent.destroy()
  await new Promise((r) => setTimeout(r, 1500))
  const after = databaseBytes(dataDir)
  console.log(
    `1. 1,000 previews of ${Buffer.byteLength(body)} B (answers of ${responseBytes} B, ${
      JSON.stringify(Object.fromEntries(statuses))
    }) ` +
      `in ${(took / 1000).toFixed(1)} s: database ${(before / 1e6).toFixed(2)} MB -> ${(after / 1e6).toFixed(2)} MB ` +
      `(+${((after - before) / 1e6).toFixed(1)} MB)`
  )
}

/** Item 2: 32 connections guessing keys, and the valid client's median meanwhile. */
const keyGuessing = async (key: string) => {
  const alone = median(await during(seconds * 1000, (stop) => validClient(key, stop)))
  const answers = new Map<number, number>()
  const attack = (stop: { done: boolean }) =>
    Promise.all(Array.from({ length: 32 }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      while (!stop.done) {
        const guess = `sk_${
          randomBytes(30).toString("base64").replace(/[^0-9A-Za-z]/g, "").padEnd(40, "x").slice(0, 40)
        }`
        const answer = await call("GET", "/v1/messaging/messages", {
          headers: { authorization: `Bearer ${guess}` },
          agent,
          localAddress: "127.0.0.2"
        })
        answers.set(answer.status, (answers.get(answer.status) ?? 0) + 1)
      }
      agent.destroy()
    }))
  const [attacked] = await during(seconds * 1000, (stop) => Promise.all([validClient(key, stop), attack(stop)]))
  const total = [...answers.values()].reduce((a, b) => a + b, 0)
  console.log(
    `2. 32 connections guessing keys for ${seconds} s: ${Math.round(total / seconds)} answers/s ${
      JSON.stringify(Object.fromEntries(answers))
    }; ` +
      `valid client's median ${alone.toFixed(2)} ms alone, ${median(attacked).toFixed(2)} ms meanwhile`
  )
}

/** An unauthenticated chunked upload as fast as the connection takes it; resolves with the bytes the kernel took once cut or stopped. */
const upload = (stop: { done: boolean }) =>
  new Promise<{ sent: number; cutAfterMillis: number | undefined }>((done) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.3" })
    const chunk = Buffer.alloc(64 * 1024, "a")
    const began = performance.now()
    let sent = 0
    let cut: number | undefined
    const finish = () => {
      cut ??= performance.now() - began
      socket.destroy()
    }
    socket.on("error", finish)
    socket.on("end", finish)
    socket.on("close", () => done({ sent, cutAfterMillis: stop.done ? undefined : cut }))
    socket.on("data", () => {})
    const pump = () => {
      while (!stop.done && !socket.destroyed) {
        if (
          !socket.write(`${chunk.length.toString(16)}\r\n`) || !socket.write(chunk, () => (sent += chunk.length)) ||
          !socket.write("\r\n")
        ) {
          socket.once("drain", pump)
          return
        }
      }
      if (stop.done) socket.destroy()
    }
    socket.write(
      "POST /v1/messaging/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      pump
    )
  })

/** Item 3: what one refused upload sends, and eight uploads' effect on the valid client. */
const refusedUploads = async (key: string) => {
  const one = await during(seconds * 1000, (stop) => upload(stop))
  const [latencies, eight] = await during(
    seconds * 1000,
    (stop) => Promise.all([validClient(key, stop), Promise.all(Array.from({ length: 8 }, () => upload(stop)))])
  )
  const cut = one.cutAfterMillis === undefined
    ? `still open after ${seconds} s`
    : `cut after ${one.cutAfterMillis.toFixed(0)} ms`
  console.log(
    `3. one unauthenticated chunked upload: ${(one.sent / 2 ** 20).toFixed(1)} MiB taken, ${cut}; ` +
      `eight at once: ${
        (eight.reduce((n, u) => n + u.sent, 0) / 2 ** 30).toFixed(2)
      } GiB taken, valid client's median ${median(latencies).toFixed(2)} ms`
  )
}

const dataDir = mkdtempSync(join(tmpdir(), "sendline-abuse-"))
const { key, server } = await start(dataDir)
try {
  console.log(`server of ${checkout} on port ${port}`)
  await idempotencyGrowth(key, dataDir)
  await keyGuessing(key)
  await refusedUploads(key)
  await sidSquatting({ checkout, port, key, sqlitePath: join(dataDir, "sendline.sqlite"), seconds })
  await brandRelay(`http://127.0.0.1:${port}`, key, join(dataDir, "sendline.sqlite"), seconds)
  await redeliveryAmplification({ port, key, checkout, sqlitePath: join(dataDir, "sendline.sqlite") })
  await starvingReceiver({ port, key, checkout, sqlitePath: join(dataDir, "sendline.sqlite") })
} finally {
  server.kill("SIGTERM")
  await new Promise((r) => server.once("exit", r))
  rmSync(dataDir, { recursive: true, force: true })
}
