import { assert, describe, it } from "@effect/vitest"
import { UrlPolicy, WebhookTransport } from "@sendline/core"
import { HostResolver, NodeWebhookTransport } from "@sendline/webhooks-node"
import type { Duration } from "effect"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** What a local receiver saw: each connection's peer address, and each request. */
interface Receiver {
  readonly port: number
  readonly connections: Array<string>
  readonly requests: Array<{ readonly method: string; readonly headers: IncomingHttpHeaders; readonly body: string }>
}

/** A node:http server on 127.0.0.1, answering each request (its body read) with `answer`; closed with the scope. */
const receiver = (answer: (request: IncomingMessage, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.async<{ readonly receiver: Receiver; readonly close: () => void }>((resume) => {
      const connections: Receiver["connections"] = []
      const requests: Receiver["requests"] = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          requests.push({
            method: request.method ?? "",
            headers: request.headers,
            body: Buffer.concat(chunks).toString("utf8")
          })
          answer(request, response)
        })
      })
      server.on("connection", (socket) => connections.push(socket.remoteAddress ?? ""))
      server.listen(0, "127.0.0.1", () => {
        const close = () => {
          server.closeAllConnections()
          server.close()
        }
        resume(
          Effect.succeed({ receiver: { port: (server.address() as AddressInfo).port, connections, requests }, close })
        )
      })
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ receiver }) => receiver))

const name = "hooks.example.test"
const body = JSON.stringify({ id: "evt_1", type: "message.delivered", data: { id: "msg_1" } })
const headers = { "Content-Type": "application/json", "X-Service-Signature": "ab12", "X-Service-Event-Id": "evt_1" }

/** Local receivers are on 127.0.0.1: allowed for the tests that reach one, never for the blocking ones. */
const reachable: UrlPolicy.UrlPolicy = { allowHttp: true, allowPrivate: true }
const publicOnly: UrlPolicy.UrlPolicy = { allowHttp: true, allowPrivate: false }

/** Posts `body` to `url` through a transport under `policy`, names resolved by `resolve`. */
const post = (
  url: string,
  options: {
    readonly policy?: UrlPolicy.UrlPolicy
    readonly resolve?: (hostname: string) => ReadonlyArray<string> | undefined
    readonly timeout?: Duration.DurationInput
  } = {}
) =>
  Effect.flatMap(
    WebhookTransport.WebhookTransport,
    (transport) => Effect.either(transport.post({ url, headers, body }))
  ).pipe(
    Effect.provide(
      NodeWebhookTransport.layerWithoutResolver({
        policy: options.policy ?? reachable,
        timeout: options.timeout ?? "5 seconds"
      }).pipe(
        Layer.provide(HostResolver.layerTest(options.resolve ?? ((host) => host === name ? ["127.0.0.1"] : undefined)))
      )
    )
  )

/** The failure of a post that must have failed. */
const failureOf = <A>(
  result: Either.Either<A, WebhookTransport.TransportFailure>
): WebhookTransport.TransportFailure => {
  assert.isTrue(Either.isLeft(result), `expected a failure, got ${JSON.stringify(result)}`)
  return (result as Either.Left<WebhookTransport.TransportFailure, A>).left
}

/** The answer of a post that must have succeeded. */
const answerOf = <E>(result: Either.Either<WebhookTransport.WebhookResponse, E>): WebhookTransport.WebhookResponse => {
  assert.isTrue(Either.isRight(result), `expected an answer, got ${JSON.stringify(result)}`)
  return (result as Either.Right<E, WebhookTransport.WebhookResponse>).right
}

