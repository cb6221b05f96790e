/**
 * Acceptance, on both stores: a real receiver (`node:http` on 127.0.0.1, the server allowing http
 * and private hosts) subscribes through the API, a message is sent, the workers run until it is
 * delivered, and what arrived is checked at the receiver without the project's code: the
 * `X-Service-Signature` recomputed with `node:crypto` over the exact bytes received, the Standard
 * Webhooks headers verified with the `standardwebhooks` package, the `X-Service-*` headers, and the
 * body equal to `GET /v1/events/{id}`'s data. The server posts through the real Node transport.
 */
import { assert, layer, vi } from "@effect/vitest"
import { Workers } from "@sendline/core"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Effect, TestClock } from "effect"
import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import * as Http from "../support/Http.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import * as TestWebhooks from "../support/TestWebhooks.js"

/** A request as the receiver got it: its method, headers and exact bytes. */
interface Received {
  readonly method: string
  readonly headers: IncomingHttpHeaders
  readonly raw: Buffer
}

/** A receiver on 127.0.0.1 that keeps every request and answers 200; closed with the scope. */
const receiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly close: () => void }>((resume) => {
    const received: Array<Received> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({ method: request.method ?? "", headers: request.headers, raw: Buffer.concat(chunks) })
        response.writeHead(200, { "content-type": "text/plain" }).end("received")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/sendline`, received, close: () => server.close() }))
    })
  }),
  (r) => Effect.sync(r.close)
)

/** Runs `f` with `Date` reading `millis` (the receiver's clock set to the server's test clock). */
const atServerTime = (millis: number, f: () => void) => {
  vi.useFakeTimers({ toFake: ["Date"], now: millis })
  try {
    f()
  } finally {
    vi.useRealTimers()
  }
}

const open = { allowHttp: true, allowPrivate: true }
const secret = "whsec-acceptance-0123456789"

for (const store of TestStores.all) {
  layer(
    TestServer.layer({
      store: store.layer(),
      urlPolicy: open,
      transport: NodeWebhookTransport.layer({ policy: open })
    }),
    { timeout: 60_000 }
  )(`a real receiver on ${store.name}`, (it) => {
    it.scoped("gets each event of a sent message, signed both ways over the bytes it received, the body GET /v1/events/{id} answers", () =>
      Effect.gen(function*() {
        const { received, url } = yield* receiver
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        const events = ["message.queued", "message.sent", "message.delivered"]
        const id = yield* TestWebhooks.subscribe(caller, { url, events, secret })
        const sent = yield* TestMessages.send({ ...TestMessages.validSend, reference: "acceptance" }, {
          key: caller.key
        })
        assert.strictEqual(sent.status, 201, sent.text)

        // the workers, pass by pass, the carrier reporting delivery after its 2 seconds
        for (let pass = 0; pass < 10 && received.length < events.length; pass++) {
          yield* Effect.orDie(Workers.runOnce)
          yield* TestClock.adjust("1 second")
        }
        assert.strictEqual(
          (yield* Http.request("GET", `/v1/messaging/messages/${sent.json.data.id}`, { key: caller.key })).json.data
            .status,
          "delivered"
        )
        assert.sameMembers(received.map((r) => r.headers["x-service-event-type"]), events)

        const verifier = new Webhook(new TextEncoder().encode(secret), { format: "raw" })
        for (const { headers, method, raw } of received) {
          assert.strictEqual(method, "POST")
          assert.match(headers["content-type"] ?? "", /^application\/json/)
          const expected = createHmac("sha256", secret).update(raw).digest("hex")
          assert.strictEqual(headers["x-service-signature"], expected)
          const body = raw.toString("utf8")
          const standard = {
            "webhook-id": String(headers["webhook-id"]),
            "webhook-timestamp": String(headers["webhook-timestamp"]),
            "webhook-signature": String(headers["webhook-signature"])
          }
          // standardwebhooks holds webhook-timestamp against the receiver's clock: it reads the server's test clock here
          atServerTime(Number(standard["webhook-timestamp"]) * 1000, () => {
            assert.doesNotThrow(() => verifier.verify(body, standard))
            assert.throws(() => verifier.verify(body.replace("acceptance", "tampered!!"), standard))
          })
          atServerTime(Number(standard["webhook-timestamp"]) * 1000 + 6 * 60_000, () => {
            assert.throws(() => verifier.verify(body, standard), /timestamp/i, "a replay six minutes later")
          })

          const payload = JSON.parse(body)
          assert.strictEqual(headers["x-service-event-id"], payload.id)
          assert.strictEqual(headers["webhook-id"], payload.id)
          assert.strictEqual(headers["x-service-event-type"], payload.type)
          assert.strictEqual(headers["x-service-delivery-attempt"], "0")
          assert.strictEqual(payload.data.id, sent.json.data.id)
          assert.strictEqual(payload.data.reference, "acceptance")

          const event = yield* Http.request("GET", `/v1/events/${payload.id}`, { key: caller.key })
          assert.strictEqual(event.status, 200, event.text)
          assert.strictEqual(JSON.stringify(event.json.data), body)
          assert.deepStrictEqual(event.json.data, payload)
        }
        const delivered = received.find((r) => r.headers["x-service-event-type"] === "message.delivered")!
        const { data } = JSON.parse(delivered.raw.toString("utf8"))
        assert.strictEqual(data.status, "delivered")
        assert.deepStrictEqual(data.price, { amount: "0.0500", currency: "AUD" })

        const log = yield* Http.request("GET", `/v1/webhooks/${id}/deliveries`, { key: caller.key })
        assert.deepStrictEqual(
          log.json.data.map((
            d: { state: string; status_code: number; url: string; response_body: string }
          ) => [d.state, d.status_code, d.url, d.response_body]),
          events.map(() => ["succeeded", 200, url, "received"])
        )
      }))
  })
}
