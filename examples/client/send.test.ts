/**
 * The client example (`send.ts`) against a server started in this process with the demo data of
 * `sendline serve --demo`: it sends as the demo organisation, and its refusal comes back as a
 * `RuleViolation` caught by its tag. Live clock, real port, no sleeps.
 */
import { FetchHttpClient, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { SendlineClient } from "@sendline/client"
import { Demo, Services } from "@sendline/core"
import { Server } from "@sendline/http"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { program } from "./send.js"

const Sendline = Services.layer.pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" })))
const SendlineHttp = Server.layerServe({ rateLimitPerSecond: 100 }).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
  Layer.provideMerge(Sendline)
)

it.live("send.ts sends as the demo organisation and handles the refusal by its tag", () =>
  Effect.gen(function*() {
    // What `sendline serve --demo` does at start: the demo organisation, its Sender ID, its key.
    const { secret } = yield* Demo.ensure
    const outcome = yield* HttpServer.addressFormattedWith((baseUrl) =>
      program.pipe(Effect.provide(SendlineClient.layer({ baseUrl, apiKey: secret })))
    )
    assert.match(outcome.id, /^msg_/)
    assert.strictEqual(outcome.status, "queued")
    assert.strictEqual(outcome.refused, "sender_id_not_registered")
  }).pipe(Effect.provide(Layer.merge(SendlineHttp, FetchHttpClient.layer))))
