/**
 * Every answer leaves one log line: at debug level, with its method, path, status, time and request
 * id, so that an operator who turns debug on sees the traffic.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, LogLevel, Option } from "effect"
import * as H from "./harness.js"

interface Logged {
  readonly level: LogLevel.LogLevel
  readonly text: string
  readonly requestId: unknown
}

const logged: Array<Logged> = []

const capture = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, logLevel, message }) => {
    const text = Array.isArray(message) ? message.join(" ") : String(message)
    logged.push({ level: logLevel, text, requestId: Option.getOrUndefined(HashMap.get(annotations, "request_id")) })
  })
).pipe(Layer.merge(Logger.minimumLogLevel(LogLevel.All)))

layer(H.layer().pipe(Layer.provide(capture)))("the request log", (it) => {
  it.effect("one debug line per answer, with its status and request id, refusals included", () =>
    Effect.gen(function*() {
      const sent = yield* H.send(H.validSend)
      const refused = yield* H.send(H.validSend, { key: null })
      for (const [reply, status] of [[sent, 201], [refused, 401]] as const) {
        const requestId = reply.headers.get("x-request-id")
        const lines = logged.filter((l) => l.requestId === requestId)
        assert.strictEqual(lines.length, 1, `${status}: ${JSON.stringify(lines)}`)
        assert.match(lines[0]!.text, new RegExp(`^POST /v1/messaging/messages ${status} in \\d+ ms$`))
        assert.strictEqual(lines[0]!.level, LogLevel.Debug)
      }
    }))

  it.effect("a line names the path, never the query: a key or a reference put there is not written", () =>
    Effect.gen(function*() {
      const reply = yield* H.request("GET", "/v1/messaging/messages?reference=secret-ref&page_size=5")
      const lines = logged.filter((l) => l.requestId === reply.headers.get("x-request-id"))
      assert.strictEqual(lines.length, 1)
      assert.match(lines[0]!.text, /^GET \/v1\/messaging\/messages 200 in \d+ ms$/)
    }))
})
