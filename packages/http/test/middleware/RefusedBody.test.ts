/**
 * A request refused before its body is read (401, 403, 413, 415) is answered with `Connection:
 * close` and its connection closed: the server does not read the rest of a body no one will use,
 * however much the client sends. `Expect: 100-continue` is answered `100 Continue` only once the
 * key and its permission pass, so a refused client never sends its body at all.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { subscribe } from "node:diagnostics_channel"
import { connect, type Socket } from "node:net"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

/**
 * What a raw client saw: the bytes it got, how many body bytes the kernel took from it (its own
 * send buffer, up to 4 MiB here, included), how many bytes the server read from the connection,
 * and when the connection ended.
 */
interface Streamed {
  readonly answer: string
  readonly sent: number
  readonly read: number
  readonly endedAfterMillis: number
}

/** The server side of each connection, by the client's port: Node's own report of every request. */
const serverSockets = new Map<number, Socket>()
subscribe("http.server.request.start", (message) => {
  const { socket } = message as { socket: Socket }
  if (socket.remotePort !== undefined) serverSockets.set(socket.remotePort, socket)
})

const chunk = Buffer.alloc(64 * 1024, "a")
const hex = chunk.length.toString(16)

/**
 * How long a raw client waits for the server to answer or close before it gives up: far longer than
 * a loaded machine needs, so that only a server that never answers (or never cuts) reaches it.
 */
const giveUpMillis = 20_000

/**
 * Sends `head` and then an endless chunked body as fast as the connection takes it, until the
 * server closes the connection (or `giveUpMillis` pass: then `endedAfterMillis` is Infinity).
 */
const stream = (url: string, head: string) =>
  Effect.promise(() =>
    new Promise<Streamed>((resolve) => {
      const { port } = new URL(url)
      const socket = connect(Number(port), "127.0.0.1")
      const started = Date.now()
      let answer = ""
      let sent = 0
      let ended = false
      // the client's port, the key to its server side, taken once connected: a socket that ends in
      // an error has none left (Node 24 reports the server's cut as EPIPE on the next write, with
      // the socket already destroyed; Node 20 and 22 report the end of the stream first)
      let localPort = 0
      socket.once("connect", () => localPort = socket.localPort ?? 0)
      const end = (endedAfterMillis: number) => {
        if (ended) return
        ended = true
        clearTimeout(giveUp)
        const read = serverSockets.get(localPort)?.bytesRead ?? NaN
        socket.destroy()
        resolve({ answer, sent, read, endedAfterMillis })
      }
      const giveUp = setTimeout(() => end(Infinity), giveUpMillis)
      socket.on("data", (data) => answer += data.toString("latin1"))
      socket.on("error", () => end(Date.now() - started))
      socket.on("end", () => end(Date.now() - started))
      socket.on("close", () => end(Date.now() - started))
      const pump = () => {
        while (!ended && !socket.destroyed) {
          const more = socket.write(`${hex}\r\n`) && socket.write(chunk, () => sent += chunk.length) &&
            socket.write("\r\n")
          if (!more) return void socket.once("drain", pump)
        }
      }
      socket.write(head, pump)
    })
  )

