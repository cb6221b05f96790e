/**
 * A NUL character anywhere in a request (CONTRACT §1) is 400 `invalid_request` before any store
 * sees it, on both stores: PostgreSQL's text cannot hold one, and used to answer 503 and count a
 * store failure.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import * as TestWebhooks from "../support/TestWebhooks.js"

const json = { "content-type": "application/json" }

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }))(`a NUL in a request on ${store.name}`, (it) => {
    it.effect("in a path or a query: 400 invalid_request", () =>
      Effect.gen(function*() {
        for (
          const path of [
            "/v1/messaging/messages/msg_%00",
            "/v1/messaging/messages?reference=a%00b",
            "/v1/sids?market=A%00",
            "/v1/brands/brand_x%00y",
            "/v1/operator-registrations?sender_id=%00"
          ]
        ) {
          const reply = yield* Http.request("GET", path)
          Replies.assertError(reply, 400, "invalid_request")
          assert.include(reply.json.error.message, "NUL", path)
        }
      }))

    it.effect("in a JSON string, escaped, on any route and in any field: 400 invalid_request, nothing stored", () =>
      Effect.gen(function*() {
        const cases = [
          ["/v1/messaging/messages", { ...TestMessages.validSend, body: "a\u0000b", reference: "nul" }],
          ["/v1/messaging/messages", { ...TestMessages.validSend, reference: "nul\u0000" }],
          ["/v1/messaging/preview", { body: "\u0000" }],
          ["/v1/brands", { ...TestBrands.brandBody(TestBrands.freshAcn()), name: "Acme\u0000 Pty Ltd" }],
          ["/v1/webhooks", { ...TestWebhooks.webhookBody, secret: "whsec-0123456789\u0000abcdef" }]
        ] as const
        for (const [path, payload] of cases) {
          const body = JSON.stringify(payload)
          assert.include(body, "\\u0000", "the test sends the escape itself")
          const reply = yield* Http.request("POST", path, { body, headers: json })
          Replies.assertError(reply, 400, "invalid_request")
          assert.include(reply.json.error.message, "NUL", body)
        }
        assert.strictEqual((yield* TestMessages.list({ reference: "nul" })).json.data.length, 0, "nothing was stored")
      }))

    it.effect("the six characters \\u0000 written out (an escaped backslash) are text, not a NUL", () =>
      Effect.gen(function*() {
        const reply = yield* TestMessages.send({ ...TestMessages.validSend, reference: "\\u0000" })
        assert.strictEqual(reply.status, 201, reply.text)
        assert.strictEqual(reply.json.data.reference, "\\u0000")
      }))
  })
}
