import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { Idempotency, IdempotencyStore, MessageJson, MessagingConfig } from "@sendline/core"
import { Clock, Effect, Option, TestClock } from "effect"
import { request as httpRequest } from "node:http"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestIdempotency from "../support/TestIdempotency.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const withKey = (key: string, caller?: TestAccounts.Caller): Http.RequestOptions => ({
  headers: { "idempotency-key": key },
  ...(caller === undefined ? {} : { key: caller.key })
})

const freshCaller = TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })

/** The bytes a kept response takes, as JSON: its body, or what recomputes it. */
const keptBytes = (record: IdempotencyStore.IdempotencyRecord) =>
  Buffer.byteLength(JSON.stringify(Option.getOrThrow(record.response)))

const count = (caller: TestAccounts.Caller) =>
  Effect.map(TestMessages.list({}, { key: caller.key }), (reply) => reply.json.data.length as number)

layer(TestServer.layer())("Idempotency-Key", (it) => {
  it.effect("same key, same request: the first response replayed byte for byte, one message", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const first = yield* TestMessages.send(TestMessages.validSend, withKey("order-1", caller))
      assert.strictEqual(first.status, 201, first.text)
      assert.isNull(first.headers.get("idempotent-replayed"))
      yield* TestClock.adjust("1 hour")
      const second = yield* TestMessages.send(TestMessages.validSend, withKey("order-1", caller))
      assert.strictEqual(second.status, 201)
      assert.strictEqual(second.text, first.text)
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
      Replies.decode(Envelope.Envelope(MessageJson.MessageFull), second.json)
      Replies.assertMeta(second)
      assert.strictEqual(yield* count(caller), 1)
    }))

  it.effect("several Idempotency-Key headers: 400, nothing created (Node would have joined them into one key)", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer.TestServer
      const caller = yield* freshCaller
      const body = JSON.stringify(TestMessages.validSend)
      // fetch would join them into one header; node:http sends each on its own line
      const status = yield* Effect.async<number>((resume) => {
        const req = httpRequest(`${url}/v1/messaging/messages`, {
          method: "POST",
          headers: [
            "host",
            new URL(url).host,
            "authorization",
            `Bearer ${caller.key}`,
            "content-type",
            "application/json",
            "content-length",
            String(Buffer.byteLength(body)),
            "idempotency-key",
            "a",
            "idempotency-key",
            "b"
          ]
        }, (res) => res.resume().on("end", () => resume(Effect.succeed(res.statusCode!))))
        req.on("error", (error) => resume(Effect.die(error)))
        req.end(body)
      })
      assert.strictEqual(status, 400)
      assert.strictEqual(yield* count(caller), 0)
    }))

  it.effect("same key, different body or path: 409 idempotency_conflict, nothing created", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      assert.strictEqual((yield* TestMessages.send(TestMessages.validSend, withKey("k", caller))).status, 201)
      Replies.assertError(
        yield* TestMessages.send({ ...TestMessages.validSend, body: "Other" }, withKey("k", caller)),
        409,
        "idempotency_conflict"
      )
      Replies.assertError(
        yield* TestMessages.preview({ body: "Hi" }, withKey("k", caller)),
        409,
        "idempotency_conflict"
      )
      assert.strictEqual(yield* count(caller), 1)
    }))

  it.effect("20 concurrent identical requests with one key create exactly one message", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const replies = yield* Effect.all(
        Array.from({ length: 20 }, () => TestMessages.send(TestMessages.validSend, withKey("burst", caller))),
        { concurrency: "unbounded" }
      )
      const created = replies.filter((r) => r.status === 201)
      assert.isAtLeast(created.length, 1)
      assert.strictEqual(created.filter((r) => r.headers.get("idempotent-replayed") === null).length, 1)
      for (const reply of created) assert.strictEqual(reply.text, created[0]!.text)
      for (const reply of replies.filter((r) => r.status !== 201)) {
        Replies.assertError(reply, 409, "idempotency_in_progress")
      }
      assert.strictEqual(yield* count(caller), 1)
      const later = yield* TestMessages.send(TestMessages.validSend, withKey("burst", caller))
      assert.strictEqual(later.text, created[0]!.text)
    }))

  it.effect("keys are scoped per account: one key on two accounts makes two messages", () =>
    Effect.gen(function*() {
      const a = yield* freshCaller
      const b = yield* freshCaller
      const fromA = yield* TestMessages.send(TestMessages.validSend, withKey("shared", a))
      const fromB = yield* TestMessages.send(TestMessages.validSend, withKey("shared", b))
      assert.strictEqual(fromA.status, 201)
      assert.strictEqual(fromB.status, 201)
      assert.isNull(fromB.headers.get("idempotent-replayed"))
      assert.notStrictEqual(fromA.json.data.id, fromB.json.data.id)
      assert.deepStrictEqual([yield* count(a), yield* count(b)], [1, 1])
    }))

  it.effect("keys are shared by the keys of one account", () =>
    Effect.gen(function*() {
      const a = yield* freshCaller
      const other = yield* TestAccounts.newKey(a.accountId, ["messaging:send"])
      const first = yield* TestMessages.send(TestMessages.validSend, withKey("same-account", a))
      const second = yield* TestMessages.send(TestMessages.validSend, withKey("same-account", other))
      assert.strictEqual(second.text, first.text)
      assert.strictEqual(second.headers.get("idempotent-replayed"), "true")
    }))

  it.effect("a key of 1 to 255 printable characters is accepted; 256 characters or none is 400", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      assert.strictEqual(
        (yield* TestMessages.send(TestMessages.validSend, withKey("k".repeat(255), caller))).status,
        201
      )
      assert.strictEqual((yield* TestMessages.send(TestMessages.validSend, withKey("x", caller))).status, 201)
      Replies.assertError(
        yield* TestMessages.send(TestMessages.validSend, withKey("k".repeat(256), caller)),
        400,
        "invalid_request",
        "Idempotency-Key"
      )
      Replies.assertError(
        yield* TestMessages.send(TestMessages.validSend, withKey("é-key", caller)),
        400,
        "invalid_request",
        "Idempotency-Key"
      )
      assert.strictEqual(yield* count(caller), 2)
    }))

  it.effect("a request refused with 422 is kept: the retry replays the refusal byte for byte, another request is a conflict", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const first = yield* TestMessages.send({ ...TestMessages.validSend, body: "" }, withKey("refused", caller))
      Replies.assertError(first, 422, "empty_body")
      const retry = yield* TestMessages.send({ ...TestMessages.validSend, body: "" }, withKey("refused", caller))
      assert.strictEqual(retry.status, 422)
      assert.strictEqual(retry.text, first.text)
      assert.strictEqual(retry.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(retry.headers.get("x-request-id"), first.headers.get("x-request-id"))
      Replies.assertError(
        yield* TestMessages.send(TestMessages.validSend, withKey("refused", caller)),
        409,
        "idempotency_conflict"
      )
      assert.strictEqual(yield* count(caller), 0)
    }))

  it.effect("a body that does not decode (400) takes no key: the corrected request sends under it", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      Replies.assertError(
        yield* TestMessages.send({ ...TestMessages.validSend, to: 61412345678 }, withKey("undecoded", caller)),
        400,
        "invalid_request"
      )
      const fixed = yield* TestMessages.send(TestMessages.validSend, withKey("undecoded", caller))
      assert.strictEqual(fixed.status, 201, fixed.text)
      assert.isNull(fixed.headers.get("idempotent-replayed"))
    }))

  it.effect("cancel with a key: the retry replays the 200 instead of a 409", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const now = yield* Clock.currentTimeMillis
      const scheduled = yield* TestMessages.send(
        { ...TestMessages.validSend, scheduled_at: new Date(now + 3_600_000).toISOString() },
        { key: caller.key }
      )
      const path = `/v1/messaging/messages/${scheduled.json.data.id}/cancel`
      const first = yield* Http.request("POST", path, withKey("cancel-1", caller))
      const retry = yield* Http.request("POST", path, withKey("cancel-1", caller))
      assert.strictEqual(first.status, 200, first.text)
      assert.strictEqual(retry.status, 200)
      assert.strictEqual(retry.text, first.text)
      assert.strictEqual(retry.headers.get("idempotent-replayed"), "true")
      Replies.assertError(yield* Http.request("POST", path, { key: caller.key }), 409, "invalid_state_transition")
    }))

  it.effect("a crash between the message and its kept answer: over a minute later the retry answers that message", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const first = yield* TestMessages.send(TestMessages.validSend, withKey("crash-1", caller))
      assert.strictEqual(first.status, 201, first.text)
      // the message is written; the process dies before its answer is kept
      yield* TestIdempotency.crashBeforeKept(caller.accountId, "crash-1")

      Replies.assertError(
        yield* TestMessages.send(TestMessages.validSend, withKey("crash-1", caller)),
        409,
        "idempotency_in_progress"
      )
      yield* TestClock.adjust(Idempotency.abandonedAfterMillis)
      Replies.assertError(
        yield* TestMessages.send(TestMessages.validSend, withKey("crash-1", caller)),
        409,
        "idempotency_in_progress"
      )
      yield* TestClock.adjust(1)
      Replies.assertError(
        yield* TestMessages.send({ ...TestMessages.validSend, body: "Other" }, withKey("crash-1", caller)),
        409,
        "idempotency_conflict"
      )
      const retry = yield* TestMessages.send(TestMessages.validSend, withKey("crash-1", caller))
      assert.strictEqual(retry.status, 201, retry.text)
      assert.strictEqual(retry.json.data.id, first.json.data.id)
      assert.isNull(retry.headers.get("idempotent-replayed"))
      assert.strictEqual(yield* count(caller), 1)
      const replay = yield* TestMessages.send(TestMessages.validSend, withKey("crash-1", caller))
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replay.text, retry.text)
    }))

  it.effect("a preview too large to keep (~126 KB): the replay is the first response byte for byte, X-Request-Id too; its key keeps at most 16 KiB", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const preview = { body: TestMessages.cjkBody, market: "AU" }
      const first = yield* TestMessages.preview(preview, withKey("big-preview", caller))
      assert.strictEqual(first.status, 200, first.text.slice(0, 200))
      assert.isAbove(Buffer.byteLength(first.text), 120_000)
      assert.isNull(first.headers.get("idempotent-replayed"))
      yield* TestClock.adjust("1 hour")
      const replay = yield* TestMessages.preview(preview, withKey("big-preview", caller))
      assert.strictEqual(replay.status, 200)
      assert.isTrue(replay.text === first.text, "the replay is the first response byte for byte")
      assert.strictEqual(replay.headers.get("x-request-id"), first.headers.get("x-request-id"))
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      Replies.assertMeta(replay)
      const record = yield* TestIdempotency.kept(caller.accountId, "big-preview")
      assert.strictEqual(Option.getOrThrow(record.response)._tag, "Recompute")
      assert.isAtMost(keptBytes(record), Idempotency.maxKeptBytes)
    }))

  it.effect("a preview kept as what recomputes it, whose answer has changed since, is answered afresh, not as a replay", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const first = yield* TestMessages.preview({ body: TestMessages.cjkBody }, withKey("changed-preview", caller))
      // what a change of the answer (a market's price, a new version) looks like to the replay
      const record = yield* TestIdempotency.kept(caller.accountId, "changed-preview")
      const response = Option.getOrThrow(record.response)
      if (response._tag !== "Recompute") return assert.fail("kept as what recomputes it")
      yield* (yield* IdempotencyStore.IdempotencyStore).complete(record, { ...response, digest: "0".repeat(64) })
      const again = yield* TestMessages.preview({ body: TestMessages.cjkBody }, withKey("changed-preview", caller))
      assert.strictEqual(again.status, 200)
      assert.isNull(again.headers.get("idempotent-replayed"))
      assert.notStrictEqual(again.headers.get("x-request-id"), first.headers.get("x-request-id"))
      Replies.assertMeta(again)
      assert.deepStrictEqual(again.json.data, first.json.data)
    }))

  it.effect("an endpoint with effects is never computed again: a key of a cancel found as what recomputes it is a defect (500)", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const now = yield* Clock.currentTimeMillis
      const scheduled = yield* TestMessages.send({
        ...TestMessages.validSend,
        scheduled_at: new Date(now + 3_600_000).toISOString()
      }, { key: caller.key })
      const path = `/v1/messaging/messages/${scheduled.json.data.id}/cancel`
      assert.strictEqual((yield* Http.request("POST", path, withKey("cancel-recompute", caller))).status, 200)
      const record = yield* TestIdempotency.kept(caller.accountId, "cancel-recompute")
      const store = yield* IdempotencyStore.IdempotencyStore
      yield* store.complete(record, {
        _tag: "Recompute",
        status: 200,
        requestId: "req_x",
        answeredAt: now,
        digest: "0".repeat(64)
      })
      Replies.assertError(yield* Http.request("POST", path, withKey("cancel-recompute", caller)), 500, "internal_error")
    }))

  it.effect("a refusal quotes no long input: a 60 KB `to`, or a message id of the router's longest (100 characters), refused under a key and replayed in under 1 KiB", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const send = { ...TestMessages.validSend, to: "+" + "1".repeat(60_000) }
      const refused = yield* TestMessages.send(send, withKey("long-to", caller))
      Replies.assertError(refused, 422, "invalid_phone_number", "to")
      const replay = yield* TestMessages.send(send, withKey("long-to", caller))
      assert.strictEqual(replay.text, refused.text)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.isAtMost(Buffer.byteLength(refused.text), 1024)

      // a longer id matches no route (find-my-way's maxParamLength), and takes no key
      const path = `/v1/messaging/messages/${"%01".repeat(100)}/cancel`
      const missing = yield* Http.request("POST", path, withKey("long-id", caller))
      Replies.assertError(missing, 404, "not_found")
      assert.match(missing.json.error.message, /^No message \u0001/)
      const again = yield* Http.request("POST", path, withKey("long-id", caller))
      assert.strictEqual(again.text, missing.text)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      assert.isAtMost(Buffer.byteLength(missing.text), 1024)
    }))

  it.effect("a key is kept 24 hours, then reusable", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const first = yield* TestMessages.send(TestMessages.validSend, withKey("daily", caller))
      yield* TestClock.adjust("23 hours")
      assert.strictEqual((yield* TestMessages.send(TestMessages.validSend, withKey("daily", caller))).text, first.text)
      yield* TestClock.adjust(3_600_000 + 1)
      const next = yield* TestMessages.send(TestMessages.validSend, withKey("daily", caller))
      assert.strictEqual(next.status, 201)
      assert.isNull(next.headers.get("idempotent-replayed"))
      assert.notStrictEqual(next.json.data.id, first.json.data.id)
      assert.strictEqual(yield* count(caller), 2)
    }))
})

