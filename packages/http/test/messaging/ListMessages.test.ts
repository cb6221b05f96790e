import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { MessageJson, Timestamp } from "@sendline/core"
import { Clock, Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

const day = 86_400_000
const ids = (reply: Http.Reply): Array<string> => reply.json.data.map((m: { id: string }) => m.id)
const plainDate = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/** A caller of its own, so that its list holds only what the test sent. */
const freshCaller = TestAccounts.newCaller({ senderIds: [["Acme", "AU"], ["Acme", "NZ"], ["Acme Two", "AU"]] })

/** Sends `count` messages, one second apart (oldest first), returning their ids. */
const sendMany = (caller: TestAccounts.Caller, count: number, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const sent: Array<string> = []
    for (let i = 0; i < count; i++) {
      yield* TestClock.adjust("1 second")
      const reply = yield* TestMessages.send({ ...TestMessages.validSend, body: `message ${i}`, ...fields }, {
        key: caller.key
      })
      assert.strictEqual(reply.status, 201, reply.text)
      sent.push(reply.json.data.id)
    }
    return sent
  })

/** Every page of a list, checking the pagination invariants on the way. */
const walk = (caller: TestAccounts.Caller, query: Record<string, string>) =>
  Effect.gen(function*() {
    const pages: Array<Array<string>> = []
    let cursor: string | undefined
    do {
      const reply = yield* TestMessages.list({ ...query, ...(cursor === undefined ? {} : { cursor }) }, {
        key: caller.key
      })
      assert.strictEqual(reply.status, 200, reply.text)
      const { pagination } = Replies.decode(Envelope.ListEnvelope(MessageJson.MessageItem), reply.json)
      assert.strictEqual(pagination.next_cursor === null, !pagination.has_more)
      if (pagination.next_cursor !== null) assert.match(pagination.next_cursor, /^cur_[A-Za-z0-9_-]+$/)
      pages.push(ids(reply))
      cursor = pagination.next_cursor ?? undefined
      assert.isBelow(pages.length, 100, "the walk ends")
    } while (cursor !== undefined)
    return pages
  })

