/**
 * The second baseline for the send bench: "HttpApi without storage". One `HttpApi` endpoint at the
 * send path decodes the same JSON payload (the send request's required fields) and answers 201 with
 * the bare server's constant body, on `NodeHttpServer` with tracing off as Sendline's server runs.
 * No auth, no checks, no store: what Effect's HTTP stack alone costs on this machine, the ceiling
 * the issue sets for durable sends. Listens on `HOST`:`PORT`; run as a child process by `send.ts`.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"
import { SEND_RESPONSE } from "./send-response.js"

const SendPayload = Schema.Struct({
  to: Schema.String,
  sender_id: Schema.String,
  body: Schema.String,
  market: Schema.String
})

const Api = HttpApi.make("baseline").add(
  HttpApiGroup.make("messages")
    .add(
      HttpApiEndpoint.post("send", "/v1/messaging/messages").setPayload(SendPayload).addSuccess(Schema.Unknown, {
        status: 201
      })
    )
    .add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
)

const Handlers = HttpApiBuilder.group(Api, "messages", (handlers) =>
  handlers
    .handle("send", () => Effect.succeed(SEND_RESPONSE))
    .handle("health", () => Effect.succeed({ ok: true })))

const port = Number(process.env["PORT"] ?? 3000)
const host = process.env["HOST"] ?? "127.0.0.1"

HttpApiBuilder.serve().pipe(
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(Handlers))),
  HttpServer.withLogAddress,
  Layer.provide(NodeHttpServer.layer(createServer, { port, host })),
  Layer.launch,
  NodeRuntime.runMain
)
