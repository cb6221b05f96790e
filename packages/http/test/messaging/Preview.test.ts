import { assert, layer } from "@effect/vitest"
import { Envelope, MessagesJson } from "@sendline/api"
import { Effect } from "effect"
import type * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const previewData = (reply: Http.Reply) => {
  assert.strictEqual(reply.status, 200, reply.text)
  Replies.assertMeta(reply)
  return Replies.decode(Envelope.Envelope(MessagesJson.PreviewResult), reply.json).data
}

layer(TestServer.layer())("POST /v1/messaging/preview", (it) => {
  it.effect("a GSM-7 body: encoding, segments, characters, units per segment, no culprits; no price without a market", () =>
    Effect.gen(function*() {
      const data = previewData(yield* TestMessages.preview({ body: "Your code is 1234 {ok}" }))
      assert.deepStrictEqual(data, {
        encoding: "GSM-7",
        segments: 1,
        characters: 22,
        units_per_segment: 160,
        ucs2_characters: []
      })
      assert.isFalse("price" in (yield* TestMessages.preview({ body: "Hi", market: null })).json.data)
    }))

  it.effect("a curly quote forces UCS-2 and is named", () =>
    Effect.gen(function*() {
      const data = previewData(yield* TestMessages.preview({ body: "It’s ready", market: "AU" }))
      assert.deepStrictEqual(data, {
        encoding: "UCS-2",
        segments: 1,
        characters: 10,
        units_per_segment: 70,
        ucs2_characters: ["’"],
        price: { amount: "0.0500", currency: "AUD" },
        spend: { amount: "0.0000", limit: null, remaining: null }
      })
    }))

  it.effect("emoji are named once each, counted as one character, and split UCS-2 segments at 67", () =>
    Effect.gen(function*() {
      const body = "Party 🎉 at 8 🎉 “bring snacks” " + "x".repeat(60)
      const data = previewData(yield* TestMessages.preview({ body, market: "NZ" }))
      assert.strictEqual(data.encoding, "UCS-2")
      assert.deepStrictEqual(data.ucs2_characters, ["🎉", "“", "”"])
      assert.strictEqual(data.characters, [...body].length)
      assert.strictEqual(data.units_per_segment, 67)
      assert.strictEqual(data.segments, 2)
      assert.deepStrictEqual(data.price, { amount: "0.1200", currency: "NZD" })
    }))

  it.effect("the price follows the market: segments × rate, 4 decimals", () =>
    Effect.gen(function*() {
      const body = "a".repeat(161)
      const prices = []
      for (const market of ["AU", "NZ", "SG", "GB"]) {
        prices.push(previewData(yield* TestMessages.preview({ body, market })).price)
      }
      assert.deepStrictEqual(prices, [
        { amount: "0.1000", currency: "AUD" },
        { amount: "0.1200", currency: "NZD" },
        { amount: "0.0800", currency: "SGD" },
        { amount: "0.0700", currency: "GBP" }
      ])
    }))

  it.effect("a 20-segment body previews fine: the 10-segment limit is for sending", () =>
    Effect.gen(function*() {
      const data = previewData(yield* TestMessages.preview({ body: "a".repeat(153 * 20), market: "AU" }))
      assert.strictEqual(data.segments, 20)
      assert.deepStrictEqual(data.price, { amount: "1.0000", currency: "AUD" })
      Replies.assertError(
        yield* TestMessages.send({ ...TestMessages.validSend, body: "a".repeat(153 * 20) }),
        422,
        "body_too_long",
        "body"
      )
    }))

  it.effect("422 for a bad market: invalid_market, unsupported_market", () =>
    Effect.gen(function*() {
      Replies.assertError(yield* TestMessages.preview({ body: "Hi", market: "au" }), 422, "invalid_market", "market")
      Replies.assertError(yield* TestMessages.preview({ body: "Hi", market: "AUS" }), 422, "invalid_market", "market")
      Replies.assertError(
        yield* TestMessages.preview({ body: "Hi", market: "US" }),
        422,
        "unsupported_market",
        "market"
      )
    }))

  it.effect("400 for a bad shape", () =>
    Effect.gen(function*() {
      Replies.assertError(yield* TestMessages.preview({}), 400, "invalid_request", "body")
      Replies.assertError(yield* TestMessages.preview({ body: 42 }), 400, "invalid_request", "body")
      Replies.assertError(yield* TestMessages.preview({ body: "Hi", market: 61 }), 400, "invalid_request", "market")
    }))

  it.effect("sends nothing", () =>
    Effect.gen(function*() {
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      previewData(yield* TestMessages.preview({ body: "Hello", market: "AU" }, { key: caller.key }))
      assert.deepStrictEqual((yield* TestMessages.list({}, { key: caller.key })).json.data, [])
    }))
})