layer(TestServer.layer())("GET /v1/messaging/messages", (it) => {
  it.effect("newest first, items in the reduced form (no body, no encoding), in the list envelope", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const sent = yield* sendMany(caller, 3, { reference: "ref" })
      const reply = yield* TestMessages.list({}, { key: caller.key })
      assert.strictEqual(reply.status, 200, reply.text)
      Replies.assertMeta(reply)
      const page = Replies.decode(Envelope.ListEnvelope(MessageJson.MessageItem), reply.json)
      assert.deepStrictEqual(ids(reply), [...sent].reverse())
      assert.deepStrictEqual(page.pagination, { has_more: false, next_cursor: null, page_size: 50 })
      const newest = yield* Http.request("GET", `/v1/messaging/messages/${sent[2]}`, { key: caller.key })
      const { body: _body, encoding: _encoding, price: _price, ...reduced } = newest.json.data
      assert.deepStrictEqual(reply.json.data[0], reduced)
      for (const item of reply.json.data) {
        assert.isFalse("body" in item)
        assert.isFalse("encoding" in item)
      }
    }))

  it.effect("an account with no messages lists none", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const reply = yield* TestMessages.list({}, { key: caller.key })
      assert.deepStrictEqual(
        Replies.decode(Envelope.ListEnvelope(MessageJson.MessageItem), reply.json).pagination,
        { has_more: false, next_cursor: null, page_size: 50 }
      )
      assert.deepStrictEqual(reply.json.data, [])
    }))

  it.effect("filters: market, status, sender_id (exact), reference (exact)", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const now = yield* Clock.currentTimeMillis
      const [au] = yield* sendMany(caller, 1, { reference: "order-1" })
      const [nz] = yield* sendMany(caller, 1, { market: "NZ", to: "+64211234567", reference: "order-10" })
      const [two] = yield* sendMany(caller, 1, { sender_id: "Acme Two", reference: "Order-1" })
      const [scheduled] = yield* sendMany(caller, 1, { scheduled_at: new Date(now + day).toISOString() })
      const [cancelled] = yield* sendMany(caller, 1, { scheduled_at: new Date(now + day).toISOString() })
      assert.strictEqual(
        (yield* Http.request("POST", `/v1/messaging/messages/${cancelled}/cancel`, { key: caller.key })).status,
        200
      )

      const cases: ReadonlyArray<readonly [Record<string, string>, ReadonlyArray<string>]> = [
        [{}, [cancelled!, scheduled!, two!, nz!, au!]],
        [{ market: "NZ" }, [nz!]],
        [{ market: "AU" }, [cancelled!, scheduled!, two!, au!]],
        [{ market: "SG" }, []],
        [{ status: "queued" }, [two!, nz!, au!]],
        [{ status: "scheduled" }, [scheduled!]],
        [{ status: "cancelled" }, [cancelled!]],
        [{ status: "delivered" }, []],
        [{ sender_id: "Acme Two" }, [two!]],
        [{ sender_id: "Acme" }, [cancelled!, scheduled!, nz!, au!]],
        [{ sender_id: "acme" }, []],
        [{ reference: "order-1" }, [au!]],
        [{ reference: "Order-1" }, [two!]],
        [{ reference: "order" }, []],
        [{ market: "AU", status: "queued", sender_id: "Acme" }, [au!]]
      ]
      for (const [query, expected] of cases) {
        const reply = yield* TestMessages.list(query, { key: caller.key })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.deepStrictEqual(ids(reply), expected, JSON.stringify(query))
      }
    }))

  it.effect("from and to: inclusive, as date-times with any offset or as plain UTC dates", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      // three messages at noon UTC on three consecutive days
      const now = yield* Clock.currentTimeMillis
      yield* TestClock.setTime(Math.floor(now / day) * day + day + 12 * 3_600_000 - 1000)
      const [d1] = yield* sendMany(caller, 1)
      yield* TestClock.adjust(day - 1000)
      const [d2] = yield* sendMany(caller, 1)
      yield* TestClock.adjust(day - 1000)
      const [d3] = yield* sendMany(caller, 1)
      const d2At = Date.parse(
        (yield* Http.request("GET", `/v1/messaging/messages/${d2}`, { key: caller.key })).json.data.created_at
      )
      const d2Date = plainDate(d2At)
      const cases: ReadonlyArray<readonly [Record<string, string>, ReadonlyArray<string>]> = [
        [{ from: d2Date }, [d3!, d2!]],
        [{ to: d2Date }, [d2!, d1!]],
        [{ from: d2Date, to: d2Date }, [d2!]],
        [{ from: plainDate(d2At + day + day) }, []],
        [{ from: Timestamp.format(d2At) }, [d3!, d2!]],
        [{ from: Timestamp.format(d2At + 1) }, [d3!]],
        [{ to: Timestamp.format(d2At) }, [d2!, d1!]],
        [{ to: Timestamp.format(d2At - 1) }, [d1!]],
        [{ from: new Date(d2At).toISOString(), to: new Date(d2At).toISOString() }, [d2!]],
        [{ to: new Date(d2At + 2 * 3_600_000).toISOString().replace(/\.000Z$/, "+02:00") }, [d2!, d1!]],
        [{ to: new Date(d2At + 2 * 3_600_000 - 1000).toISOString().replace(/\.000Z$/, "+02:00") }, [d1!]],
        [{ from: d2Date, to: plainDate(d2At - day) }, []]
      ]
      for (const [query, expected] of cases) {
        const reply = yield* TestMessages.list(query, { key: caller.key })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.deepStrictEqual(ids(reply), expected, JSON.stringify(query))
      }
    }))

  it.effect("pagination walks every page once, newest first; next_cursor is null exactly when has_more is false", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      const sent = yield* sendMany(caller, 7)
      const pages = yield* walk(caller, { page_size: "3" })
      assert.deepStrictEqual(pages.map((p) => p.length), [3, 3, 1])
      assert.deepStrictEqual(pages.flat(), [...sent].reverse())

      const even = yield* walk(caller, { page_size: "7" })
      assert.deepStrictEqual(even, [[...sent].reverse()], "a page that ends the list exactly has no next page")
    }))

  it.effect("pagination keeps its filters, and is exact among messages created in the same millisecond", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      yield* TestClock.adjust("1 second")
      const same: Array<string> = []
      for (let i = 0; i < 5; i++) {
        same.push(
          (yield* TestMessages.send({ ...TestMessages.validSend, body: `same ms ${i}` }, { key: caller.key })).json.data
            .id
        )
        yield* TestMessages.send({ ...TestMessages.validSend, market: "NZ", to: "+64211234567" }, { key: caller.key })
      }
      const pages = yield* walk(caller, { page_size: "2", market: "AU" })
      assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
      assert.deepStrictEqual(new Set(pages.flat()), new Set(same))
      assert.deepStrictEqual(pages.flat(), [...same].sort().reverse())
    }))

  it.effect("page_size: above 100 is clamped to 100; the default is 50", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      yield* sendMany(caller, 2)
      const huge = [["9007199254740992", 100], ["1" + "0".repeat(400), 100]] as const
      for (const [page_size, applied] of [["500", 100], ["100", 100], ["1", 1], ...huge] as const) {
        const reply = yield* TestMessages.list({ page_size }, { key: caller.key })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.strictEqual(reply.json.pagination.page_size, applied)
      }
      assert.strictEqual((yield* TestMessages.list({}, { key: caller.key })).json.pagination.page_size, 50)
    }))

  it.effect("400 invalid_parameter for a bad page_size, status, from or to; unknown parameters are ignored", () =>
    Effect.gen(function*() {
      const cases = [
        [{ page_size: "0" }, "page_size"],
        [{ page_size: "-5" }, "page_size"],
        [{ page_size: "abc" }, "page_size"],
        [{ page_size: "1.5" }, "page_size"],
        [{ page_size: "" }, "page_size"],
        [{ page_size: "0x10" }, "page_size"],
        [{ market: "XYZ" }, "market"],
        [{ market: "au" }, "market"],
        [{ market: "" }, "market"],
        [{ page_size: "1e2" }, "page_size"],
        [{ page_size: "+5" }, "page_size"],
        [{ page_size: " 5" }, "page_size"],
        [{ page_size: "10.0" }, "page_size"],
        [{ status: "lost" }, "status"],
        [{ status: "QUEUED" }, "status"],
        [{ from: "yesterday" }, "from"],
        [{ from: "2026-13-01" }, "from"],
        [{ to: "2026-11-31" }, "to"],
        [{ to: "2026-11-22T25:00:00Z" }, "to"]
      ] as const
      for (const [query, field] of cases) {
        const reply = yield* TestMessages.list(query)
        Replies.assertError(reply, 400, "invalid_parameter", field)
        if (field === "page_size") {
          assert.strictEqual(reply.json.error.details[0].issue, "Expected an integer of at least 1")
        }
        if (field === "status") {
          assert.strictEqual(
            reply.json.error.details[0].issue,
            "Expected one of scheduled, queued, sent, delivered, undelivered, failed, cancelled"
          )
        }
      }
      assert.strictEqual((yield* TestMessages.list({ colour: "blue" })).status, 200)
    }))

  it.effect("400 invalid_cursor for a foreign, malformed or tampered cursor, or one reused with other filters", () =>
    Effect.gen(function*() {
      const caller = yield* freshCaller
      yield* sendMany(caller, 3)
      const first = yield* TestMessages.list({ page_size: "1", market: "AU" }, { key: caller.key })
      const cursor: string = first.json.pagination.next_cursor
      assert.strictEqual(
        (yield* TestMessages.list({ page_size: "1", market: "AU", cursor }, { key: caller.key })).status,
        200
      )
      assert.strictEqual(
        (yield* TestMessages.list({ page_size: "2", market: "AU", cursor }, { key: caller.key })).status,
        200,
        "page_size is not a filter"
      )
      const raw = Buffer.from(cursor.slice(4), "base64url").toString()
      const tampered = "cur_" + Buffer.from(raw.replace(/^\d+/, (n) => String(Number(n) + 1))).toString("base64url")
      const cases: ReadonlyArray<Record<string, string>> = [
        { market: "AU", cursor: "garbage" },
        { market: "AU", cursor: "cur_" },
        { market: "AU", cursor: "cur_bm90IGEgY3Vyc29y" },
        { market: "AU", cursor: tampered },
        { market: "NZ", cursor },
        { cursor },
        { market: "AU", status: "queued", cursor }
      ]
      for (const query of cases) {
        Replies.assertError(yield* TestMessages.list(query, { key: caller.key }), 400, "invalid_cursor", "cursor")
      }
    }))
})