describe("NodeWebhookTransport against local receivers", () => {
  it.live("a 2xx: its status, the time it took and its body; the receiver got the exact body and headers", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => setTimeout(() => response.writeHead(204).end(), 50))
      const answer = answerOf(yield* post(`http://${name}:${server.port}/hooks`))
      assert.strictEqual(answer.status, 204)
      assert.strictEqual(answer.body, "")
      assert.isAtLeast(answer.durationMillis, 45)
      assert.isBelow(answer.durationMillis, 5000)
      const [request] = server.requests
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.body, body)
      assert.strictEqual(request!.headers["content-type"], "application/json")
      assert.strictEqual(request!.headers["content-length"], String(Buffer.byteLength(body)))
      assert.strictEqual(request!.headers["x-service-signature"], "ab12")
      assert.strictEqual(request!.headers["x-service-event-id"], "evt_1")
    }).pipe(Effect.scoped))

  it.live("any other answer is a success with its status and body: the caller's `http_<status>`", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.writeHead(503).end("down for maintenance"))
      const answer = answerOf(yield* post(`http://${name}:${server.port}/hooks`))
      assert.strictEqual(answer.status, 503)
      assert.strictEqual(answer.body, "down for maintenance")
    }).pipe(Effect.scoped))

  it.live("a 301 fails `redirect` with its status, and is not followed: its target sees nothing", () =>
    Effect.gen(function*() {
      const target = yield* receiver((_, response) => response.writeHead(200).end())
      const server = yield* receiver((_, response) =>
        response.writeHead(301, { Location: `http://127.0.0.1:${target.port}/elsewhere` }).end()
      )
      const failure = failureOf(yield* post(`http://${name}:${server.port}/hooks`))
      assert.strictEqual(failure.reason, "redirect")
      assert.strictEqual(failure.status, 301)
      assert.include(failure.message, "/elsewhere")
      assert.strictEqual(server.requests.length, 1)
      assert.strictEqual(target.connections.length, 0)
    }).pipe(Effect.scoped))

  it.live("a receiver that never answers: `timeout` once the configured time has passed", () =>
    Effect.gen(function*() {
      const server = yield* receiver(() => {})
      const failure = failureOf(yield* post(`http://${name}:${server.port}/hooks`, { timeout: "200 millis" }))
      assert.strictEqual(failure.reason, "timeout")
      assert.isAtLeast(failure.durationMillis, 190)
      assert.strictEqual(server.requests.length, 1)
    }).pipe(Effect.scoped))

  it.live("a closed port: `connection_refused`", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(receiver(() => {}), ({ port }) => port))
      const failure = failureOf(yield* post(`http://${name}:${port}/hooks`))
      assert.strictEqual(failure.reason, "connection_refused")
      assert.include(failure.message, "ECONNREFUSED")
    }))

  it.live("a receiver that destroys the socket: `connection_reset`", () =>
    Effect.gen(function*() {
      const server = yield* receiver((request) => request.socket.destroy())
      const failure = failureOf(yield* post(`http://${name}:${server.port}/hooks`))
      assert.strictEqual(failure.reason, "connection_reset")
    }).pipe(Effect.scoped))

  it.live("a name that does not resolve: `dns`, no connection", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.end())
      const failure = failureOf(yield* post(`http://${name}:${server.port}/hooks`, { resolve: () => undefined }))
      assert.strictEqual(failure.reason, "dns")
      assert.strictEqual(server.connections.length, 0)
    }).pipe(Effect.scoped))

  it.live("https to a server that does not speak TLS: `tls`", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.end())
      const failure = failureOf(yield* post(`https://${name}:${server.port}/hooks`))
      assert.strictEqual(failure.reason, "tls")
    }).pipe(Effect.scoped))

  it.live("a body over 64 KiB: read up to 64 KiB, the rest dropped, the first 4 KiB kept", () =>
    Effect.gen(function*() {
      const large = "a".repeat(4096) + "b".repeat(1024 * 1024)
      const server = yield* receiver((_, response) => response.writeHead(200).end(large))
      const answer = answerOf(yield* post(`http://${name}:${server.port}/hooks`))
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.body, "a".repeat(4096))
    }).pipe(Effect.scoped))

  it.live("a body that never ends: the post ends after 64 KiB, the connection closed", () =>
    Effect.gen(function*() {
      const closed = yield* Deferred.make<void>()
      const server = yield* receiver((request, response) => {
        request.socket.on("close", () => Deferred.unsafeDone(closed, Effect.void))
        response.writeHead(200)
        response.write("c".repeat(80 * 1024)) // and never ends
      })
      // bounds far above what a loaded machine needs: the post ends at 64 KiB, not at its timeout
      const answer = answerOf(yield* post(`http://${name}:${server.port}/hooks`, { timeout: "20 seconds" }))
      assert.strictEqual(answer.body, "c".repeat(4096))
      yield* Deferred.await(closed).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "still open" }))
    }).pipe(Effect.scoped))

  it.live("a body that comes too slowly: `timeout`, the body's read counted in the whole post", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => {
        response.writeHead(200, { "Content-Length": "10" })
        response.write("slow") // and the rest never comes
      })
      const failure = failureOf(yield* post(`http://${name}:${server.port}/hooks`, { timeout: "300 millis" }))
      assert.strictEqual(failure.reason, "timeout")
      assert.isAtLeast(failure.durationMillis, 290)
    }).pipe(Effect.scoped))

  it.live("keep-alive: posts to a name that resolves as before share its connections; resolved elsewhere, they go there", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.writeHead(200).end("ok"))
      let answer = ["127.0.0.1"]
      const transport = yield* WebhookTransport.WebhookTransport.pipe(
        Effect.provide(
          NodeWebhookTransport.layerWithoutResolver({ policy: reachable }).pipe(
            Layer.provide(HostResolver.layerTest(() => answer))
          )
        )
      )
      const url = `http://${name}:${server.port}/hooks`
      for (let i = 0; i < 8; i++) {
        assert.strictEqual(answerOf(yield* Effect.either(transport.post({ url, headers, body }))).status, 200)
      }
      assert.strictEqual(server.requests.length, 8)
      // one after the other, 8 posts: undici may open a second connection while the first one's
      // answer is being completed, never one per post
      const kept = server.connections.length
      assert.isAtMost(kept, 2)
      assert.isTrue(server.connections.every((peer) => peer === "127.0.0.1"))
      // the name now resolves to another (allowed) address, where nothing listens: the post goes
      // there, through a pool pinned to it, not through the kept connections
      answer = ["127.0.0.2"]
      const moved = failureOf(yield* Effect.either(transport.post({ url, headers, body })))
      assert.strictEqual(moved.reason, "connection_refused")
      assert.include(moved.message, "127.0.0.2")
      assert.strictEqual(server.requests.length, 8)
      assert.strictEqual(server.connections.length, kept)
    }).pipe(Effect.scoped))

  it.live("an interrupted post aborts its request: the connection is closed", () =>
    Effect.gen(function*() {
      const arrived = yield* Deferred.make<void>()
      const closed = yield* Deferred.make<void>()
      const server = yield* receiver((request) => {
        request.socket.on("close", () => Deferred.unsafeDone(closed, Effect.void))
        Deferred.unsafeDone(arrived, Effect.void) // and never answers
      })
      const posting = yield* Effect.fork(post(`http://${name}:${server.port}/hooks`, { timeout: "20 seconds" }))
      yield* Deferred.await(arrived)
      yield* Fiber.interrupt(posting)
      yield* Deferred.await(closed).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "still open" }))
    }).pipe(Effect.scoped))

  it.live("the kept 4 KiB are text: a character cut at the limit is dropped", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.writeHead(400).end("x" + "é".repeat(3000)))
      const answer = answerOf(yield* post(`http://${name}:${server.port}/hooks`))
      assert.strictEqual(answer.body, "x" + "é".repeat(2047))
    }).pipe(Effect.scoped))
})