layer(TestServer.layer({ messaging: { maxSegments: MessagingConfig.mostSegments } }))(
  `Idempotency-Key with MAX_MESSAGE_SEGMENTS at its largest (${MessagingConfig.mostSegments})`,
  (it) => {
    it.effect("the largest answer of a send and of its cancel (every character escaped as \\u0001) is kept whole, under 16 KiB, and replayed byte for byte", () =>
      Effect.gen(function*() {
        // the longest Sender ID, a GB number, a body of the most segments and the longest reference,
        // each character of them written as six bytes of JSON
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Sendline 11", "GB"]] })
        const now = yield* Clock.currentTimeMillis
        const send = {
          to: "+447400123456",
          sender_id: "Sendline 11",
          market: "GB",
          body: "\u0001".repeat(67 * MessagingConfig.mostSegments),
          reference: "\u0001".repeat(255),
          scheduled_at: new Date(now + 3_600_000).toISOString()
        }
        const first = yield* TestMessages.send(send, withKey("largest", caller))
        assert.strictEqual(first.status, 201, first.text.slice(0, 300))
        assert.strictEqual(first.json.data.segments, MessagingConfig.mostSegments)
        const cancel = `/v1/messaging/messages/${first.json.data.id}/cancel`
        const cancelled = yield* Http.request("POST", cancel, withKey("largest-cancel", caller))
        assert.strictEqual(cancelled.status, 200, cancelled.text.slice(0, 300))
        for (
          const [reply, key, path] of [[first, "largest", undefined], [cancelled, "largest-cancel", cancel]] as const
        ) {
          // a margin for what a longer number or a dearer market would add
          assert.isAtMost(Buffer.byteLength(reply.text), Idempotency.maxKeptBytes - 512)
          const record = yield* TestIdempotency.kept(caller.accountId, key)
          assert.strictEqual(Option.getOrThrow(record.response)._tag, "Body")
          const replay = path === undefined
            ? yield* TestMessages.send(send, withKey(key, caller))
            : yield* Http.request("POST", path, withKey(key, caller))
          assert.strictEqual(replay.text, reply.text)
          assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
        }
      }))
  }
)
