/**
 * The baseline for the send bench: a bare `node:http` server that reads and discards the request body,
 * then answers 201 with a constant JSON body about the size of a real `POST /v1/messaging/messages`
 * response. `GET /health` answers 200 so the bench can wait for it the same way as for Sendline.
 * Listens on `HOST`:`PORT` (default 127.0.0.1:3000); run as a child process by `send.ts`.
 */
import { createServer } from "node:http"

const SEND_BODY = JSON.stringify({
  ok: true,
  data: {
    id: "msg_01m81dha3yvp6vp193wnx9fsq8",
    status: "queued",
    to: "+61412345678",
    sender_id: "Sendline",
    body: "Bench message",
    segments: 1,
    encoding: "GSM-7",
    market: "AU",
    reference: null,
    price: { amount: "0.0500", currency: "AUD" },
    created_at: "2026-01-01T00:00:00.000+00:00"
  },
  meta: { request_id: "req_01m81dha33mmfvgxfrq09rmvrd", timestamp: "2026-01-01T00:00:00.000+00:00" }
})
const HEALTH_BODY = JSON.stringify({ ok: true })

const server = createServer((request, response) => {
  request.on("data", () => {})
  request.on("end", () => {
    const body = request.method === "GET" && request.url === "/health" ? HEALTH_BODY : SEND_BODY
    response.writeHead(body === HEALTH_BODY ? 200 : 201, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body)
    })
    response.end(body)
  })
})

const port = Number(process.env["PORT"] ?? 3000)
const host = process.env["HOST"] ?? "127.0.0.1"
server.listen(port, host, () => console.log(`Listening on http://${host}:${port}`))

const stop = () => server.close(() => process.exit(0))
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
