/**
 * Serving Sendline's `/v1` HTTP API inside an existing Node service, and calling it from Effect code
 * with the typed client (`@sendline/client`, over the same API definition, `@sendline/api`):
 * replies decode as the API's envelopes, and refusals as core's own tagged errors. Live clock, real
 * port, no sleeps.
 */
import { FetchHttpClient, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { SendlineClient } from "@sendline/client"
import { Admin, Errors, Services } from "@sendline/core"
import { Server } from "@sendline/http"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

// In your service: the core over your database (here :memory:), and the API served on a node:http
// server of its own on any free port (port 0). On a fixed port, `Server.layer({ rateLimitPerSecond,
// port, host })` does both and also lets requests in flight finish at shutdown. To hand it requests
// from the server your service already runs, see mount-on-your-own-server.test.ts.
const Sendline = Services.layer.pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" })))
const SendlineHttp = Server.layerServe({ rateLimitPerSecond: 100 }).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
  Layer.provideMerge(Sendline)
)

it.live("the typed client sends, reads back, and gets refusals as core's tagged errors", () =>
  Effect.gen(function*() {
    // Once, at setup (or with the CLI): an account, a registered Sender ID and a key.
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: "Acme", type: "cpaas", adminEmail: "ops@acme.example" })
    yield* admin.importSenderId({
      accountId: account.id,
      senderId: "Acme",
      market: "AU",
      identifier: { identifierType: "ABN", identifierValue: "51824753556" },
      brandName: "Acme Pty Ltd"
    })
    const { secret } = yield* admin.createKey({
      accountId: account.id,
      permissions: ["messaging:send", "messaging:read"]
    })

    // The client: where the server listens, and the key as a bearer token on every request.
    const client = yield* HttpServer.addressFormattedWith((baseUrl) => SendlineClient.make({ baseUrl, apiKey: secret }))

    // POST /v1/messaging/messages answers 201 with the message; GET reads it back.
    const payload = { to: "+61412345678", sender_id: "Acme", body: "Your code is 123456", market: "AU" }
    const [sent, response] = yield* client.messages.send({ payload, withResponse: true })
    assert.strictEqual(response.status, 201)
    assert.strictEqual(sent.data.status, "queued")
    const read = yield* client.messages.get({ path: { id: sent.data.id } })
    assert.deepStrictEqual([read.data.id, read.data.sender_id, read.data.segments], [sent.data.id, "Acme", 1])

    // A refusal (a 422 error envelope) fails the Effect with core's error: handle it by its tag...
    const outcome = yield* client.messages.send({ payload: { ...payload, sender_id: "Nobody" } }).pipe(
      Effect.as("sent"),
      Effect.catchTag("RuleViolation", (error) => Effect.succeed(`refused: ${error.code}`))
    )
    assert.strictEqual(outcome, "refused: sender_id_not_registered")

    // ...or take it as a value, the same class the core fails with when embedded.
    const refused = yield* Effect.flip(client.messages.send({ payload: { ...payload, sender_id: "Nobody" } }))
    assert.instanceOf(refused, Errors.RuleViolation)
    assert.strictEqual(refused.field, "sender_id")
  }).pipe(Effect.provide(Layer.merge(SendlineHttp, FetchHttpClient.layer))))
