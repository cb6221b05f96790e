/**
 * `Listener` drains before it closes: released while one request is in flight on a keep-alive
 * connection and another connection sits idle, it stops taking connections, closes the idle one,
 * answers the one in flight with `Connection: close`, and finishes once that connection is gone.
 */
import { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@sendline/core"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { type IncomingMessage, request } from "node:http"
import { connect, type Socket } from "node:net"
import * as Listener from "../../src/server/Listener.js"

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
          ? Effect.zipRight(
            Deferred.succeed(arrived, undefined),
            Effect.as(Deferred.await(release), HttpServerResponse.text("slow"))
          )
          : Effect.succeed(HttpServerResponse.text("fast")))
      const serving = Layer.merge(
        HttpServer.serve(app),
        Layer.effect(Address, Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port))
      )
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Listener.layer(serving, { port: 0, host: "127.0.0.1" }).pipe(Layer.provide(Ids.layer)),
        scope
      )
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

  it.live("what Node cannot parse is answered in the error envelope with a request id, and the connection closed", () =>
    Effect.gen(function*() {
      const serving = Layer.merge(
        HttpServer.serve(Effect.succeed(HttpServerResponse.text("fine"))),
        Layer.effect(Address, Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port))
      )
      const context = yield* Layer.build(
        Listener.layer(serving, { port: 0, host: "127.0.0.1" }).pipe(Layer.provide(Ids.layer))
      )
      const port = Context.get(context, Address)
      const raw = (request: string) =>
        Effect.async<string>((resume) => {
          const socket = connect(port, "127.0.0.1", () => socket.write(request))
          let text = ""
          socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
          socket.on("close", () => resume(Effect.succeed(text)))
        })
      for (
        const [request, status] of [
          ["FOO / HTTP/1.1\r\nHost: x\r\n\r\n", "400 Bad Request"],
          [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, "400 Bad Request"],
          [`GET /v1/messaging/messages?cursor=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, "400 Bad Request"]
        ] as const
      ) {
        const answer = yield* raw(request)
        const [head, body] = answer.split("\r\n\r\n")
        assert.match(head!, new RegExp(`^HTTP/1.1 ${status}\r\n`))
        const requestId = /x-request-id: (\S+)/i.exec(head!)?.[1]
        assert.match(requestId ?? "", /^req_[0-9a-z]{26}$/)
        const envelope = JSON.parse(body!)
        assert.strictEqual(envelope.ok, false)
        assert.strictEqual(envelope.error.code, "invalid_request")
        assert.strictEqual(envelope.meta.request_id, requestId)
      }
    }).pipe(Effect.scoped))

  it.live("a request that does not arrive in time is answered 400 and its connection closed", () =>
    Effect.gen(function*() {
      const serving = Layer.merge(
        HttpServer.serve(
          Effect.flatMap(
            HttpServerRequest.HttpServerRequest,
            (req) => Effect.as(req.text, HttpServerResponse.text("read"))
          )
        ),
        Layer.effect(Address, Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port))
      )
      const timeouts = { ...Listener.timeouts, headers: Duration.millis(200), request: Duration.millis(400) }
      const context = yield* Layer.build(
        Listener.layer(serving, { port: 0, host: "127.0.0.1", timeouts }).pipe(Layer.provide(Ids.layer))
      )
      const port = Context.get(context, Address)
      // the headers at once, then the body's first bytes, and nothing more
      const answer = yield* Effect.async<string>((resume) => {
        const socket = connect(
          port,
          "127.0.0.1",
          () => socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":")
        )
        let text = ""
        socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        socket.on("close", () => resume(Effect.succeed(text)))
        return Effect.sync(() => socket.destroy())
      }).pipe(Effect.timeout("20 seconds"))
      const [head, body] = answer.split("\r\n\r\n")
      assert.match(head!, /^HTTP\/1.1 400 Bad Request\r\n/)
      assert.strictEqual(JSON.parse(body!).error.message, "The request did not arrive in time.")
    }).pipe(Effect.scoped))

  it.live("a drain cuts the connections still open when its time is up: a body that never ends does not hold the shutdown", () =>
    Effect.gen(function*() {
      const arrived = yield* Deferred.make<void>()
      const serving = Layer.merge(
        HttpServer.serve(
          Effect.flatMap(
            HttpServerRequest.HttpServerRequest,
            (req) =>
              Effect.zipRight(
                Deferred.succeed(arrived, undefined),
                Effect.as(req.text, HttpServerResponse.text("read"))
              )
          )
        ),
        Layer.effect(Address, Effect.map(HttpServer.HttpServer, (s) => (s.address as HttpServer.TcpAddress).port))
      )
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Listener.layer(serving, {
          port: 0,
          host: "127.0.0.1",
          timeouts: { ...Listener.timeouts, drain: Duration.millis(300) }
        })
          .pipe(Layer.provide(Ids.layer)),
        scope
      )
      const port = Context.get(context, Address)
      const socket = connect(
        port,
        "127.0.0.1",
        () => socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":")
      )
      socket.on("error", () => {})
      const socketClosed = closed(socket)
      yield* Deferred.await(arrived)
      yield* Scope.close(scope, Exit.void).pipe(
        Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "the drain never ended" })
      )
      yield* Effect.promise(() => socketClosed)
    }))
})