/** A chunked POST's head to `path` with `headers`. */
const chunkedHead = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: sendline.test\r\nTransfer-Encoding: chunked\r\n` +
  Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n"

/**
 * Asserts `streamed` was answered `status` with `Connection: close` and its connection closed, the
 * server having read at most 1 MB of a body the client kept sending as fast as it could.
 */
const assertCut = (streamed: Streamed, status: number) => {
  assert.match(streamed.answer, new RegExp(`^HTTP/1\\.1 ${status} `), streamed.answer)
  assert.match(streamed.answer, /\r\nconnection: close\r\n/i, streamed.answer)
  assert.isBelow(streamed.endedAfterMillis, Infinity, "the server closed the connection")
  assert.isAtMost(streamed.read, 1_000_000, `the server read ${streamed.read} bytes`)
}

const json = { "Content-Type": "application/json" }

/** Whether `received` holds a whole final response (any `100 Continue` before it skipped): its head and its `Content-Length` body. */
const answered = (received: string): boolean => {
  const final = received.replace(/^(HTTP\/1\.1 100 Continue\r\n\r\n)+/, "")
  const headEnd = final.indexOf("\r\n\r\n")
  if (headEnd < 0 || final.startsWith("HTTP/1.1 100 ")) return false
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(final.slice(0, headEnd))?.[1] ?? 0)
  return Buffer.byteLength(final.slice(headEnd + 4), "latin1") >= length
}

/**
 * A raw request on its own connection; resolves with everything received once a whole final
 * response has come, or the server closes the connection (or `giveUpMillis` pass).
 */
const exchange = (url: string, write: (send: (text: string) => void, received: () => string) => void) =>
  Effect.promise(() =>
    new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1")
      let received = ""
      const done = () => {
        clearTimeout(giveUp)
        socket.destroy()
        resolve(received)
      }
      const giveUp = setTimeout(done, giveUpMillis)
      socket.on("data", (data) => {
        received += data.toString("latin1")
        if (answered(received)) return done()
        write((text) => socket.write(text), () => received)
      })
      socket.on("close", done)
      write((text) => socket.write(text), () => received)
    })
  )

layer(TestServer.layer())("a refused request's body is not read", (it) => {
  it.effect("an unauthenticated chunked upload is answered 401 and cut within a second, having sent at most 1 MB", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer.TestServer
      assertCut(yield* stream(url, chunkedHead("/v1/messaging/messages", json)), 401)
    }))

  it.effect("an upload with a key that lacks the permission is answered 403 and cut", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer.TestServer
      const reader = yield* TestAccounts.newCaller({ permissions: ["messaging:read"] })
      assertCut(
        yield* stream(url, chunkedHead("/v1/messaging/messages", { ...json, Authorization: `Bearer ${reader.key}` })),
        403
      )
    }))

  it.effect("an upload that is not JSON is answered 415 and cut", () =>
    Effect.gen(function*() {
      const { main, url } = yield* TestServer.TestServer
      assertCut(
        yield* stream(
          url,
          chunkedHead("/v1/messaging/messages", { "Content-Type": "text/plain", Authorization: `Bearer ${main.key}` })
        ),
        415
      )
    }))

  it.effect("an upload that says it is too large is answered 413 and cut", () =>
    Effect.gen(function*() {
      const { main, url } = yield* TestServer.TestServer
      const head = "POST /v1/messaging/messages HTTP/1.1\r\nHost: sendline.test\r\nContent-Type: application/json\r\n" +
        `Authorization: Bearer ${main.key}\r\nContent-Length: 10000000000\r\n\r\n`
      const streamed = yield* stream(url, head)
      assertCut(streamed, 413)
    }))

  it.effect("an endless upload with a valid key is read up to 16 × 64 KiB, then its connection is cut unanswered", () =>
    Effect.gen(function*() {
      const { main, url } = yield* TestServer.TestServer
      const streamed = yield* stream(
        url,
        chunkedHead("/v1/messaging/messages", { ...json, Authorization: `Bearer ${main.key}` })
      )
      assert.strictEqual(streamed.answer, "")
      assert.isBelow(streamed.endedAfterMillis, Infinity, "the connection was cut")
      assert.isAtLeast(streamed.sent, 16 * 64 * 1024, `the client sent ${streamed.sent} bytes`)
    }))

  it.effect("Expect: 100-continue with an unknown key: 401 at once, no 100 Continue, the connection closed", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer.TestServer
      const received = yield* exchange(url, (send, received) => {
        if (received() === "") {
          send(
            "POST /v1/messaging/messages HTTP/1.1\r\nHost: sendline.test\r\nContent-Type: application/json\r\n" +
              `Authorization: Bearer sk_${"0".repeat(40)}\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`
          )
        }
      })
      assert.match(received, /^HTTP\/1\.1 401 /, received)
      assert.notInclude(received, "100 Continue")
      assert.match(received, /\r\nconnection: close\r\n/i)
    }))

  it.effect("Expect: 100-continue with a valid key: 100 Continue, then the body, then 201 on a connection kept open", () =>
    Effect.gen(function*() {
      const { main, url } = yield* TestServer.TestServer
      const body = JSON.stringify(TestMessages.validSend)
      let sentBody = false
      const received = yield* exchange(url, (send, received) => {
        if (received() === "") {
          send(
            "POST /v1/messaging/messages HTTP/1.1\r\nHost: sendline.test\r\nContent-Type: application/json\r\n" +
              `Authorization: Bearer ${main.key}\r\nContent-Length: ${
                Buffer.byteLength(body)
              }\r\nExpect: 100-continue\r\n\r\n`
          )
        } else if (!sentBody && received().startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
          sentBody = true
          send(body)
        }
      })
      assert.match(received, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /, received)
      assert.notMatch(received, /\r\nconnection: close\r\n/i, "a request whose body was read keeps its connection")
    }))

  it.effect("a refusal of a request without a body keeps its connection", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer.TestServer
      const received = yield* exchange(url, (send, received) => {
        if (received() === "") send("GET /v1/messaging/messages HTTP/1.1\r\nHost: sendline.test\r\n\r\n")
      })
      assert.match(received, /^HTTP\/1\.1 401 /, received)
      assert.notMatch(received, /\r\nconnection: close\r\n/i)
    }))
})
