import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const jsonHeaders = { "content-type": "application/json" }

/** A POST whose body goes out in chunks, without Content-Length. */
const chunkedPost = (path: string, chunks: ReadonlyArray<string | Uint8Array>) =>
  Effect.flatMap(TestServer.TestServer, (server) =>
    Effect.async<Http.Reply>((resume) => {
      const req = httpRequest(server.url + path, {
        method: "POST",
        headers: { ...jsonHeaders, authorization: `Bearer ${server.main.key}` }
      }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => {
          const headers = new Headers()
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === "string") headers.set(name, value)
          }
          resume(Effect.succeed({ status: res.statusCode!, headers, text, json: JSON.parse(text) }))
        })
      })
      req.on("error", (error) => resume(Effect.die(error)))
      for (const chunk of chunks) req.write(chunk)
      req.end()
    }))

layer(TestServer.layer())("malformed requests", (it) => {
  it.effect("400 invalid_request: bad JSON", () =>
    Effect.gen(function*() {
      for (const body of ["{", "{\"to\": }", "not json", ""]) {
        const reply = yield* Http.request("POST", "/v1/messaging/messages", { body, headers: jsonHeaders })
        Replies.assertError(reply, 400, "invalid_request")
      }
    }))

  it.effect("400 invalid_request: a JSON body that is not an object", () =>
    Effect.gen(function*() {
      for (const json of [[], "hello", 42, null, true, [TestMessages.validSend]]) {
        const reply = yield* TestMessages.send(json)
        Replies.assertError(reply, 400, "invalid_request")
        assert.strictEqual(reply.json.error.message, "The request body: Expected a JSON object.")
      }
    }))

  it.effect("400 invalid_request: a body nested deeper than 32 levels is refused before it is decoded", () =>
    Effect.gen(function*() {
      const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
      for (const body of [nested(3000), `{"body":${nested(6000)}}`, `{"body":${nested(32)}}`.replace("[", "[[")]) {
        const reply = yield* Http.request("POST", "/v1/messaging/preview", { body, headers: jsonHeaders })
        Replies.assertError(reply, 400, "invalid_request")
        assert.include(reply.json.error.message, "more than 32 deep")
      }
      // 32 levels decode as usual (here: the wrong type), brackets inside strings do not count
      Replies.assertError(
        yield* Http.request("POST", "/v1/messaging/preview", { body: `{"body":${nested(31)}}`, headers: jsonHeaders }),
        400,
        "invalid_request",
        "body"
      )
      const quoted = { body: "[[[[".repeat(20) + "\\\"{{{{".repeat(20), market: "AU" }
      assert.strictEqual(
        (yield* Http.request("POST", "/v1/messaging/preview", { body: JSON.stringify(quoted), headers: jsonHeaders }))
          .status,
        200
      )
    }))

  it.effect("400 invalid_request: a refused value is quoted in at most 160 characters", () =>
    Effect.gen(function*() {
      const reply = yield* TestMessages.send({
        ...TestMessages.validSend,
        market: Array.from({ length: 3000 }, () => "AU")
      })
      Replies.assertError(reply, 400, "invalid_request", "market")
      assert.isAtMost(reply.json.error.details[0].issue.length, 160)
      assert.isBelow(reply.text.length, 1000)
    }))

  it.effect("400 invalid_request: wrong JSON types, each field in details", () =>
    Effect.gen(function*() {
      const reply = yield* TestMessages.send({
        ...TestMessages.validSend,
        to: 61412345678,
        body: ["Hello"],
        reference: 7
      })
      Replies.assertError(reply, 400, "invalid_request", null)
      assert.deepStrictEqual(reply.json.error.details.map((d: { field: string }) => d.field), [
        "to",
        "body",
        "reference"
      ])
      for (const detail of reply.json.error.details) assert.isString(detail.issue)
    }))

  it.effect("400 invalid_request: every missing field listed with its issue", () =>
    Effect.gen(function*() {
      const reply = yield* TestMessages.send({})
      Replies.assertError(reply, 400, "invalid_request", null)
      assert.deepStrictEqual(reply.json.error.details, [
        { field: "to", issue: "is missing" },
        { field: "sender_id", issue: "is missing" },
        { field: "body", issue: "is missing" },
        { field: "market", issue: "is missing" }
      ])
    }))

  it.effect("400 invalid_request: one missing field is also named in error.field", () =>
    Effect.gen(function*() {
      const { body: _, ...withoutBody } = TestMessages.validSend
      const reply = yield* TestMessages.send(withoutBody)
      Replies.assertError(reply, 400, "invalid_request", "body")
      assert.deepStrictEqual(reply.json.error.details, [{ field: "body", issue: "is missing" }])
    }))

  it.effect("400 invalid_request: scheduled_at that is not an RFC 3339 date-time", () =>
    Effect.gen(function*() {
      for (
        const scheduled_at of ["tomorrow", "2026-11-23", "2026-11-23 10:00:00", "2026-02-30T10:00:00Z", 1764000000]
      ) {
        Replies.assertError(
          yield* TestMessages.send({ ...TestMessages.validSend, scheduled_at }),
          400,
          "invalid_request",
          "scheduled_at"
        )
      }
    }))

  it.effect("404 not_found in the envelope for an unknown route, with or without a key", () =>
    Effect.gen(function*() {
      for (const key of [undefined, null]) {
        for (const path of ["/v1/nothing", "/v2/messaging/messages", "/", "/v1/messaging/messages/msg_x/uncancel"]) {
          Replies.assertError(yield* Http.request("GET", path, { key }), 404, "not_found")
        }
      }
    }))

  it.effect("405 method_not_allowed with Allow, on every known path", () =>
    Effect.gen(function*() {
      const cases = [
        ["DELETE", "/v1/messaging/messages", ["GET", "POST"]],
        ["PUT", "/v1/messaging/messages", ["GET", "POST"]],
        ["PATCH", "/v1/messaging/messages/msg_01m810vyc09jy2ek42k9vc9z5b", ["GET"]],
        ["GET", "/v1/messaging/preview", ["POST"]],
        ["GET", "/v1/messaging/messages/msg_01m810vyc09jy2ek42k9vc9z5b/cancel", ["POST"]],
        ["POST", "/health", ["GET"]]
      ] as const
      for (const [method, path, allowed] of cases) {
        const reply = yield* Http.request(method, path)
        Replies.assertError(reply, 405, "method_not_allowed")
        assert.deepStrictEqual(reply.headers.get("allow")?.split(/,\s*/).sort(), [...allowed], `${method} ${path}`)
      }
    }))

  it.effect("an id the router cannot take (too long, badly escaped) is 404 for the method the path allows, never 405", () =>
    Effect.gen(function*() {
      const long = `msg_${"a".repeat(120)}`
      for (
        const [method, path] of [
          ["GET", `/v1/messaging/messages/${long}`],
          ["GET", "/v1/messaging/messages/msg_%ZZ"],
          ["POST", `/v1/messaging/messages/${long}/cancel`]
        ] as const
      ) {
        Replies.assertError(yield* Http.request(method, path), 404, "not_found")
      }
      Replies.assertError(yield* Http.request("PUT", `/v1/messaging/messages/${long}`), 405, "method_not_allowed")
    }))

  it.effect("paths match as written: another case or a doubled slash is 404", () =>
    Effect.gen(function*() {
      for (
        const path of [
          "/V1/MESSAGING/MESSAGES",
          "/v1/Messaging/messages",
          "//v1/messaging/messages",
          "/v1/messaging//messages",
          "/HEALTH"
        ]
      ) {
        Replies.assertError(yield* Http.request("GET", path), 404, "not_found")
      }
      assert.strictEqual((yield* Http.request("GET", "/v1/messaging/messages")).status, 200)
    }))

  it.effect("a trailing slash is served like the path without it, never a 405 for an allowed method", () =>
    Effect.gen(function*() {
      const reply = yield* Http.request("GET", "/v1/messaging/messages/")
      assert.notStrictEqual(reply.status, 405, reply.text)
      assert.include([200, 404], reply.status, reply.text)
      Replies.assertMeta(reply)
    }))

  it.effect("415 unsupported_media_type: a body that is not declared JSON", () =>
    Effect.gen(function*() {
      const body = JSON.stringify(TestMessages.validSend)
      const types = [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonx",
        "application/vnd.api+json",
        undefined
      ]
      for (const type of types) {
        // fetch labels a string body text/plain;charset=UTF-8 when no type is given
        const reply = yield* Http.request("POST", "/v1/messaging/messages", {
          body,
          ...(type === undefined ? {} : { headers: { "content-type": type } })
        })
        Replies.assertError(reply, 415, "unsupported_media_type")
      }
    }))

  it.effect("400 invalid_request: no body is JSON null, whatever Content-Type the request names", () =>
    Effect.gen(function*() {
      const types = [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/octet-stream"
      ]
      const unknownBrand = "/v1/brands/brand_01m810vyc01pfjhmv720etbcd0"
      const routes = [["POST", "/v1/messaging/messages"], ["PATCH", unknownBrand]] as const
      for (const [method, path] of routes) {
        for (const type of types) {
          const reply = yield* Http.request(method, path, { body: "", headers: { "content-type": type } })
          Replies.assertError(reply, 400, "invalid_request", null)
          assert.strictEqual(reply.json.error.message, "The request body: Expected a JSON object.", `${method} ${type}`)
        }
      }
    }))

  it.effect("application/json is accepted with parameters and in any case", () =>
    Effect.gen(function*() {
      for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"]) {
        const reply = yield* Http.request("POST", "/v1/messaging/messages", {
          body: JSON.stringify(TestMessages.validSend),
          headers: { "content-type": type }
        })
        assert.strictEqual(reply.status, 201, `${type}: ${reply.text}`)
      }
    }))

  it.effect("413 payload_too_large: a body over 64 KiB with Content-Length", () =>
    Effect.gen(function*() {
      const json = { ...TestMessages.validSend, body: "a".repeat(64 * 1024) }
      const reply = yield* TestMessages.send(json)
      Replies.assertError(reply, 413, "payload_too_large")
    }))

  it.effect("a body of exactly 64 KiB is read (and refused by the segment rule, not by size)", () =>
    Effect.gen(function*() {
      const empty = JSON.stringify({ ...TestMessages.validSend, body: "" })
      const body = JSON.stringify({ ...TestMessages.validSend, body: "a".repeat(64 * 1024 - empty.length) })
      assert.strictEqual(Buffer.byteLength(body), 64 * 1024)
      const reply = yield* Http.request("POST", "/v1/messaging/messages", { body, headers: jsonHeaders })
      Replies.assertError(reply, 422, "body_too_long", "body")
      const over = yield* Http.request("POST", "/v1/messaging/messages", { body: body + " ", headers: jsonHeaders })
      Replies.assertError(over, 413, "payload_too_large")
    }))

  it.effect("413 payload_too_large: a chunked body over 64 KiB without Content-Length", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ ...TestMessages.validSend, body: "a".repeat(80 * 1024) })
      const chunks = body.match(/[\s\S]{1,8192}/g)!
      const reply = yield* chunkedPost("/v1/messaging/messages", chunks)
      Replies.assertError(reply, 413, "payload_too_large")
    }))

  it.effect("a small chunked body is served normally", () =>
    Effect.gen(function*() {
      const body = JSON.stringify(TestMessages.validSend)
      const reply = yield* chunkedPost("/v1/messaging/messages", [body.slice(0, 10), body.slice(10)])
      assert.strictEqual(reply.status, 201, reply.text)
      Replies.assertMeta(reply)
    }))

  const utf8 = (text: string) => new TextEncoder().encode(text)
  const concat = (...parts: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(parts))

  it.effect("400 invalid_request: a body that is not valid UTF-8 is refused, never read with replacement characters", () =>
    Effect.gen(function*() {
      const [before, after] = JSON.stringify({ ...TestMessages.validSend, body: "caf\u0000" }).split("\\u0000")
      const bodies = [
        concat(utf8(before!), new Uint8Array([0xe9]), utf8(after!)), // é in ISO-8859-1
        concat(utf8(before!), new Uint8Array([0xf0, 0x9f, 0x98]), utf8(after!)), // an emoji cut short
        concat(utf8(before!), new Uint8Array([0xed, 0xa0, 0x80]), utf8(after!)) // a lone surrogate, encoded
      ]
      for (const body of bodies) {
        for (const headers of [jsonHeaders, { "content-type": "application/json; charset=iso-8859-1" }]) {
          const reply = yield* Http.request("POST", "/v1/messaging/messages", { body, headers })
          Replies.assertError(reply, 400, "invalid_request")
          assert.strictEqual(reply.json.error.message, "The request body is not valid UTF-8.")
        }
      }
    }))

  it.effect("400 invalid_request: a string escaping half of a surrogate pair, on any route, in any field", () =>
    Effect.gen(function*() {
      const send = { ...TestMessages.validSend, reference: "lone-surrogate" }
      const cases = [
        ["/v1/messaging/messages", { ...send, body: "x\ud83d" }], // JSON.stringify escapes it: "x\ud83d"
        ["/v1/messaging/messages", { ...send, body: "\udfffx" }],
        ["/v1/messaging/messages", { ...send, body: "\ud83d\ud83d\ude00" }],
        ["/v1/messaging/messages", { ...send, sender_id: "Acme\udc00" }],
        ["/v1/messaging/preview", { body: "a\ud800" }]
      ] as const
      for (const [path, payload] of cases) {
        const body = JSON.stringify(payload)
        assert.match(body, /\\ud[89a-f]/, "the test sends the escape itself")
        const reply = yield* Http.request("POST", path, { body, headers: jsonHeaders })
        Replies.assertError(reply, 400, "invalid_request")
        assert.include(reply.json.error.message, "half of a surrogate pair", body)
      }
      assert.strictEqual(
        (yield* TestMessages.list({ reference: "lone-surrogate" })).json.data.length,
        0,
        "nothing was stored"
      )
    }))

  it.effect("escaped pairs and escaped backslashes before u are read as written", () =>
    Effect.gen(function*() {
      for (
        const [escaped, text] of [
          ["caf\\u00e9 \\ud83d\\ude00", "café 😀"],
          ["\\\\ud83d", "\\ud83d"] // an escaped backslash, then the letters ud83d
        ] as const
      ) {
        const body = JSON.stringify(TestMessages.validSend).replace(
          "\"body\":\"Hello from Acme\"",
          `"body":"${escaped}"`
        )
        assert.notStrictEqual(body, JSON.stringify(TestMessages.validSend), "the test replaced the body")
        const reply = yield* Http.request("POST", "/v1/messaging/messages", { body, headers: jsonHeaders })
        assert.strictEqual(reply.status, 201, reply.text)
        assert.strictEqual(reply.json.data.body, text)
      }
    }))

  it.effect("UTF-8 is read as sent: a character split across chunks, a literal U+FFFD, a byte order mark", () =>
    Effect.gen(function*() {
      const text = "Café 😀 \uFFFD"
      const body = utf8(JSON.stringify({ ...TestMessages.validSend, body: text }))
      const split = body.indexOf(0xf0) + 2 // inside the emoji's four bytes
      const chunked = yield* chunkedPost("/v1/messaging/messages", [body.slice(0, split), body.slice(split)])
      assert.strictEqual(chunked.status, 201, chunked.text)
      assert.strictEqual(chunked.json.data.body, text)
      const withBom = yield* Http.request("POST", "/v1/messaging/messages", {
        body: concat(new Uint8Array([0xef, 0xbb, 0xbf]), body),
        headers: jsonHeaders
      })
      assert.strictEqual(withBom.status, 201, withBom.text)
      assert.strictEqual(withBom.json.data.body, text)
    }))
})
