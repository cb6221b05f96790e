/**
 * `POST /v1/messaging/batches` and `GET /v1/messaging/batches/{id}` (CONTRACT §13), on both stores:
 * each message checked as a send is, its placeholders filled first; the valid ones accepted together;
 * the answer in request order; the batch's counts by status as its messages move on.
 */
import { assert, layer } from "@effect/vitest"
import { Admin, Workers } from "@sendline/core"
import { CapturingTransport } from "@sendline/core/testing"
import { Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import * as TestWebhooks from "../support/TestWebhooks.js"

/** `POST /v1/messaging/batches` with `json`. */
const sendBatch = (json: unknown, options: Omit<Http.RequestOptions, "json"> = {}) =>
  Http.request("POST", "/v1/messaging/batches", { ...options, json })

/** `GET /v1/messaging/batches/{id}`. */
const getBatch = (id: string, options: Http.RequestOptions = {}) =>
  Http.request("GET", `/v1/messaging/batches/${id}`, options)

/** The AU mobile number ending in `n` (two digits). */
const phone = (n: number) => `+614123456${String(n).padStart(2, "0")}`

const defaults = { sender_id: "Acme", market: "AU", body: "Hi {{name}}, your code is {{code}}." }

/** A new caller with Sender ID Acme in AU. */
const sender = TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })

