/**
 * A CSV import's body (`RequestBody.csvStream`) is read off the connection as fast as the client
 * sends it, whatever the pace its rows are written at: the server's whole-request deadline
 * (`Listener.timeouts.request`, 30 s) measures the client, never the store. Before, the body was read
 * only as the rows were written, so a 10 MiB import slower to write than 30 s (806,596 numbers on a
 * loaded SQLite, any large one on PostgreSQL) was cut with 400 "The request did not arrive in time."
 */
import { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@sendline/core"
import { Context, Deferred, Effect, Layer, Stream } from "effect"
import { request } from "node:http"
import * as RequestBody from "../../src/middleware/RequestBody.js"
import * as Listener from "../../src/server/Listener.js"

class Address extends Context.Tag("test/Address")<Address, number>() {}

describe("RequestBody.csvStream", () => {
  it.live("reads the whole body off the connection while its first rows are still being written", () =>
    Effect.gen(function*() {
      // The handler holds its first chunk of text until the request has been read to its end: read
      // only as rows are consumed, that end never comes and the request is never answered.
      const serving = Layer.merge(
        HttpServer.serve(
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) =>
            Effect.gen(function*() {
              const incoming = NodeHttpServerRequest.toIncomingMessage(req)
              const ended = yield* Deferred.make<void>()
              incoming.once("end", () => Deferred.unsafeDone(ended, Effect.void))
              let characters = 0
              yield* RequestBody.csvStream(req).pipe(
                Stream.runForEach((text) =>
                  Effect.zipRight(
                    characters === 0 ? Deferred.await(ended) : Effect.void,
                    Effect.sync(() => (characters += text.length))
                  )
                )
              )
              return HttpServerResponse.text(String(characters))
            }))
        ),
        Layer.effect(Address, Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port))
      )
      const context = yield* Layer.build(
        Listener.layer(serving, { port: 0, host: "127.0.0.1" }).pipe(Layer.provide(Ids.layer))
      )
      const port = Context.get(context, Address)
      // 1 MiB: far more than the connection's and the request's own buffers hold unread
      const body = "+61412345678\n".repeat(Math.ceil(1024 * 1024 / 13))
      const answer = yield* Effect.async<string>((resume) => {
        const post = request(
          { port, host: "127.0.0.1", method: "POST", path: "/", headers: { "content-type": "text/csv" } },
          (response) => {
            let text = ""
            response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
            response.on("end", () => resume(Effect.succeed(`${response.statusCode} ${text}`)))
          }
        )
        post.on("error", (error) => resume(Effect.succeed(`no answer: ${error.message}`)))
        post.end(body)
        return Effect.sync(() => post.destroy())
      }).pipe(Effect.timeout("20 seconds"))
      assert.strictEqual(answer, `200 ${body.length}`)
    }).pipe(Effect.scoped))
})
