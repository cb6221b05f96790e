/**
 * Every answer says `nosniff`; every `/v1` answer, which may hold phone numbers and bodies, also
 * says `no-store`: successes, refusals, replays and unknown routes alike.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get } from "node:http"
import { gunzipSync } from "node:zlib"
import * as Http from "../support/Http.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

/** `GET path` with `headers`, as raw bytes: no client decompresses anything. */
const raw = (path: string, headers: Record<string, string>) =>
  Effect.flatMap(
    TestServer.TestServer,
    (server) =>
      Effect.async<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resume) => {
        get(server.url + path, { headers }, (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () =>
            resume(
              Effect.succeed({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) })
            ))
        })
      })
  )

layer(TestServer.layer())("response headers", (it) => {
  it.effect("/v1 answers are no-store and nosniff, whatever their status", () =>
    Effect.gen(function*() {
      const replies = [
        yield* TestMessages.send(TestMessages.validSend),
        yield* TestMessages.send(TestMessages.validSend, { headers: { "idempotency-key": "headers-1" } }),
        yield* TestMessages.send(TestMessages.validSend, { headers: { "idempotency-key": "headers-1" } }),
        yield* TestMessages.send(TestMessages.validSend, { key: null }),
        yield* Http.request("GET", "/v1/messaging/messages"),
        yield* Http.request("GET", "/v1/nowhere"),
        yield* Http.request("GET", "/v1/openapi.json")
      ]
      assert.strictEqual(replies[2]!.headers.get("idempotent-replayed"), "true")
      for (const reply of replies) {
        assert.strictEqual(reply.headers.get("cache-control"), "no-store", `${reply.status}`)
        assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", `${reply.status}`)
      }
    }))

  it.effect("outside /v1, answers are nosniff and may be cached", () =>
    Effect.gen(function*() {
      for (const path of ["/health", "/docs"]) {
        const reply = yield* Http.request("GET", path, { key: null })
        assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", path)
        assert.isNull(reply.headers.get("cache-control"), path)
      }
    }))

  it.effect("/docs is sent gzipped to a client that takes gzip, with an ETag that answers 304", () =>
    Effect.gen(function*() {
      const plain = yield* raw("/docs", { "accept-encoding": "identity" })
      const zipped = yield* raw("/docs", { "accept-encoding": "gzip, deflate" })
      assert.strictEqual(plain.status, 200)
      assert.isUndefined(plain.headers["content-encoding"])
      assert.strictEqual(zipped.headers["content-encoding"], "gzip")
      assert.isBelow(zipped.body.length, plain.body.length / 3, `${zipped.body.length} of ${plain.body.length} bytes`)
      assert.isTrue(gunzipSync(zipped.body).equals(plain.body), "the same page")
      const etag = String(zipped.headers["etag"])
      assert.strictEqual(plain.headers["etag"], etag)
      const again = yield* raw("/docs", { "accept-encoding": "gzip", "if-none-match": etag })
      assert.strictEqual(again.status, 304)
      assert.strictEqual(again.body.length, 0)
    }))
})
