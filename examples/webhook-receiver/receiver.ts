/**
 * A webhook receiver for Sendline on plain `node:http`. Every delivery is checked over the exact
 * bytes received, both ways: `X-Service-Signature` with `verifyWebhookSignature` from
 * `@sendline/core`, and the Standard Webhooks headers with the `standardwebhooks` package (which
 * also refuses a `webhook-timestamp` more than 5 minutes off: a replay). A bad signature is
 * answered 401. Deliveries come at least once, so it dedupes on the event id; each new event is
 * printed as one line on stdout, and every verified delivery is answered 200.
 *
 *   WEBHOOK_SECRET=<the subscription's secret> PORT=4000 npm run receiver -w examples
 */
import { verifyWebhookSignature } from "@sendline/core"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"

const secret = process.env.WEBHOOK_SECRET ?? ""
if (secret === "") {
  console.error("Set WEBHOOK_SECRET to the secret the webhook subscription was created with.")
  process.exit(1)
}
const port = Number(process.env.PORT ?? 4000)
const host = process.env.HOST ?? "127.0.0.1"

// Standard Webhooks keys its HMAC with the secret's raw bytes: a Sendline secret's are its UTF-8.
const standard = new Webhook(new TextEncoder().encode(secret), { format: "raw" })
// The event ids already printed. A real receiver keeps them where it keeps what it does with them.
const seen = new Set<string>()

const header = (headers: IncomingHttpHeaders, name: string) => String(headers[name] ?? "")

const verified = (raw: Buffer, headers: IncomingHttpHeaders): boolean => {
  if (!verifyWebhookSignature(raw, header(headers, "x-service-signature"), secret)) return false
  try {
    standard.verify(raw.toString("utf8"), {
      "webhook-id": header(headers, "webhook-id"),
      "webhook-timestamp": header(headers, "webhook-timestamp"),
      "webhook-signature": header(headers, "webhook-signature")
    })
    return true
  } catch {
    return false
  }
}

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const raw = Buffer.concat(chunks)
    if (request.method !== "POST" || !verified(raw, request.headers)) {
      response.writeHead(401, { "content-type": "text/plain" }).end("signature refused\n")
      return
    }
    const event = JSON.parse(raw.toString("utf8")) as { id: string; type: string; created_at: string; data: unknown }
    if (!seen.has(event.id)) {
      seen.add(event.id)
      console.log(`${event.created_at} ${event.type} ${event.id} ${JSON.stringify(event.data)}`)
    }
    response.writeHead(200, { "content-type": "text/plain" }).end("ok\n")
  })
})

server.listen(port, host, () => {
  const { address, port } = server.address() as AddressInfo
  console.error(`Receiving Sendline webhooks on http://${address}:${port}/`)
})
