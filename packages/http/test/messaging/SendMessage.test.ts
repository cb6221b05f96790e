import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { MessageJson, Timestamp } from "@sendline/core"
import { Clock, Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const messageId = /^msg_[0-9a-hjkmnp-tv-z]{26}$/

layer(TestServer.layer())("POST /v1/messaging/messages", (it) => {
  it.effect("201: a queued message in full form, priced, with the request id in header and meta", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, reference: "order-42" })
      assert.strictEqual(reply.status, 201, reply.text)
      Replies.assertMeta(reply)
      const { data, meta } = Replies.decode(Envelope.Envelope(MessageJson.MessageFull), reply.json)
      assert.match(data.id, messageId)
      assert.deepStrictEqual({ ...data, id: "" }, {
        id: "",
        status: "queued",
        to: "+61412345678",
        sender_id: "Acme",
        body: "Hello from Acme",
        segments: 1,
        encoding: "GSM-7",
        market: "AU",
        reference: "order-42",
        price: { amount: "0.0500", currency: "AUD" },
        created_at: Timestamp.format(now)
      })
      assert.strictEqual(meta.timestamp, Timestamp.format(now))
      assert.strictEqual(reply.json.ok, true)

      const fetched = yield* Http.request("GET", `/v1/messaging/messages/${data.id}`)
      assert.strictEqual(fetched.status, 200)
      Replies.assertMeta(fetched)
      assert.deepStrictEqual(Replies.decode(Envelope.Envelope(MessageJson.MessageFull), fetched.json).data, data)
      assert.notStrictEqual(fetched.json.meta.request_id, meta.request_id)
    }))

  it.effect("without a reference, reference is null; unknown fields are ignored", () =>
    Effect.gen(function*() {
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, colour: "blue", reference: null })
      assert.strictEqual(reply.status, 201, reply.text)
      const { data } = Replies.decode(Envelope.Envelope(MessageJson.MessageFull), reply.json)
      assert.strictEqual(data.reference, null)
      assert.isFalse("colour" in reply.json.data)
    }))

  it.effect("price is segments × the market's rate, with 4 decimals", () =>
    Effect.gen(function*() {
      const cases = [
        {
          market: "AU",
          to: "+61412345678",
          body: "a".repeat(160),
          segments: 1,
          encoding: "GSM-7",
          price: ["0.0500", "AUD"]
        },
        {
          market: "AU",
          to: "+61412345678",
          body: "a".repeat(161),
          segments: 2,
          encoding: "GSM-7",
          price: ["0.1000", "AUD"]
        },
        {
          market: "NZ",
          to: "+64211234567",
          body: "Kia ora 😀",
          segments: 1,
          encoding: "UCS-2",
          price: ["0.0600", "NZD"]
        },
        {
          market: "SG",
          to: "+6591234567",
          body: "é".repeat(153 * 9 + 1),
          segments: 10,
          encoding: "GSM-7",
          price: ["0.4000", "SGD"]
        },
        {
          market: "GB",
          to: "+447400123456",
          body: "“quoted”".repeat(20),
          segments: 3,
          encoding: "UCS-2",
          price: ["0.1050", "GBP"]
        }
      ] as const
      for (const c of cases) {
        const reply = yield* TestMessages.send({ ...TestMessages.validSend, to: c.to, market: c.market, body: c.body })
        assert.strictEqual(reply.status, 201, reply.text)
        const { data } = Replies.decode(Envelope.Envelope(MessageJson.MessageFull), reply.json)
        assert.deepStrictEqual(
          [data.market, data.segments, data.encoding, data.price],
          [c.market, c.segments, c.encoding, { amount: c.price[0], currency: c.price[1] }]
        )
      }
    }))

  it.effect("10 segments is the most a message may have", () =>
    Effect.gen(function*() {
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, body: "a".repeat(153 * 10) })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.strictEqual(reply.json.data.segments, 10)
      assert.strictEqual(reply.json.data.price.amount, "0.5000")
    }))

  it.effect("with scheduled_at: status scheduled, scheduled_at echoed as UTC +00:00 with milliseconds", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const at = now + 26 * 3_600_000 + 500
      const local = new Date(at + 2 * 3_600_000).toISOString().replace(".500Z", ".5+02:00")
      assert.match(local, /T\d{2}:\d{2}:\d{2}\.5\+02:00$/)
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, scheduled_at: local })
      assert.strictEqual(reply.status, 201, reply.text)
      Replies.assertMeta(reply)
      const { data } = Replies.decode(Envelope.Envelope(MessageJson.MessageFull), reply.json)
      assert.strictEqual(data.status, "scheduled")
      assert.strictEqual(data.scheduled_at, Timestamp.format(at))
      assert.match(data.scheduled_at!, Replies.timestampPattern)
      assert.strictEqual(data.created_at, Timestamp.format(now))
    }))

  it.effect("scheduled_at may be 1 ms ahead, and exactly 7 days ahead", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const at of [now + 1, now + 7 * 86_400_000]) {
        const reply = yield* TestMessages.send({ ...TestMessages.validSend, scheduled_at: new Date(at).toISOString() })
        assert.strictEqual(reply.status, 201, reply.text)
        assert.strictEqual(reply.json.data.scheduled_at, Timestamp.format(at))
      }
    }))
})
