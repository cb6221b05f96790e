/**
 * Every answer says `nosniff`; every `/v1` answer, which may hold phone numbers and bodies, also
 * says `no-store`: successes, refusals, replays and unknown routes alike.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as H from "./harness.js"

layer(H.layer())("response headers", (it) => {
  it.effect("/v1 answers are no-store and nosniff, whatever their status", () =>
    Effect.gen(function*() {
      const replies = [
        yield* H.send(H.validSend),
        yield* H.send(H.validSend, { headers: { "idempotency-key": "headers-1" } }),
        yield* H.send(H.validSend, { headers: { "idempotency-key": "headers-1" } }),
        yield* H.send(H.validSend, { key: null }),
        yield* H.request("GET", "/v1/messaging/messages"),
        yield* H.request("GET", "/v1/nowhere"),
        yield* H.request("GET", "/v1/openapi.json")
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
        const reply = yield* H.request("GET", path, { key: null })
        assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", path)
        assert.isNull(reply.headers.get("cache-control"), path)
      }
    }))
})
