/**
 * The baseline for the send bench: a bare `node:http` server that reads and discards the request body,
 * then answers 201 with a constant JSON body about the size of a real `POST /v1/messaging/messages`
 * response. `GET /health` answers 200 so the bench can wait for it the same way as for Sendline.
 * Listens on `HOST`:`PORT` (default 127.0.0.1:3000); run as a child process by `send.ts`.
 */
import { createServer } from "node:http"
import { SEND_RESPONSE } from "./send-response.js"

const SEND_BODY = JSON.stringify(SEND_RESPONSE)
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
