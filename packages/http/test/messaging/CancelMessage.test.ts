import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { MessageJson } from "@sendline/core"
import { Clock, Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const cancel = (id: string, options: Http.RequestOptions = {}) =>
  Http.request("POST", `/v1/messaging/messages/${id}/cancel`, options)

const scheduleOne = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  const reply = yield* TestMessages.send({
    ...TestMessages.validSend,
    scheduled_at: new Date(now + 3_600_000).toISOString()
  })
  assert.strictEqual(reply.status, 201, reply.text)
  return Replies.decode(Envelope.Envelope(MessageJson.MessageFull), reply.json).data
})

layer(TestServer.layer())("POST /v1/messaging/messages/{id}/cancel", (it) => {
  it.effect("a scheduled message → 200 cancelled, full form; GET and the list agree", () =>
    Effect.gen(function*() {
      const scheduled = yield* scheduleOne
      const reply = yield* cancel(scheduled.id)
      assert.strictEqual(reply.status, 200, reply.text)
      Replies.assertMeta(reply)
      const { data } = Replies.decode(Envelope.Envelope(MessageJson.MessageFull), reply.json)
      assert.deepStrictEqual(data, { ...scheduled, status: "cancelled" })

      const fetched = yield* Http.request("GET", `/v1/messaging/messages/${scheduled.id}`)
      assert.strictEqual(fetched.json.data.status, "cancelled")
      const listed = yield* TestMessages.list({ status: "cancelled" })
      assert.deepStrictEqual(listed.json.data.map((m: { id: string }) => m.id), [scheduled.id])
    }))

  it.effect("a body that is not JSON → 400 invalid_request, though cancel reads none, and the message stays scheduled", () =>
    Effect.gen(function*() {
      const scheduled = yield* scheduleOne
      const reply = yield* cancel(scheduled.id, { body: "garbage", headers: { "content-type": "application/json" } })
      Replies.assertError(reply, 400, "invalid_request")
      assert.strictEqual(reply.json.error.message, "The request body is not valid JSON.")
      const fetched = yield* Http.request("GET", `/v1/messaging/messages/${scheduled.id}`)
      assert.strictEqual(fetched.json.data.status, "scheduled")
      assert.strictEqual(
        (yield* cancel(scheduled.id, { body: "{}", headers: { "content-type": "application/json" } })).status,
        200
      )
    }))

  it.effect("a queued message → 409 invalid_state_transition, and it stays queued", () =>
    Effect.gen(function*() {
      const queued = yield* TestMessages.send(TestMessages.validSend)
      const reply = yield* cancel(queued.json.data.id)
      Replies.assertError(reply, 409, "invalid_state_transition")
      assert.include(reply.json.error.message, "queued")
      const fetched = yield* Http.request("GET", `/v1/messaging/messages/${queued.json.data.id}`)
      assert.strictEqual(fetched.json.data.status, "queued")
    }))

  it.effect("cancelling twice → 409 invalid_state_transition the second time", () =>
    Effect.gen(function*() {
      const scheduled = yield* scheduleOne
      assert.strictEqual((yield* cancel(scheduled.id)).status, 200)
      const again = yield* cancel(scheduled.id)
      Replies.assertError(again, 409, "invalid_state_transition")
      assert.include(again.json.error.message, "cancelled")
    }))

  it.effect("concurrent cancels of one message: exactly one succeeds, the others are 409", () =>
    Effect.gen(function*() {
      const scheduled = yield* scheduleOne
      const replies = yield* Effect.all(Array.from({ length: 10 }, () => cancel(scheduled.id)), {
        concurrency: "unbounded"
      })
      assert.strictEqual(replies.filter((r) => r.status === 200).length, 1)
      for (const reply of replies.filter((r) => r.status !== 200)) {
        Replies.assertError(reply, 409, "invalid_state_transition")
      }
    }))

  it.effect("a body, if any, is ignored; it must still be JSON", () =>
    Effect.gen(function*() {
      const scheduled = yield* scheduleOne
      const text = yield* cancel(scheduled.id, { body: "please", headers: { "content-type": "text/plain" } })
      Replies.assertError(text, 415, "unsupported_media_type")
      const reply = yield* cancel(scheduled.id, { json: { reason: "changed my mind" } })
      assert.strictEqual(reply.status, 200, reply.text)
    }))
})
