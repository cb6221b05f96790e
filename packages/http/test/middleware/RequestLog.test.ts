/**
 * Every answer leaves one line at info level (a 5xx at warning level), named by its route
 * template, with its fields as annotations: method, route, status, duration_ms, request_id and,
 * once a key has authenticated, account_id. Never the raw path, the query, a key or a body; every
 * line logged while a request is handled carries its request_id. With only warnings kept, a 5xx
 * alone is logged.
 */
import { assert, layer } from "@effect/vitest"
import { Readiness } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, LogLevel } from "effect"
import * as Http from "../support/Http.js"
import * as Logs from "../support/Logs.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

/** The lines of the request `reply` answered. */
const linesOf = (logged: ReadonlyArray<Logs.Logged>, reply: Http.Reply) =>
  logged.filter((line) => line.fields["request_id"] === reply.headers.get("x-request-id"))

const logged: Array<Logs.Logged> = []

layer(TestServer.layer().pipe(Layer.provide(Logs.capture(logged, LogLevel.All))))("the request log", (it) => {
  it.effect("one info line per answer: method, route template, status, duration, request id, and the account once authenticated", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const sent = yield* TestMessages.send(TestMessages.validSend)
      const refused = yield* TestMessages.send(TestMessages.validSend, { key: null })
      const [sentLine, refusedLine] = [linesOf(logged, sent), linesOf(logged, refused)]
      assert.strictEqual(sentLine.length, 1, JSON.stringify(sentLine))
      assert.strictEqual(refusedLine.length, 1, JSON.stringify(refusedLine))
      assert.match(sentLine[0]!.text, /^POST \/v1\/messaging\/messages 201 in [\d.]+ ms$/)
      assert.strictEqual(sentLine[0]!.level, LogLevel.Info)
      assert.deepStrictEqual(sentLine[0]!.fields, {
        request_id: sent.headers.get("x-request-id"),
        method: "POST",
        route: "/v1/messaging/messages",
        status: 201,
        duration_ms: sentLine[0]!.fields["duration_ms"],
        account_id: main.accountId
      })
      assert.isNumber(sentLine[0]!.fields["duration_ms"])
      assert.match(refusedLine[0]!.text, /^POST \/v1\/messaging\/messages 401 in [\d.]+ ms$/)
      assert.notProperty(refusedLine[0]!.fields, "account_id", "no key authenticated")
    }))

  it.effect("a line names the route template, never the path or the query: a phone number, key or reference there is not written", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const replies = [
        yield* Http.request("GET", "/v1/messaging/messages/+61412345678?reference=secret-ref"),
        yield* Http.request("GET", `/v1/messaging/messages?reference=secret-ref&key=${main.key}&page_size=5`),
        // paths match as written (the router's configuration): no route, and none is named
        yield* Http.request("GET", "/V1/messaging/messages/+61412345678"),
        yield* Http.request("HEAD", "/health", { key: null })
      ]
      const lines = replies.map((reply) => linesOf(logged, reply))
      assert.deepStrictEqual(lines.map((l) => l.map((line) => line.text.replace(/ in [\d.]+ ms$/, ""))), [
        ["GET /v1/messaging/messages/:id 404"],
        ["GET /v1/messaging/messages 200"],
        ["GET (no route) 404"],
        ["HEAD /health 200"]
      ])
      assert.notProperty(lines[2]![0]!.fields, "route")
      const written = JSON.stringify(lines)
      for (const secret of ["61412345678", "secret-ref", main.key]) assert.notInclude(written, secret)
    }))
})

const failing: Array<Logs.Logged> = []
/** A readiness check that fails at once: `GET /ready` answers 503 and logs why. */
const notReady = Layer.succeed(
  Readiness.Readiness,
  Readiness.Readiness.of({
    check: Effect.fail(
      new Readiness.NotReady({ reason: "Unreachable", message: "The test store cannot be reached or read" })
    )
  })
)

layer(
  TestServer.layer({ store: Layer.merge(SqliteStore.layerSqlite({ filename: ":memory:" }), notReady) }).pipe(
    Layer.provide(Logs.capture(failing, LogLevel.Warning))
  )
)("the request log, with warnings only", (it) => {
  it.effect("a 5xx alone is logged, and every line written while it is handled carries its request id", () =>
    Effect.gen(function*() {
      const healthy = yield* Http.request("GET", "/health", { key: null })
      const unready = yield* Http.request("GET", "/ready", { key: null })
      assert.strictEqual(unready.status, 503, unready.text)
      assert.deepStrictEqual(linesOf(failing, healthy), [])
      const lines = linesOf(failing, unready)
      assert.deepStrictEqual(lines.map((line) => [line.level, line.text]), [
        [LogLevel.Warning, "Not ready: The test store cannot be reached or read"],
        [LogLevel.Warning, "GET /ready 503"]
      ])
      assert.deepStrictEqual(failing.filter((line) => !lines.includes(line)), [], "no line without the request's id")
    }))
})
