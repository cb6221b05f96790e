import { assert, layer } from "@effect/vitest"
import { Admin } from "@sendline/core"
import { Clock, Effect, TestClock, TestServices } from "effect"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const assertUnauthenticated = (reply: Http.Reply) => {
  Replies.assertError(reply, 401, "unauthenticated")
  assert.strictEqual(reply.headers.get("www-authenticate"), "Bearer")
}

const inOneHour = (now: number) => new Date(now + 3_600_000).toISOString()

/** Bodies the envelope middleware refuses (400) once the key and its permission pass. */
const refusedBodies: ReadonlyArray<string | Uint8Array> = [
  "{",
  new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x7d]), // {"é"} in ISO-8859-1
  "[".repeat(40) + "]".repeat(40),
  "{\"body\":\"\\ud83d\"}"
]

layer(TestServer.layer())("authentication and permissions", (it) => {
  it.effect("401 with WWW-Authenticate: Bearer for a missing key, on every endpoint", () =>
    Effect.gen(function*() {
      const endpoints = [
        ["POST", "/v1/messaging/messages", TestMessages.validSend],
        ["POST", "/v1/messaging/preview", { body: "Hi" }],
        ["GET", "/v1/messaging/messages", undefined],
        ["GET", "/v1/messaging/messages/msg_01m810vyc09jy2ek42k9vc9z5b", undefined],
        ["POST", "/v1/messaging/messages/msg_01m810vyc09jy2ek42k9vc9z5b/cancel", undefined]
      ] as const
      for (const [method, path, json] of endpoints) {
        assertUnauthenticated(yield* Http.request(method, path, { key: null, json }))
      }
    }))

  it.effect("401 for a request with several Authorization headers, whichever comes first", () =>
    Effect.gen(function*() {
      const { main, url } = yield* TestServer.TestServer
      // fetch would join them into one header; node:http sends each on its own line
      const statusWith = (authorization: ReadonlyArray<string>) =>
        Effect.async<number>((resume) => {
          const req = httpRequest(`${url}/v1/messaging/messages`, {
            headers: ["host", new URL(url).host, ...authorization.flatMap((value) => ["authorization", value])]
          }, (res) => {
            res.resume().on("end", () => resume(Effect.succeed(res.statusCode!)))
          })
          req.on("error", (error) => resume(Effect.die(error)))
          req.end()
        })
      assert.strictEqual(yield* statusWith([`Bearer ${main.key}`]), 200)
      assert.strictEqual(yield* statusWith([`Bearer ${main.key}`, "Bearer sk_other"]), 401)
      assert.strictEqual(yield* statusWith([`Bearer ${main.key}`, `Bearer ${main.key}`]), 401)
    }))

  it.effect("401 for malformed keys and Authorization headers", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const headers = [
        "",
        "Bearer",
        "Bearer ",
        main.key,
        `Basic ${Buffer.from(`${main.key}:`).toString("base64")}`,
        "Bearer sk_short",
        `Bearer ${main.key}x`,
        `Bearer ${main.key.replace("sk_", "pk_")}`,
        `Bearer ${main.key.slice(0, -1)}!`,
        `Bearer ${main.key} extra`
      ]
      for (const authorization of headers) {
        assertUnauthenticated(
          yield* TestMessages.send(TestMessages.validSend, { key: null, headers: { authorization } })
        )
      }
    }))

  it.effect("the scheme is case-insensitive", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const reply = yield* TestMessages.list({}, { key: null, headers: { authorization: `bearer ${main.key}` } })
      assert.strictEqual(reply.status, 200, reply.text)
    }))

  it.effect("401 for a well-formed key that was never issued", () =>
    Effect.gen(function*() {
      assertUnauthenticated(yield* TestMessages.send(TestMessages.validSend, { key: "sk_" + "A1b2C3d4E5".repeat(4) }))
    }))

  it.effect("401 for an expired key; a key works until its expires_at, not at it", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const now = yield* Clock.currentTimeMillis
      const expiring = yield* TestAccounts.newKey(main.accountId, ["messaging:read"], now + 60_000)
      assert.strictEqual((yield* TestMessages.list({}, { key: expiring.key })).status, 200)
      yield* TestClock.adjust("59999 millis")
      assert.strictEqual((yield* TestMessages.list({}, { key: expiring.key })).status, 200)
      yield* TestClock.adjust("1 millis")
      assertUnauthenticated(yield* TestMessages.list({}, { key: expiring.key }))
    }))

  it.effect("401 for a revoked key, at once", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const caller = yield* TestAccounts.newKey(main.accountId, ["messaging:read"])
      assert.strictEqual((yield* TestMessages.list({}, { key: caller.key })).status, 200)
      yield* Effect.orDie((yield* Admin.Admin).revokeKey(caller.keyId))
      assertUnauthenticated(yield* TestMessages.list({}, { key: caller.key }))
      assert.strictEqual((yield* TestMessages.list()).status, 200, "other keys of the account still work")
    }))

  it.effect("authentication comes before body validation", () =>
    Effect.gen(function*() {
      assertUnauthenticated(yield* TestMessages.send({}, { key: null }))
      for (const body of refusedBodies) {
        for (const path of ["/v1/messaging/messages", "/v1/messaging/messages/msg_01m810vyc09jy2ek42k9vc9z5b/cancel"]) {
          assertUnauthenticated(
            yield* Http.request("POST", path, { key: null, body, headers: { "content-type": "application/json" } })
          )
        }
      }
    }))

  it.effect("a request refused for its key is answered before its body arrives: the body is never read", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer.TestServer
      const answer = yield* Effect.async<string>((resume) => {
        let received = ""
        const socket = connect(Number(new URL(url).port), "127.0.0.1", () =>
          // 60,000 bytes announced, 10 sent: a server waiting for the body would never answer
          socket.write(
            "POST /v1/messaging/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
              "Authorization: Bearer sk_live_unknown\r\nContent-Length: 60000\r\n\r\n{\"body\":\"x"
          ))
        socket.on("data", (chunk) => {
          received += chunk.toString("latin1")
          if (received.includes("\r\n\r\n")) {
            socket.destroy()
            resume(Effect.succeed(received))
          }
        })
        return Effect.sync(() => socket.destroy())
      }).pipe(Effect.timeout("20 seconds"), TestServices.provideLive)
      assert.match(answer, /^HTTP\/1\.1 401 /)
    }))

  it.effect("a refused body is 400 once the key and its permission pass, on a route that reads no payload too", () =>
    Effect.gen(function*() {
      for (const body of refusedBodies) {
        for (const path of ["/v1/messaging/messages", "/v1/messaging/messages/msg_01m810vyc09jy2ek42k9vc9z5b/cancel"]) {
          Replies.assertError(
            yield* Http.request("POST", path, { body, headers: { "content-type": "application/json" } }),
            400,
            "invalid_request"
          )
        }
      }
    }))

  it.effect("the permission comes before body validation: a read-only key is refused with 403 whatever it sends", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const reader = yield* TestAccounts.newKey(main.accountId, ["messaging:read"])
      const replies = [
        yield* TestMessages.send({}, { key: reader.key }),
        yield* TestMessages.preview({ body: 42 }, { key: reader.key }),
        ...(yield* Effect.forEach(
          refusedBodies,
          (body) =>
            Http.request("POST", "/v1/messaging/messages", {
              key: reader.key,
              body,
              headers: { "content-type": "application/json" }
            })
        ))
      ]
      for (const reply of replies) {
        Replies.assertError(reply, 403, "permission_denied")
        assert.include(reply.json.error.message, "messaging:send")
      }
    }))

  it.effect("403 permission_denied naming the permission: a read-only key cannot send, preview or cancel", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const owner = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      const scheduled = yield* TestMessages.send({ ...TestMessages.validSend, scheduled_at: inOneHour(now) }, {
        key: owner.key
      })
      const reader = yield* TestAccounts.newKey(owner.accountId, ["messaging:read"])
      const replies = [
        yield* TestMessages.send(TestMessages.validSend, { key: reader.key }),
        yield* TestMessages.preview({ body: "Hi" }, { key: reader.key }),
        yield* Http.request("POST", `/v1/messaging/messages/${scheduled.json.data.id}/cancel`, { key: reader.key })
      ]
      for (const reply of replies) {
        Replies.assertError(reply, 403, "permission_denied")
        assert.include(reply.json.error.message, "messaging:send")
      }
      const fetched = yield* Http.request("GET", `/v1/messaging/messages/${scheduled.json.data.id}`, {
        key: reader.key
      })
      assert.strictEqual(fetched.json.data.status, "scheduled", "the refused cancel changed nothing")
      assert.deepStrictEqual(
        (yield* TestMessages.list({}, { key: reader.key })).json.data.length,
        1,
        "nothing was sent"
      )
    }))

  it.effect("403 permission_denied naming the permission: a send-only key cannot read or list", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const sender = yield* TestAccounts.newKey(main.accountId, ["messaging:send"])
      const sent = yield* TestMessages.send(TestMessages.validSend, { key: sender.key })
      assert.strictEqual(sent.status, 201, sent.text)
      for (
        const reply of [
          yield* Http.request("GET", `/v1/messaging/messages/${sent.json.data.id}`, { key: sender.key }),
          yield* TestMessages.list({}, { key: sender.key })
        ]
      ) {
        Replies.assertError(reply, 403, "permission_denied")
        assert.include(reply.json.error.message, "messaging:read")
      }
    }))

  it.effect("cancelling needs messaging:send only", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const now = yield* Clock.currentTimeMillis
      const sender = yield* TestAccounts.newKey(main.accountId, ["messaging:send"])
      const scheduled = yield* TestMessages.send({ ...TestMessages.validSend, scheduled_at: inOneHour(now) }, {
        key: sender.key
      })
      const reply = yield* Http.request("POST", `/v1/messaging/messages/${scheduled.json.data.id}/cancel`, {
        key: sender.key
      })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.strictEqual(reply.json.data.status, "cancelled")
    }))

  it.effect("a key without any messaging permission is refused with 403, not 404", () =>
    Effect.gen(function*() {
      const { main } = yield* TestServer.TestServer
      const other = yield* TestAccounts.newKey(main.accountId, ["brands:read"])
      Replies.assertError(yield* TestMessages.list({}, { key: other.key }), 403, "permission_denied")
    }))

  it.effect("another account's message is 404 on GET and on cancel, like an unknown id, and stays as it was", () =>
    Effect.gen(function*() {
      const { demo } = yield* TestServer.TestServer
      const now = yield* Clock.currentTimeMillis
      const theirs = yield* TestMessages.send(
        { ...TestMessages.validSend, sender_id: "Sendline", scheduled_at: inOneHour(now) },
        { key: demo.key }
      )
      assert.strictEqual(theirs.status, 201, theirs.text)
      const id: string = theirs.json.data.id
      const unknown = "msg_" + "0".repeat(26)
      for (const target of [id, unknown, "nonsense"]) {
        Replies.assertError(yield* Http.request("GET", `/v1/messaging/messages/${target}`), 404, "not_found")
        Replies.assertError(yield* Http.request("POST", `/v1/messaging/messages/${target}/cancel`), 404, "not_found")
      }
      const still = yield* Http.request("GET", `/v1/messaging/messages/${id}`, { key: demo.key })
      assert.strictEqual(still.json.data.status, "scheduled")
      const ours = yield* TestMessages.list()
      assert.isFalse(ours.json.data.some((m: { id: string }) => m.id === id), "never listed to another account")
    }))
})
