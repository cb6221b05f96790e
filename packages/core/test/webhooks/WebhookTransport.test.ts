import { assert, describe, it } from "@effect/vitest"
import { WebhookTransport } from "@sendline/core"
import { Effect, Either } from "effect"

describe("WebhookTransport", () => {
  it("keeps the first 4 KiB of a body as text, a character cut at the limit dropped", () => {
    assert.strictEqual(WebhookTransport.keptBody(new TextEncoder().encode("ok")), "ok")
    assert.strictEqual(WebhookTransport.keptBody(new TextEncoder().encode("a".repeat(5000))), "a".repeat(4096))
    // "é" is two bytes: 1 + 2 × 2047 = 4095, the 4096th byte the first half of another "é"
    assert.strictEqual(
      WebhookTransport.keptBody(new TextEncoder().encode("x" + "é".repeat(3000))),
      "x" + "é".repeat(2047)
    )
  })

  it("a failure keeps a redirect's status and leaves out what it was not given", () => {
    const redirect = WebhookTransport.failure("redirect", "answered 301", 12, { status: 301 })
    assert.strictEqual(redirect.reason, "redirect")
    assert.strictEqual(redirect.status, 301)
    assert.strictEqual(redirect.durationMillis, 12)
    const timeout = WebhookTransport.failure("timeout", "no answer", 10_000, { status: undefined })
    assert.isFalse("status" in timeout)
    assert.isFalse("cause" in timeout)
  })

  it.effect("layerTest answers every post from its function", () =>
    Effect.gen(function*() {
      const transport = yield* WebhookTransport.WebhookTransport
      const ok = yield* transport.post({ url: "https://hooks.example.com/a", headers: {}, body: "{}" })
      assert.deepStrictEqual(ok, { status: 200, durationMillis: 3, body: "https://hooks.example.com/a" })
      const failed = yield* Effect.either(
        transport.post({ url: "https://hooks.example.com/down", headers: {}, body: "{}" })
      )
      assert.isTrue(Either.isLeft(failed) && failed.left.reason === "connection_refused")
    }).pipe(Effect.provide(WebhookTransport.layerTest((request) =>
      request.url.endsWith("/down")
        ? Effect.fail(WebhookTransport.failure("connection_refused", "ECONNREFUSED", 1))
        : Effect.succeed({ status: 200, durationMillis: 3, body: request.url })
    ))))
})
