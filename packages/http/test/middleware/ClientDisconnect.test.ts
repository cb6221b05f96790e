/**
 * A client that goes away mid-request is not an error of ours: the server notes it at debug level,
 * with its own words, its request line says it ended before its answer (at info level, as every
 * request line), and nothing is logged at warning level or above (an operator's warnings are for
 * what needs their attention; it used to be a "500" warning).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, LogLevel } from "effect"
import { connect } from "node:net"
import * as Logs from "../support/Logs.js"
import * as Replies from "../support/Replies.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const logged: Array<Logs.Logged> = []
let wake: (() => void) | undefined

// Keeps every line the server logs, at every level.
const capture = Logs.capture(logged, LogLevel.All, () => wake?.())

/** Sends the headers of a send and half its body, then closes the connection. */
const sendHalfAndLeave = Effect.flatMap(TestServer.TestServer, (server) =>
  Effect.async<void>((resume) => {
    const body = JSON.stringify(TestMessages.validSend)
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1", () => {
      socket.write(
        "POST /v1/messaging/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          `Authorization: Bearer ${server.main.key}\r\nContent-Length: ${body.length}\r\n\r\n` +
          body.slice(0, 10),
        () => setTimeout(() => socket.destroy(), 50)
      )
    })
    socket.on("close", () => resume(Effect.void))
  }))

/** Waits until a line matching `pattern` has been logged. */
const loggedLine = (pattern: RegExp) =>
  Effect.async<Logs.Logged>((resume) => {
    const check = () => {
      const line = logged.find((l) => pattern.test(l.text))
      if (line !== undefined) {
        wake = undefined
        resume(Effect.succeed(line))
      }
    }
    wake = check
    check()
  })

layer(TestServer.layer().pipe(Layer.provide(capture)))("a client that disconnects mid-request", (it) => {
  it.effect("is noted at debug level, its request line says it ended before its answer, and nothing at warning level", () =>
    Effect.gen(function*() {
      yield* sendHalfAndLeave
      const line = yield* loggedLine(/client went away/i)
      assert.strictEqual(line.level, LogLevel.Debug)
      const answer = yield* loggedLine(/^POST \/v1\/messaging\/messages ended before its answer in [\d.]+ ms$/)
      assert.strictEqual(answer.level, LogLevel.Info)
      const warnings = logged.filter((l) => LogLevel.greaterThanEqual(l.level, LogLevel.Warning))
      assert.deepStrictEqual(warnings, [])
      // The server still answers.
      Replies.assertMeta(yield* TestMessages.send(TestMessages.validSend))
    }))
})
