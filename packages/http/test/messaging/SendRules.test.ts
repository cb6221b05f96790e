import { assert, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const iso = (millis: number) => new Date(millis).toISOString()
const hour = 3_600_000
const day = 24 * hour

/** Each 422 of CONTRACT §3: a name, the fields that break the rule (over a valid request), code and field. */
const violations = (now: number): ReadonlyArray<readonly [string, Record<string, unknown>, string, string]> => [
  ["lowercase market", { market: "au" }, "invalid_market", "market"],
  ["three-letter market", { market: "AUS" }, "invalid_market", "market"],
  ["reserved code, not a country: UK (GB is)", { market: "UK" }, "invalid_market", "market"],
  ["user-assigned code XX", { market: "XX" }, "invalid_market", "market"],
  [
    "market of a known country that is not configured",
    { market: "US", to: "+14155552671" },
    "unsupported_market",
    "market"
  ],
  ["recipient not in E.164", { to: "0412345678" }, "invalid_phone_number", "to"],
  ["recipient with spaces", { to: "+61 412 345 678" }, "invalid_phone_number", "to"],
  ["recipient invalid for the AU numbering plan", { to: "+61123456789" }, "invalid_phone_number", "to"],
  ["recipient keeping the trunk prefix 0", { to: "+610412345678" }, "invalid_phone_number", "to"],
  ["AU landline", { to: "+61298765432" }, "not_a_mobile_number", "to"],
  ["NZ mobile sent in market AU", { to: "+64211234567" }, "phone_market_mismatch", "to"],
  ["Sender ID of 12 characters", { sender_id: "ABCDEFGHIJKL" }, "invalid_sender_id", "sender_id"],
  ["Sender ID without a letter", { sender_id: "12345" }, "invalid_sender_id", "sender_id"],
  ["Sender ID with a leading space", { sender_id: " Acme" }, "invalid_sender_id", "sender_id"],
  ["Sender ID with a trailing space", { sender_id: "Acme " }, "invalid_sender_id", "sender_id"],
  ["Sender ID with punctuation", { sender_id: "Acme!" }, "invalid_sender_id", "sender_id"],
  ["empty Sender ID", { sender_id: "" }, "invalid_sender_id", "sender_id"],
  ["Sender ID registered to nobody", { sender_id: "Nobody" }, "sender_id_not_registered", "sender_id"],
  ["Sender ID registered to another account", { sender_id: "Sendline" }, "sender_id_not_registered", "sender_id"],
  ["Sender ID in another case", { sender_id: "ACME" }, "sender_id_not_registered", "sender_id"],
  ["empty body", { body: "" }, "empty_body", "body"],
  ["body of 11 GSM-7 segments", { body: "a".repeat(153 * 10 + 1) }, "body_too_long", "body"],
  ["body of 11 UCS-2 segments", { body: "ж".repeat(67 * 10 + 1) }, "body_too_long", "body"],
  ["reference of 256 characters", { reference: "r".repeat(256) }, "reference_too_long", "reference"],
  ["callback_url over http", { callback_url: "http://example.com/hook" }, "invalid_callback_url", "callback_url"],
  ["callback_url on localhost", { callback_url: "https://localhost/hook" }, "invalid_callback_url", "callback_url"],
  [
    "callback_url on a private address",
    { callback_url: "https://10.1.2.3/hook" },
    "invalid_callback_url",
    "callback_url"
  ],
  ["callback_url that is not a URL", { callback_url: "example.com/hook" }, "invalid_callback_url", "callback_url"],
  [
    "callback_url without a webhook subscription",
    { callback_url: "https://example.com/hook" },
    "no_signing_secret",
    "callback_url"
  ],
  ["scheduled_at an hour ago", { scheduled_at: iso(now - hour) }, "schedule_in_past", "scheduled_at"],
  ["scheduled_at now", { scheduled_at: iso(now) }, "schedule_in_past", "scheduled_at"],
  ["scheduled_at 8 days ahead", { scheduled_at: iso(now + 8 * day) }, "schedule_too_far", "scheduled_at"],
  ["scheduled_at 7 days and 1 ms ahead", { scheduled_at: iso(now + 7 * day + 1) }, "schedule_too_far", "scheduled_at"]
]

layer(TestServer.layer())("POST /v1/messaging/messages: 422 rules (CONTRACT §3)", (it) => {
  it("the AU landline of these tests is a fixed line, the NZ number a mobile", () => {
    assert.strictEqual(parsePhoneNumberFromString("+61298765432")?.getType(), "FIXED_LINE")
    assert.strictEqual(parsePhoneNumberFromString("+64211234567")?.getType(), "MOBILE")
    assert.strictEqual(parsePhoneNumberFromString("+64211234567")?.country, "NZ")
  })

  it.effect("every rule answers 422 with its code and field, and creates nothing", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      for (const [name, fields, code, field] of violations(now)) {
        const reply = yield* TestMessages.send({ ...TestMessages.validSend, ...fields }, { key: caller.key })
        assert.strictEqual(reply.status, 422, `${name}: ${reply.text}`)
        Replies.assertError(reply, 422, code, field)
        assert.isString(reply.json.error.message)
      }
      const listed = yield* TestMessages.list({}, { key: caller.key })
      assert.deepStrictEqual(listed.json.data, [])
    }))

  it.effect("a Sender ID breaking AU's Sender ID rules (ACMA's) is 422 invalid_sender_id naming the rule; NZ keeps §3's", () =>
    Effect.gen(function*() {
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      for (
        const [senderId, rule] of [
          ["A", "at least 2 characters in AU"],
          ["UNVERIFIED", "must not contain the word unverified"],
          ["Bank Alert", "must not consist only of restricted generic words in AU"]
        ] as const
      ) {
        const reply = yield* TestMessages.send({ ...TestMessages.validSend, sender_id: senderId }, { key: caller.key })
        Replies.assertError(reply, 422, "invalid_sender_id", "sender_id")
        assert.include(reply.json.error.message, rule, senderId)
      }
      const nz = yield* TestMessages.send({
        ...TestMessages.validSend,
        sender_id: "Alert",
        to: "+64211234567",
        market: "NZ"
      }, { key: caller.key })
      Replies.assertError(nz, 422, "sender_id_not_registered", "sender_id")
    }))

  it.effect("a Sender ID registered for another market of the same account is not registered here", () =>
    Effect.gen(function*() {
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, to: "+64211234567", market: "NZ" }, {
        key: caller.key
      })
      Replies.assertError(reply, 422, "sender_id_not_registered", "sender_id")
      assert.include(reply.json.error.message, "NZ")
    }))

  it.effect("checks run in CONTRACT order: each request breaks every later rule too, and reports the first", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const broken: ReadonlyArray<readonly [string, unknown, string]> = [
        ["market", "au", "invalid_market"],
        ["to", "0412 345 678", "invalid_phone_number"],
        ["sender_id", "Acme!", "invalid_sender_id"],
        ["body", "", "empty_body"],
        ["reference", "r".repeat(256), "reference_too_long"],
        ["callback_url", "http://localhost/hook", "invalid_callback_url"],
        ["scheduled_at", iso(now - hour), "schedule_in_past"]
      ]
      for (let i = 0; i < broken.length; i++) {
        const request: Record<string, unknown> = { ...TestMessages.validSend }
        for (const [field, value] of broken.slice(i)) request[field] = value
        const reply = yield* TestMessages.send(request)
        Replies.assertError(reply, 422, broken[i]![2], broken[i]![0])
      }
    }))

  it.effect("within a field and between neighbours, the earlier rule wins", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ market: "AUS", to: "not a number" }, "invalid_market"],
        [{ market: "US", to: "not a number" }, "unsupported_market"],
        [{ to: "+61298765432", sender_id: " bad" }, "not_a_mobile_number"],
        [{ to: "+64211234567", sender_id: "Nobody" }, "phone_market_mismatch"],
        [{ sender_id: "Nobody", body: "" }, "sender_id_not_registered"],
        [{ body: "a".repeat(2000), reference: "r".repeat(300) }, "body_too_long"],
        [{ callback_url: "https://example.com/hook", scheduled_at: iso(now + 30 * day) }, "no_signing_secret"],
        [{ reference: "r".repeat(256), callback_url: "https://example.com/hook" }, "reference_too_long"]
      ]
      for (const [fields, code] of cases) {
        const reply = yield* TestMessages.send({ ...TestMessages.validSend, ...fields })
        Replies.assertError(reply, 422, code)
      }
    }))

  it.effect("the shape is checked before any rule: wrong types are 400, not 422", () =>
    Effect.gen(function*() {
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, market: "au", to: 61412345678 })
      Replies.assertError(reply, 400, "invalid_request", "to")
    }))

  it.effect("limits are inclusive: 255-character reference and 1 ms ahead are accepted", () =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const reply = yield* TestMessages.send({
        ...TestMessages.validSend,
        reference: "r".repeat(255),
        scheduled_at: iso(now + 1)
      })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.strictEqual(reply.json.data.reference.length, 255)
    }))
})
