/**
 * The receivers of the webhook bench, run as a child process by `webhooks.ts` (so that their CPU is
 * not the deliverer's event loop): on 127.0.0.1, ephemeral ports,
 *
 * - `ok`: a `node:http` server that reads each POST whole, checks its `X-Service-Signature` (the
 *   hex HMAC-SHA256 of the bytes received, keyed with `WEBHOOK_SECRET`) and answers 200; for each
 *   request it records the receive time, `X-Service-Event-Id`, `X-Service-Delivery-Attempt`, the
 *   event's subject (`data.id`, the message) and whether the signature held;
 * - `stuck`: a TCP server that accepts every connection, reads what comes and never answers (the
 *   transport's 10 s timeout ends each attempt); it counts connections.
 *
 * Times are `performance.timeOrigin + performance.now()`, milliseconds since the epoch, as the
 * parent takes its commit times. Talks to the parent over IPC: it says `ready` with both ports,
 * and answers `reset`, `report`, `count` (distinct signed events, requests, unsigned ones) and `await`
 * (the time the n-th distinct event id arrived).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer as createHttpServer } from "node:http"
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net"

/** One request the `ok` receiver answered. */
interface Received {
  readonly eventId: string
  readonly subjectId: string
  readonly attempt: number
  readonly at: number
  readonly signed: boolean
}

/** A request from the parent. */
export type Command =
  | { readonly type: "reset" }
  | { readonly type: "report" }
  | { readonly type: "await"; readonly distinct: number }
  | { readonly type: "count" }

/** An answer to the parent. */
export type Reply =
  | { readonly type: "ready"; readonly okPort: number; readonly stuckPort: number }
  | { readonly type: "reset" }
  | { readonly type: "report"; readonly received: ReadonlyArray<Received>; readonly stuckConnections: number }
  | { readonly type: "await"; readonly at: number }
  | { readonly type: "count"; readonly distinct: number; readonly requests: number; readonly unsigned: number }

const secret = process.env["WEBHOOK_SECRET"] ?? ""
const now = () => performance.timeOrigin + performance.now()
const send = (reply: Reply) => process.send!(reply)

let received: Array<Received> = []
let distinct = new Set<string>()
let stuckConnections = 0
let waiting: { readonly distinct: number } | undefined

const signedCorrectly = (body: Buffer, header: string | undefined): boolean => {
  if (header === undefined || !/^[0-9a-f]{64}$/.test(header)) return false
  return timingSafeEqual(createHmac("sha256", secret).update(body).digest(), Buffer.from(header, "hex"))
}

const ok = createHttpServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const at = now()
    const body = Buffer.concat(chunks)
    const eventId = String(request.headers["x-service-event-id"] ?? "")
    let subjectId = ""
    try {
      subjectId = String((JSON.parse(body.toString("utf8")) as { data?: { id?: unknown } }).data?.id ?? "")
    } catch {
      // recorded with no subject: the parent counts it as unmatched
    }
    const signed = signedCorrectly(body, request.headers["x-service-signature"] as string | undefined)
    received.push({
      eventId,
      subjectId,
      attempt: Number(request.headers["x-service-delivery-attempt"] ?? -1),
      at,
      signed
    })
    response.writeHead(200, { "content-type": "text/plain", "content-length": 2 })
    response.end("ok")
    if (signed) distinct.add(eventId)
    if (waiting !== undefined && distinct.size >= waiting.distinct) {
      waiting = undefined
      send({ type: "await", at })
    }
  })
})

const stuckSockets = new Set<Socket>()
const stuck = createTcpServer((socket) => {
  stuckConnections++
  stuckSockets.add(socket)
  socket.on("data", () => {})
  socket.on("error", () => {})
  socket.on("close", () => stuckSockets.delete(socket))
})

process.on("message", (command: Command) => {
  switch (command.type) {
    case "reset":
      received = []
      distinct = new Set()
      stuckConnections = 0
      return send({ type: "reset" })
    case "report":
      return send({ type: "report", received, stuckConnections })
    case "count":
      return send({
        type: "count",
        distinct: distinct.size,
        requests: received.length,
        unsigned: received.filter((r) => !r.signed).length
      })
    case "await":
      if (distinct.size >= command.distinct) return send({ type: "await", at: received.at(-1)?.at ?? now() })
      waiting = command
  }
})

const listening = (
  server: { listen: (port: number, host: string, done: () => void) => unknown; address: () => unknown }
) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

const [okPort, stuckPort] = await Promise.all([listening(ok), listening(stuck)])
send({ type: "ready", okPort, stuckPort })

process.on("disconnect", () => {
  for (const socket of stuckSockets) socket.destroy()
  ok.closeAllConnections()
  ok.close()
  stuck.close()
})
