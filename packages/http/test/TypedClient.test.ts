/**
 * The typed client derived from `Api` (HttpApiClient) against the real server: successes decode
 * as the envelope, and error envelopes decode into core's tagged errors.
 */
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Api } from "@sendline/api/Api"
import { Errors } from "@sendline/core"
import { Effect } from "effect"
import * as TestMessages from "./support/TestMessages.js"
import * as TestServer from "./support/TestServer.js"

/** A client of the test server sending `key` as its bearer key. */
const clientWith = (key: string) =>
  Effect.flatMap(TestServer.TestServer, (server) =>
    HttpApiClient.make(Api, {
      baseUrl: server.url,
      transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
    }))

const payload = { to: TestMessages.validSend.to, sender_id: "Acme", body: "Hello from the typed client", market: "AU" }

layer(TestServer.layer())("the typed client derived from Api", (it) => {
  it.effect("sends and reads messages: the success envelope, decoded", () =>
    Effect.gen(function*() {
      const client = yield* clientWith((yield* TestServer.TestServer).main.key)
      const sent = yield* client.messages.send({ payload })
      assert.strictEqual(sent.ok, true)
      assert.strictEqual(sent.data.status, "queued")
      const read = yield* client.messages.get({ path: { id: sent.data.id } })
      assert.strictEqual(read.data.id, sent.data.id)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("fails with core's tagged errors, decoded from the error envelope", () =>
    Effect.gen(function*() {
      const client = yield* clientWith((yield* TestServer.TestServer).main.key)
      const refused = yield* Effect.flip(client.messages.send({ payload: { ...payload, sender_id: "Nobody" } }))
      assert.instanceOf(refused, Errors.RuleViolation)
      assert.strictEqual((refused as Errors.RuleViolation).code, "sender_id_not_registered")
      assert.strictEqual((refused as Errors.RuleViolation).field, "sender_id")

      const missing = yield* Effect.flip(client.messages.get({ path: { id: "msg_00000000000000000000000000" } }))
      assert.instanceOf(missing, Errors.NotFound)

      const cancelled = yield* Effect.flip(
        client.messages.cancel({ path: { id: (yield* client.messages.send({ payload })).data.id } })
      )
      assert.instanceOf(cancelled, Errors.Conflict)
      assert.strictEqual((cancelled as Errors.Conflict).code, "invalid_state_transition")

      const stranger = yield* clientWith(`sk_${"a".repeat(40)}`)
      assert.instanceOf(yield* Effect.flip(stranger.messages.send({ payload })), Errors.Unauthenticated)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})

layer(TestServer.layer({ rateLimitPerSecond: 1 }))("the typed client over the rate limit", (it) => {
  it.effect("fails with RateLimited (1 second: the body does not carry Retry-After)", () =>
    Effect.gen(function*() {
      const client = yield* clientWith((yield* TestServer.TestServer).main.key)
      yield* client.messages.send({ payload })
      const limited = yield* Effect.flip(client.messages.send({ payload }))
      assert.instanceOf(limited, Errors.RateLimited)
      assert.strictEqual((limited as Errors.RateLimited).retryAfterSeconds, 1)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