/** The bodies of `ids`' messages, read back one by one. */
const bodies = (key: string, ids: ReadonlyArray<string>) =>
  Effect.forEach(ids, (id) =>
    Effect.map(
      Http.request("GET", `/v1/messaging/messages/${id}`, { key }),
      (reply) => reply.json.data as { body: string; encoding: string; segments: number; price: { amount: string } }
    ))

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 120_000 })(`batches (${store.name})`, (it) => {
    it.effect("3 valid and 2 invalid → 201 with the 3 ids and the 2 errors in request order; GET counts them; list by batch_id", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        const reply = yield* sendBatch({
          defaults,
          messages: [
            { to: phone(1), variables: { name: "Ann", code: "1" } },
            { to: "+6112", variables: { name: "Bob", code: "2" } },
            { to: phone(3), variables: { name: "Cy", code: "3" } },
            { to: phone(4), variables: { name: "Di" } },
            { to: phone(5), variables: { name: "Ed", code: "5" }, reference: "own" }
          ]
        }, { key: caller.key })
        assert.strictEqual(reply.status, 201, reply.text)
        Replies.assertMeta(reply)
        const data = reply.json.data
        assert.match(data.id, /^bat_[0-9a-hjkmnp-tv-z]{26}$/)
        assert.deepStrictEqual([data.accepted, data.rejected], [3, 2])
        assert.deepStrictEqual(data.messages.map((m: { index: number }) => m.index), [0, 1, 2, 3, 4])
        assert.deepStrictEqual(data.messages[1].error.code, "invalid_phone_number")
        assert.deepStrictEqual(data.messages[1].error.field, "to")
        assert.deepStrictEqual(data.messages[3].error.code, "missing_variable")
        assert.include(data.messages[3].error.message, "{{code}}")
        const ids: Array<string> = [0, 2, 4].map((i) => data.messages[i].id)
        for (const i of [0, 2, 4]) assert.strictEqual(data.messages[i].status, "queued")
        assert.deepStrictEqual(
          (yield* bodies(caller.key, ids)).map((m) => m.body),
          ["Hi Ann, your code is 1.", "Hi Cy, your code is 3.", "Hi Ed, your code is 5."]
        )

        const got = yield* getBatch(data.id, { key: caller.key })
        assert.strictEqual(got.status, 200, got.text)
        assert.deepStrictEqual(got.json.data, {
          id: data.id,
          accepted: 3,
          rejected: 2,
          created_at: data.created_at,
          statuses: { scheduled: 0, queued: 3, sent: 0, delivered: 0, undelivered: 0, failed: 0, cancelled: 0 }
        })
        const listed = yield* Http.request("GET", `/v1/messaging/messages?batch_id=${data.id}`, { key: caller.key })
        assert.sameMembers(listed.json.data.map((m: { id: string }) => m.id), ids)
        const owned = yield* Http.request("GET", `/v1/messaging/messages?batch_id=${data.id}&reference=own`, {
          key: caller.key
        })
        assert.deepStrictEqual(owned.json.data.map((m: { id: string }) => m.id), [ids[2]])
        Replies.assertError(yield* getBatch(data.id), 404, "not_found") // another account's
        Replies.assertError(yield* getBatch("bat_01m810vyc01pfjhmv720etbcd0", { key: caller.key }), 404, "not_found")
      }))

    it.effect("none valid → 422 batch_rejected, one detail per message; nothing is written", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        const reply = yield* sendBatch({
          defaults: { sender_id: "Acme", market: "AU" },
          messages: [{ to: phone(1), body: "" }, { to: phone(2), body: "x", sender_id: "Nope" }, {
            to: phone(3),
            body: "{{a}}"
          }]
        }, { key: caller.key })
        Replies.assertError(reply, 422, "batch_rejected")
        assert.deepStrictEqual(reply.json.error.details, [
          { field: "messages[0].body", issue: "empty_body" },
          { field: "messages[1].sender_id", issue: "sender_id_not_registered" },
          { field: "messages[2].variables", issue: "missing_variable" }
        ])
        const listed = yield* Http.request("GET", "/v1/messaging/messages", { key: caller.key })
        assert.deepStrictEqual(listed.json.data, [])
      }))

    it.effect("shape: 0 or 1,001 messages, a wrong type in a message, a field missing in message and defaults → 400 naming it", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        Replies.assertError(yield* sendBatch({ messages: [] }, { key: caller.key }), 400, "invalid_request", "messages")
        const many = Array.from({ length: 1001 }, (_, i) => ({ to: phone(i % 100) }))
        Replies.assertError(
          yield* sendBatch({ defaults, messages: many }, { key: caller.key }),
          400,
          "invalid_request",
          "messages"
        )
        Replies.assertError(
          yield* sendBatch({ defaults, messages: [{ to: phone(1) }, { to: 61412345678 }] }, { key: caller.key }),
          400,
          "invalid_request",
          "messages[1].to"
        )
        const typed = yield* sendBatch({ defaults, messages: [{ to: phone(1), variables: { code: 1 } }] }, {
          key: caller.key
        })
        Replies.assertError(typed, 400, "invalid_request")
        assert.strictEqual(typed.json.error.details[0].field, "messages[0].variables.code")
        Replies.assertError(
          yield* sendBatch({ defaults: { market: "AU", body: "x" }, messages: [{ to: phone(1) }] }, {
            key: caller.key
          }),
          400,
          "invalid_request",
          "messages[0].sender_id"
        )
      }))

    it.effect("the route takes up to 1 MiB (1,000 messages of 600 bytes), not more (413); other routes keep 64 KiB", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        const messages = Array.from({ length: 1000 }, (_, i) => ({
          to: phone(i % 100),
          reference: `r${i}`,
          variables: { name: "x".repeat(500), code: String(i) }
        }))
        const big = yield* sendBatch({ defaults, messages }, { key: caller.key })
        assert.strictEqual(big.status, 201, big.text.slice(0, 500))
        assert.isAbove(JSON.stringify({ defaults, messages }).length, 512 * 1024)
        assert.deepStrictEqual([big.json.data.accepted, big.json.data.rejected], [1000, 0])
        const got = yield* getBatch(big.json.data.id, { key: caller.key })
        assert.strictEqual(got.json.data.statuses.queued, 1000)

        const tooBig = { defaults, messages: [{ to: phone(1), variables: { name: "x".repeat(1024 * 1024) } }] }
        Replies.assertError(yield* sendBatch(tooBig, { key: caller.key }), 413, "payload_too_large")
        Replies.assertError(
          yield* Http.request("POST", "/v1/messaging/preview", {
            key: caller.key,
            json: { body: "x".repeat(100 * 1024) }
          }),
          413,
          "payload_too_large"
        )
      }))

    it.effect("an Idempotency-Key covers the batch: replayed byte for byte, one batch; another request with it is 409", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        const headers = { "idempotency-key": "batch-1" }
        const body = { defaults, messages: [{ to: phone(1), variables: { name: "A", code: "1" } }, { to: "+1" }] }
        const first = yield* sendBatch(body, { key: caller.key, headers })
        assert.strictEqual(first.status, 201, first.text)
        const again = yield* sendBatch(body, { key: caller.key, headers })
        assert.strictEqual(again.text, first.text)
        assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
        const listed = yield* Http.request("GET", "/v1/messaging/messages", { key: caller.key })
        assert.strictEqual(listed.json.data.length, 1)
        Replies.assertError(
          yield* sendBatch({ ...body, messages: body.messages.slice(0, 1) }, { key: caller.key, headers }),
          409,
          "idempotency_conflict"
        )
      }))

    it.effect("defaults and per-message overrides; placeholders filled, repeated, beside braces; a filled body that turns UCS-2", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"], ["Other", "AU"], ["Acme", "NZ"]] })
        const reply = yield* sendBatch({
          defaults: { ...defaults, reference: "default-ref" },
          messages: [
            { to: phone(1), variables: { name: "Ann", code: "7" } },
            {
              to: phone(2),
              sender_id: "Other",
              reference: "mine",
              body: "{x} {{name}}{{name}} {{{code}}} {{ name }}",
              variables: { name: "Bo", code: "9" }
            },
            { to: "+64211234567", market: "NZ", body: "No placeholders {{}}" },
            { to: phone(4), variables: { name: "Zoë 😀", code: "1" } },
            { to: phone(5), scheduled_at: "2026-11-23T07:00:00.000+00:00", variables: { name: "Sam", code: "2" } }
          ]
        }, { key: caller.key })
        assert.strictEqual(reply.status, 201, reply.text)
        const results = reply.json.data.messages as Array<{ id: string; status: string }>
        assert.deepStrictEqual(results.map((r) => r.status), ["queued", "queued", "queued", "queued", "scheduled"])
        const read = yield* Effect.forEach(
          results,
          (r) =>
            Effect.map(Http.request("GET", `/v1/messaging/messages/${r.id}`, { key: caller.key }), (x) => x.json.data)
        )
        assert.deepStrictEqual(read.map((m) => m.body), [
          "Hi Ann, your code is 7.",
          "{x} BoBo {9} {{ name }}",
          "No placeholders {{}}",
          "Hi Zoë 😀, your code is 1.",
          "Hi Sam, your code is 2."
        ])
        assert.deepStrictEqual(read.map((m) => m.sender_id), ["Acme", "Other", "Acme", "Acme", "Acme"])
        assert.deepStrictEqual(read.map((m) => m.market), ["AU", "AU", "NZ", "AU", "AU"])
        assert.deepStrictEqual(read.map((m) => m.reference), [
          "default-ref",
          "mine",
          "default-ref",
          "default-ref",
          "default-ref"
        ])
        assert.deepStrictEqual(read.map((m) => m.encoding), ["GSM-7", "GSM-7", "GSM-7", "UCS-2", "GSM-7"])
        assert.strictEqual(read[4].scheduled_at, "2026-11-23T07:00:00.000+00:00")

        // the filled body's segments and price: 70 UCS-2 units fit one segment, 71 take two
        const ucs2 = yield* sendBatch({
          defaults: { sender_id: "Acme", market: "AU", body: "{{v}}" },
          messages: [{ to: phone(6), variables: { v: "é".repeat(70) + "€" } }, {
            to: phone(7),
            variables: { v: "€".repeat(70) }
          }]
        }, { key: caller.key })
        const [long, short] = yield* bodies(caller.key, ucs2.json.data.messages.map((m: { id: string }) => m.id))
        assert.deepStrictEqual([long!.encoding, long!.segments, long!.price.amount], ["GSM-7", 1, "0.0500"])
        assert.deepStrictEqual([short!.encoding, short!.segments, short!.price.amount], ["GSM-7", 1, "0.0500"])
        const turned = yield* sendBatch({
          defaults: { sender_id: "Acme", market: "AU", body: "{{v}}" },
          messages: [{ to: phone(8), variables: { v: "’".repeat(71) } }]
        }, { key: caller.key })
        const [curly] = yield* bodies(caller.key, [turned.json.data.messages[0].id])
        assert.deepStrictEqual([curly!.encoding, curly!.segments, curly!.price.amount], ["UCS-2", 2, "0.1000"])

        // preview takes variables too
        const preview = yield* Http.request("POST", "/v1/messaging/preview", {
          key: caller.key,
          json: { body: "{{v}}", market: "AU", variables: { v: "’".repeat(71) } }
        })
        assert.deepStrictEqual([preview.json.data.encoding, preview.json.data.segments], ["UCS-2", 2])
        Replies.assertError(
          yield* Http.request("POST", "/v1/messaging/preview", {
            key: caller.key,
            json: { body: "{{v}}", variables: {} }
          }),
          422,
          "missing_variable",
          "variables"
        )
      }))

    it.effect("opt-outs and the spending limit apply per message, in request order", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        const admin = yield* Admin.Admin
        yield* Effect.orDie(admin.setSpendingLimit({ accountId: caller.accountId, currency: "AUD", monthly: "0.15" }))
        const listed = yield* Http.request("POST", "/v1/opt-outs", { key: caller.key, json: { phone: phone(2) } })
        assert.strictEqual(listed.status, 201, listed.text)
        const reply = yield* sendBatch({
          defaults: { sender_id: "Acme", market: "AU", body: "x" },
          messages: [1, 2, 3, 4, 5, 6].map((n) => ({ to: phone(n), ...(n === 5 ? { body: "" } : {}) }))
        }, { key: caller.key })
        assert.strictEqual(reply.status, 201, reply.text)
        const codes = reply.json.data.messages.map((m: { status?: string; error?: { code: string } }) =>
          m.status ?? m.error!.code
        )
        assert.deepStrictEqual(codes, [
          "queued",
          "recipient_opted_out",
          "queued",
          "queued",
          "empty_body",
          "spending_limit_reached"
        ])
        assert.include(reply.json.data.messages[5].error.message, "0.1500 AUD")
        const usage = yield* Http.request("GET", "/v1/usage", { key: caller.key })
        assert.strictEqual(usage.json.data.spend[0].amount, "0.1500")
      }))

    it.effect("every message of a batch goes to delivered with its events and webhooks; the batch's counts follow", () =>
      Effect.gen(function*() {
        const caller = yield* sender
        yield* TestWebhooks.subscribe(caller, { events: ["message.queued", "message.sent", "message.delivered"] })
        const reply = yield* sendBatch({
          defaults: { sender_id: "Acme", market: "AU", body: "Hello {{n}}" },
          messages: [1, 2, 3].map((n) => ({ to: phone(n), variables: { n: String(n) } }))
        }, { key: caller.key })
        assert.strictEqual(reply.status, 201, reply.text)
        const id = reply.json.data.id as string
        const ids = reply.json.data.messages.map((m: { id: string }) => m.id) as Array<string>
        const statuses = Effect.map(getBatch(id, { key: caller.key }), (r) => r.json.data.statuses)
        // the earlier tests' messages are in the queue too: a pass takes a share of them
        for (let i = 0; i < 60 && (yield* statuses).delivered < 3; i++) {
          yield* TestClock.adjust("5 seconds")
          yield* Effect.orDie(Workers.runOnce)
        }
        assert.deepStrictEqual(yield* statuses, {
          scheduled: 0,
          queued: 0,
          sent: 0,
          delivered: 3,
          undelivered: 0,
          failed: 0,
          cancelled: 0
        })
        yield* TestWebhooks.deliver
        const posted = yield* (yield* CapturingTransport.CapturingTransport).requests
        const mine = posted.map((r) => JSON.parse(r.body) as { type: string; data: { id: string } })
          .filter((e) => ids.includes(e.data.id))
        for (const message of ids) {
          assert.sameMembers(
            mine.filter((e) => e.data.id === message).map((e) => e.type),
            ["message.queued", "message.sent", "message.delivered"]
          )
        }
      }))
  })
}