describe("NodeWebhookTransport: the URL policy at delivery, on the addresses connected to", () => {
  it.live("DNS rebinding: public when the subscription was checked, private at delivery: `blocked_address`, no connection", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.end())
      const url = `http://${name}:${server.port}/hooks`
      // the subscription's check: the URL is allowed, and its name resolves to a public address
      const answers = [["93.184.216.34"], ["127.0.0.1"], ["10.0.0.1"], ["93.184.216.34", "127.0.0.1"]]
      let call = 0
      const resolve = () => answers[call++]
      assert.isTrue(UrlPolicy.allows(url, publicOnly))
      const atSubscription = yield* Effect.flatMap(HostResolver.HostResolver, (resolver) => resolver.resolve(name))
        .pipe(
          Effect.provide(HostResolver.layerTest(resolve))
        )
      assert.deepStrictEqual(atSubscription.map(({ address }) => address), ["93.184.216.34"])
      assert.isFalse(UrlPolicy.isPrivateHost(atSubscription[0]!.address))
      // each delivery: the name now resolves to loopback, a private address, a mix: all refused
      for (const address of ["127.0.0.1", "10.0.0.1", "127.0.0.1"]) {
        const failure = failureOf(yield* post(url, { policy: publicOnly, resolve }))
        assert.strictEqual(failure.reason, "blocked_address")
        assert.include(failure.message, address)
      }
      assert.strictEqual(call, 4)
      assert.strictEqual(server.connections.length, 0)
    }).pipe(Effect.scoped))

  it.live("every special address a name may resolve to is refused, mapped and NAT64 forms included", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.end())
      for (
        const address of [
          "127.0.0.1",
          "::1",
          "::ffff:127.0.0.1",
          "64:ff9b::a00:1",
          "0.1.2.3",
          "100.64.0.1",
          "169.254.169.254",
          "fd00:ec2::254",
          "fe80::1",
          "224.0.0.1"
        ]
      ) {
        const failure = failureOf(
          yield* post(`http://${name}:${server.port}/hooks`, { policy: publicOnly, resolve: () => [address] })
        )
        assert.strictEqual(failure.reason, "blocked_address", address)
      }
      assert.strictEqual(server.connections.length, 0)
    }).pipe(Effect.scoped))

  it.live("a URL the policy refuses (an IP literal, http where only https is allowed): `blocked_address`, no connection", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.end())
      const literal = failureOf(yield* post(`http://127.0.0.1:${server.port}/hooks`, { policy: publicOnly }))
      assert.strictEqual(literal.reason, "blocked_address")
      const http = failureOf(yield* post(`http://${name}:${server.port}/hooks`, { policy: UrlPolicy.strict }))
      assert.strictEqual(http.reason, "blocked_address")
      assert.strictEqual(server.connections.length, 0)
    }).pipe(Effect.scoped))

  it.live("allowPrivate: the delivery goes to the very address resolved, with the URL's name as Host", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_, response) => response.writeHead(200).end("ok"))
      let resolutions = 0
      const resolve = (host: string) => {
        resolutions++
        return host === name ? ["127.0.0.1"] : undefined
      }
      // hooks.example.test is in the reserved .test domain: no system resolver knows it, so the
      // request can only arrive through the address the injected resolver gave
      const answer = answerOf(yield* post(`http://${name}:${server.port}/hooks`, { resolve }))
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.body, "ok")
      assert.strictEqual(resolutions, 1)
      assert.deepStrictEqual(server.connections, ["127.0.0.1"])
      assert.strictEqual(server.requests[0]!.headers.host, `${name}:${server.port}`)
    }).pipe(Effect.scoped))
})

describe("NodeWebhookTransport.reasonOf", () => {
  it("classifies Node's error codes, through a chain of causes", () => {
    const nodeError = (code: string) => Object.assign(new Error(code), { code })
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("ECONNREFUSED")), "connection_refused")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("EHOSTUNREACH")), "connection_refused")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("ECONNRESET")), "connection_reset")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("EPIPE")), "connection_reset")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("ENOTFOUND")), "dns")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("ETIMEDOUT")), "timeout")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("CERT_HAS_EXPIRED")), "tls")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("ERR_TLS_CERT_ALTNAME_INVALID")), "tls")
    assert.strictEqual(NodeWebhookTransport.reasonOf(nodeError("DEPTH_ZERO_SELF_SIGNED_CERT")), "tls")
    assert.strictEqual(
      NodeWebhookTransport.reasonOf(new Error("wrapped", { cause: nodeError("ECONNREFUSED") })),
      "connection_refused"
    )
    assert.strictEqual(NodeWebhookTransport.reasonOf(new Error("no code")), "connection_reset")
  })
})
