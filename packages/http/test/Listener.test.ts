/**
 * `Listener` drains before it closes: released while one request is in flight on a keep-alive
 * connection and another connection sits idle, it stops taking connections, closes the idle one,
 * answers the one in flight with `Connection: close`, and finishes once that connection is gone.
 */
import { assert, describe, it } from "@effect/vitest"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { type IncomingMessage, request } from "node:http"
import { connect, type Socket } from "node:net"
import * as Listener from "../src/Listener.js"

class Address extends Context.Tag("test/Address")<Address, number>() {}

/** A keep-alive connection that sends one GET and resolves with the response's status and headers. */
const get = (port: number, path: string) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, headers: { connection: "keep-alive" }, agent: false }, (response) => {
      response.resume()
      response.on("end", () => resolve(response))
    }).on("error", reject).end()
  })

const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()))

describe("Listener", () => {
  it.live("drains: idle connections close, the request in flight is answered with Connection: close", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const arrived = yield* Deferred.make<void>()
      const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) =>
        req.url === "/slow"
          ? Effect.zipRight(Deferred.succeed(arrived, undefined), Effect.as(Deferred.await(release), HttpServerResponse.text("slow")))
          : Effect.succeed(HttpServerResponse.text("fast")))
      const serving = Layer.merge(
        HttpServer.serve(app),
        Layer.effect(Address, Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port))
      )
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(Listener.layer(serving, { port: 0, host: "127.0.0.1" }), scope)
      const port = Context.get(context, Address)

      // an idle keep-alive connection: one request answered, the socket left open
      const idle = connect(port, "127.0.0.1")
      yield* Effect.async<void>((resume) => {
        idle.write("GET /fast HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n")
        idle.once("data", () => resume(Effect.void))
      })
      const idleClosed = closed(idle)

      const slow = yield* Effect.fork(Effect.promise(() => get(port, "/slow")))
      yield* Deferred.await(arrived)
      const draining = yield* Effect.fork(Scope.close(scope, Exit.void))

      yield* Effect.promise(() => idleClosed)
      const refused = yield* Effect.promise(() => get(port, "/fast").then(() => false, () => true))
      assert.isTrue(refused, "no new connection is taken while draining")

      yield* Deferred.succeed(release, undefined)
      const answered = yield* Fiber.join(slow)
      assert.strictEqual(answered.statusCode, 200)
      assert.strictEqual(answered.headers.connection, "close")
      yield* Fiber.join(draining)
    }))
})
