/**
 * The opt-out endpoints of CONTRACT §12 on both stores: `POST /v1/opt-outs` (201, or 200 with the
 * entry unchanged), `GET /v1/opt-outs` (filters, cursor), `GET|DELETE /v1/opt-outs/{phone}`, their
 * permissions and tenancy; a send to a listed number refused, and a scheduled one failed before
 * dispatch; the CSV import (header, blanks, duplicates, bad lines, CRLF, BOM, 100,000 numbers,
 * 413, 415).
 */
import { assert, layer } from "@effect/vitest"
import { Envelope, OptOutsJson } from "@sendline/api"
import { Workers } from "@sendline/core"
import { Clock, Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

const add = (json: unknown, key: string) => Http.request("POST", "/v1/opt-outs", { key, json })
const path = (phone: string) => `/v1/opt-outs/${encodeURIComponent(phone)}`
const get = (phone: string, key: string) => Http.request("GET", path(phone), { key })
const remove = (phone: string, key: string) => Http.request("DELETE", path(phone), { key })
const list = (query: Record<string, string>, key: string) =>
  Http.request("GET", `/v1/opt-outs?${new URLSearchParams(query)}`, { key })
const importCsv = (body: string | Uint8Array, key: string, contentType = "text/csv") =>
  Http.request("POST", "/v1/opt-outs/import", { key, body, headers: { "content-type": contentType } })

const one = (reply: Http.Reply) => Replies.decode(Envelope.Envelope(OptOutsJson.OptOutJson), reply.json).data
const page = (reply: Http.Reply) => Replies.decode(Envelope.ListEnvelope(OptOutsJson.OptOutJson), reply.json)
const imported = (reply: Http.Reply) => {
  assert.strictEqual(reply.status, 200, reply.text)
  return Replies.decode(Envelope.Envelope(OptOutsJson.OptOutImport), reply.json).data
}

const now = Effect.map(Clock.currentTimeMillis, (t) => new Date(t).toISOString().replace("Z", "+00:00"))

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 120_000 })(`opt-outs on ${store.name}`, (it) => {
    it.effect("POST /v1/opt-outs → 201 {phone (E.164), reason, source: api, created_at}; again in another format → 200, the entry unchanged; GET answers it", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const created = yield* add({ phone: "+61 412 345 678", reason: "replied STOP" }, caller.key)
        assert.strictEqual(created.status, 201, created.text)
        Replies.assertMeta(created)
        const entry = one(created)
        assert.deepStrictEqual(entry, {
          phone: "+61412345678",
          reason: "replied STOP",
          source: "api",
          created_at: yield* now
        })
        yield* TestClock.adjust("1 minute")
        const again = yield* add({ phone: "+61412345678", reason: "another reason" }, caller.key)
        assert.strictEqual(again.status, 200, again.text)
        assert.deepStrictEqual(one(again), entry)
        const got = yield* get("+61412345678", caller.key)
        assert.strictEqual(got.status, 200, got.text)
        assert.deepStrictEqual(one(got), entry)
        // the path's + URL-encoded, as CONTRACT §12 writes it
        assert.deepStrictEqual(
          one(yield* Http.request("GET", "/v1/opt-outs/%2B61412345678", { key: caller.key })),
          entry
        )
        const noReason = yield* add({ phone: "+61412345679" }, caller.key)
        assert.strictEqual(one(noReason).reason, null)
      }))

    it.effect("DELETE /v1/opt-outs/{phone} → 200 {phone, deleted: true}; then GET and DELETE → 404", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        yield* add({ phone: "+61412345678" }, caller.key)
        const deleted = yield* remove("+61412345678", caller.key)
        assert.strictEqual(deleted.status, 200, deleted.text)
        assert.deepStrictEqual(
          Replies.decode(Envelope.Envelope(OptOutsJson.OptOutDeleted), deleted.json).data,
          { phone: "+61412345678", deleted: true }
        )
        Replies.assertError(yield* get("+61412345678", caller.key), 404, "not_found")
        Replies.assertError(yield* remove("+61412345678", caller.key), 404, "not_found")
      }))

    it.effect("an invalid number → 422 invalid_phone_number, in the body, the path and the phone filter", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        for (const phone of ["0412345678", "+6141234", "+99912345678", "not a number", "+610412345678"]) {
          Replies.assertError(yield* add({ phone }, caller.key), 422, "invalid_phone_number", "phone")
        }
        Replies.assertError(yield* get("0412345678", caller.key), 422, "invalid_phone_number", "phone")
        Replies.assertError(yield* remove("+6141234", caller.key), 422, "invalid_phone_number", "phone")
        Replies.assertError(yield* list({ phone: "12" }, caller.key), 422, "invalid_phone_number", "phone")
        Replies.assertError(yield* add({ reason: "no phone" }, caller.key), 400, "invalid_request")
      }))

    it.effect("GET /v1/opt-outs: newest first, by phone, source and date, page by page with a cursor", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const first = one(yield* add({ phone: "+61412000001" }, caller.key))
        yield* TestClock.adjust("1 day")
        const second = one(yield* add({ phone: "+61412000002", reason: "STOP" }, caller.key))
        yield* TestClock.adjust("1 day")
        assert.strictEqual(imported(yield* importCsv("+61412000003\n+61412000004\n", caller.key)).imported, 2)
        const all = page(yield* list({}, caller.key))
        assert.deepStrictEqual(all.data.map((o) => o.phone), [
          "+61412000004",
          "+61412000003",
          "+61412000002",
          "+61412000001"
        ])
        assert.deepStrictEqual(all.pagination, { has_more: false, next_cursor: null, page_size: 50 })
        const p1 = page(yield* list({ page_size: "3" }, caller.key))
        assert.deepStrictEqual(p1.data, all.data.slice(0, 3))
        assert.isTrue(p1.pagination.has_more)
        const p2 = page(yield* list({ page_size: "3", cursor: p1.pagination.next_cursor! }, caller.key))
        assert.deepStrictEqual(p2.data, [first])
        assert.isFalse(p2.pagination.has_more)
        // a cursor belongs to its filters
        Replies.assertError(
          yield* list({ source: "api", cursor: p1.pagination.next_cursor! }, caller.key),
          400,
          "invalid_cursor"
        )
        assert.deepStrictEqual(page(yield* list({ source: "api" }, caller.key)).data, [second, first])
        assert.deepStrictEqual(page(yield* list({ source: "import" }, caller.key)).data, all.data.slice(0, 2))
        assert.deepStrictEqual(page(yield* list({ phone: "+61 412 000 002" }, caller.key)).data, [second])
        const day = (iso: string) => iso.slice(0, 10)
        assert.deepStrictEqual(
          page(yield* list({ from: day(second.created_at), to: day(second.created_at) }, caller.key)).data,
          [second]
        )
        assert.deepStrictEqual(page(yield* list({ to: first.created_at }, caller.key)).data, [first])
        Replies.assertError(yield* list({ source: "csv" }, caller.key), 400, "invalid_parameter")
      }))

    it.effect("permissions: opt_outs:read reads, opt_outs:write writes; neither → 403", () =>
      Effect.gen(function*() {
        const owner = yield* TestAccounts.newCaller()
        yield* add({ phone: "+61412345678" }, owner.key)
        const reader = yield* TestAccounts.newKey(owner.accountId, ["opt_outs:read"])
        const writer = yield* TestAccounts.newKey(owner.accountId, ["opt_outs:write"])
        const neither = yield* TestAccounts.newKey(owner.accountId, ["messaging:send", "messaging:read"])
        assert.strictEqual((yield* get("+61412345678", reader.key)).status, 200)
        assert.strictEqual((yield* list({}, reader.key)).status, 200)
        Replies.assertError(yield* add({ phone: "+61412345679" }, reader.key), 403, "permission_denied")
        Replies.assertError(yield* remove("+61412345678", reader.key), 403, "permission_denied")
        Replies.assertError(yield* importCsv("+61412345679\n", reader.key), 403, "permission_denied")
        assert.strictEqual((yield* add({ phone: "+61412345679" }, writer.key)).status, 201)
        Replies.assertError(yield* get("+61412345678", writer.key), 403, "permission_denied")
        Replies.assertError(yield* list({}, writer.key), 403, "permission_denied")
        for (
          const reply of [yield* get("+61412345678", neither.key), yield* add({ phone: "+61412345670" }, neither.key)]
        ) {
          Replies.assertError(reply, 403, "permission_denied")
          assert.include(reply.json.error.message, "opt_outs:")
        }
      }))

    it.effect("tenancy: another account's opt-out is invisible to this one and does not block its sends", () =>
      Effect.gen(function*() {
        const owner = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        const other = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        yield* add({ phone: "+61412345678" }, owner.key)
        Replies.assertError(yield* get("+61412345678", other.key), 404, "not_found")
        Replies.assertError(yield* remove("+61412345678", other.key), 404, "not_found")
        assert.deepStrictEqual(page(yield* list({}, other.key)).data, [])
        const sent = yield* TestMessages.send({ ...TestMessages.validSend, to: "+61412345678" }, { key: other.key })
        assert.strictEqual(sent.status, 201, sent.text)
        assert.strictEqual((yield* get("+61412345678", owner.key)).status, 200)
      }))

    it.effect("a send to a listed number → 422 recipient_opted_out (field to); once deleted, it sends", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        yield* add({ phone: "+61 412 345 678" }, caller.key)
        const send = TestMessages.send({ ...TestMessages.validSend, to: "+61412345678" }, { key: caller.key })
        const refused = yield* send
        Replies.assertError(refused, 422, "recipient_opted_out", "to")
        // the other rules come first
        Replies.assertError(
          yield* TestMessages.send({ ...TestMessages.validSend, to: "+61412345678", body: "" }, { key: caller.key }),
          422,
          "empty_body"
        )
        yield* remove("+61412345678", caller.key)
        assert.strictEqual((yield* send).status, 201)
      }))

    it.effect("a scheduled message whose recipient opts out before its time → failed, recipient_opted_out, with message.failed", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        const at = new Date((yield* Clock.currentTimeMillis) + 3_600_000).toISOString()
        const sent = yield* TestMessages.send(
          { ...TestMessages.validSend, to: "+61412345677", scheduled_at: at },
          { key: caller.key }
        )
        assert.strictEqual(sent.status, 201, sent.text)
        assert.strictEqual(sent.json.data.status, "scheduled")
        const id: string = sent.json.data.id
        yield* add({ phone: "+61412345677", reason: "STOP" }, caller.key)
        yield* TestClock.adjust("1 hour")
        yield* Effect.orDie(Workers.runOnce) // scheduled → queued → failed
        const message = yield* Http.request("GET", `/v1/messaging/messages/${id}`, { key: caller.key })
        assert.strictEqual(message.json.data.status, "failed", message.text)
        assert.strictEqual(message.json.data.error.code, "recipient_opted_out")
        const events = yield* Http.request("GET", "/v1/events?type=message.failed", { key: caller.key })
        assert.strictEqual(events.status, 200, events.text)
        const failed = events.json.data.filter((e: any) => e.data.id === id)
        assert.strictEqual(failed.length, 1, events.text)
        assert.strictEqual(failed[0].data.error.code, "recipient_opted_out")
      }))

    it.effect("POST /v1/opt-outs/import: header, blank lines, duplicates, bad numbers by physical line, CRLF and a BOM", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        yield* add({ phone: "+61412000010", reason: "kept" }, caller.key)
        const csv = "\uFEFFphone,name\r\n" + // 1: header (after a BOM)
          "+61412000011,Ann\r\n" + // 2
          "\r\n" + // 3: blank
          "\"+61 412 000 012\",Bob\r\n" + // 4: quoted, spaced
          "+61412000011\r\n" + // 5: repeated in the file
          "+61412000010\r\n" + // 6: listed already
          "0412000013,local\r\n" + // 7: not E.164
          "   \r\n" + // 8: blank
          "garbage\r\n" + // 9
          "+61412000014" // 10: no final line end
        const done = imported(yield* importCsv(csv, caller.key))
        assert.deepStrictEqual(done, {
          imported: 3,
          already_listed: 2,
          invalid: [{ line: 7, value: "0412000013" }, { line: 9, value: "garbage" }]
        })
        const entries = page(yield* list({ source: "import" }, caller.key)).data
        assert.deepStrictEqual(entries.map((o) => o.phone).sort(), ["+61412000011", "+61412000012", "+61412000014"])
        assert.isTrue(entries.every((o) => o.reason === null))
        assert.strictEqual(one(yield* get("+61412000010", caller.key)).reason, "kept")
        // again: nothing new
        assert.deepStrictEqual(imported(yield* importCsv(csv, caller.key)), { ...done, imported: 0, already_listed: 5 })
        // no header: the first line is a number; an empty file imports nothing
        assert.strictEqual(imported(yield* importCsv("+61412000015\n+61412000016\n", caller.key)).imported, 2)
        assert.deepStrictEqual(imported(yield* importCsv("", caller.key)), {
          imported: 0,
          already_listed: 0,
          invalid: []
        })
      }))

    it.effect("POST /v1/opt-outs/import reports the first 100 bad lines only", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const csv = Array.from({ length: 150 }, (_, i) => `bad${i}`).join("\n")
        const done = imported(yield* importCsv("phone\n" + csv, caller.key))
        assert.strictEqual(done.invalid.length, 100)
        assert.deepStrictEqual(done.invalid[0], { line: 2, value: "bad0" })
        assert.deepStrictEqual(done.invalid[99], { line: 101, value: "bad99" })
      }))

    it.effect("POST /v1/opt-outs/import of 100,000 numbers: all listed, then all already listed", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const csv = "phone\n" +
          Array.from({ length: 100_000 }, (_, i) => `+6141${String(i).padStart(7, "0")}`).join("\n")
        const started = performance.now()
        const done = imported(yield* importCsv(csv, caller.key))
        const firstMs = performance.now() - started
        assert.deepStrictEqual(done, { imported: 100_000, already_listed: 0, invalid: [] })
        const again = imported(yield* importCsv(csv, caller.key))
        assert.deepStrictEqual(again, { imported: 0, already_listed: 100_000, invalid: [] })
        assert.strictEqual((yield* get("+61419999999", caller.key)).status, 404)
        assert.strictEqual((yield* get("+61410099999", caller.key)).status, 200)
        yield* Effect.logInfo(`${store.name}: 100,000 numbers imported in ${Math.round(firstMs)} ms`)
      }))

    it.effect("POST /v1/opt-outs/import refuses a body over 10 MiB (413) and one that is not text/csv (415)", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x0a)
        Replies.assertError(yield* importCsv(big, caller.key), 413, "payload_too_large")
        Replies.assertError(
          yield* importCsv("+61412345678\n", caller.key, "application/json"),
          415,
          "unsupported_media_type"
        )
        Replies.assertError(yield* importCsv("+61412345678\n", caller.key, "text/plain"), 415, "unsupported_media_type")
        // 10 MiB exactly (blank lines) is within the limit; the other routes keep their 64 KiB
        assert.strictEqual((yield* importCsv(big.subarray(1), caller.key)).status, 200)
        Replies.assertError(
          yield* Http.request("POST", "/v1/opt-outs", {
            key: caller.key,
            body: JSON.stringify({ phone: "+61412345678", reason: "x".repeat(70_000) }),
            headers: { "content-type": "application/json" }
          }),
          413,
          "payload_too_large"
        )
      }))
  })
}
