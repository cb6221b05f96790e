/**
 * The event log (CONTRACT §7) on both stores: `GET /v1/events` (newest first; `type`,
 * `created_after`, a cursor bound to them), `GET /v1/events/{id}` (exactly the body its webhook
 * deliveries carry), `POST /v1/events/{id}/redeliver` (a new delivery from attempt 0 where the
 * event goes now; 422 `no_signing_secret` for a callback without a subscription to sign it), and
 * another account's event never found or listed. The deliverer runs pass by pass over a capturing
 * transport.
 */
import { assert, layer } from "@effect/vitest"
import { Envelope, EventsJson } from "@sendline/api"
import { Limits, Timestamp, Workers } from "@sendline/core"
import { CapturingTransport } from "@sendline/core/testing"
import { Clock, Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import * as TestWebhooks from "../support/TestWebhooks.js"

/** `GET /v1/events` with `query`, decoded (no undocumented field) when 200. */
const events = (caller: TestAccounts.Caller, query: Record<string, string> = {}) =>
  Effect.map(
    Http.request("GET", `/v1/events?${new URLSearchParams(query)}`, { key: caller.key }),
    (reply) => ({
      reply,
      page: reply.status === 200 ? Replies.decode(Envelope.ListEnvelope(EventsJson.EventJson), reply.json) : undefined
    })
  )

/** The ids `GET /v1/events` lists with `query`. */
const ids = (caller: TestAccounts.Caller, query: Record<string, string> = {}) =>
  Effect.map(events(caller, { page_size: "100", ...query }), ({ page, reply }) => {
    assert.strictEqual(reply.status, 200, reply.text)
    return page!.data.map((e) => e.id)
  })

/** `POST /v1/events/{id}/redeliver`. */
const redeliver = (caller: TestAccounts.Caller, id: string, headers: Record<string, string> = {}) =>
  Http.request("POST", `/v1/events/${id}/redeliver`, { key: caller.key, headers })

/** The requests posted to `url` so far. */
const postedTo = (url: string) =>
  Effect.map(
    Effect.flatMap(CapturingTransport.CapturingTransport, (t) => t.requests),
    (all) => all.filter((r) => r.url === url)
  )

/** A new caller that sends from Acme in AU. */
const sender = () => TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })

/** Sends one message as `caller` (201 asserted), with `extra` fields: its id. */
const sendOne = (caller: TestAccounts.Caller, extra: Record<string, unknown> = {}) =>
  Effect.map(TestMessages.send({ ...TestMessages.validSend, ...extra }, { key: caller.key }), (reply) => {
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.json.data.id as string
  })

/** The `message.queued` event of message `messageId`. */
const queuedEventOf = (caller: TestAccounts.Caller, messageId: string) =>
  Effect.map(events(caller, { type: "message.queued", page_size: "100" }), ({ page }) => {
    const found = page!.data.find((e) => e.data.id === messageId)
    assert.isDefined(found, `the message.queued event of ${messageId}`)
    return found!
  })

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 120_000 })(
    `the event log on ${store.name}`,
    (it) => {
      it.effect("GET /v1/events/{id} answers exactly the body its webhook delivery carried; GET /v1/events lists them newest first", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const url = "https://hooks.acme.example/same-body"
          yield* TestWebhooks.subscribe(caller, { url })
          yield* sendOne(caller, { reference: "order-1" })
          yield* TestClock.adjust("1 second")
          yield* sendOne(caller, { reference: "order-2" })
          yield* TestWebhooks.deliver
          const posted = yield* postedTo(url)
          assert.strictEqual(posted.length, 2)
          for (const request of posted) {
            const reply = yield* Http.request("GET", `/v1/events/${request.headers["x-service-event-id"]}`, {
              key: caller.key
            })
            assert.strictEqual(reply.status, 200, reply.text)
            Replies.assertMeta(reply)
            const { data } = Replies.decode(Envelope.Envelope(EventsJson.EventJson), reply.json)
            // the same object, key for key and byte for byte
            assert.strictEqual(JSON.stringify(reply.json.data), request.body)
            assert.deepStrictEqual(Object.keys(reply.json.data), ["id", "type", "created_at", "data"])
            assert.strictEqual(data.type, request.headers["x-service-event-type"])
            assert.match(data.id, /^evt_[0-9a-hjkmnp-tv-z]{26}$/)
            assert.match(data.created_at, Replies.timestampPattern)
          }
          const [older, newer] = posted.map((r) => JSON.parse(r.body) as { id: string; data: { reference: string } })
          assert.deepStrictEqual([older!.data.reference, newer!.data.reference], ["order-1", "order-2"])
          assert.deepStrictEqual(yield* ids(caller), [newer!.id, older!.id])
        }))

      it.effect("GET /v1/events filters by type and created_after (a date-time, or a date: from its start), pages with a cursor bound to them; bad ones are 400", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          yield* sendOne(caller)
          yield* Effect.orDie(Workers.runOnce) // queued → sent
          yield* TestClock.adjust("1 second")
          const now = yield* Clock.currentTimeMillis
          const [today, tomorrow] = [
            Timestamp.format(now).slice(0, 10),
            Timestamp.format(now + 86_400_000).slice(0, 10)
          ]
          yield* sendOne(caller)

          const all = yield* ids(caller)
          assert.strictEqual(all.length, 3)
          const typed = (yield* events(caller, { type: "message.queued" })).page!.data
          assert.deepStrictEqual(typed.map((e) => e.type), ["message.queued", "message.queued"])
          assert.deepStrictEqual(typed.map((e) => e.id), [all[0], all[2]])
          assert.deepStrictEqual(yield* ids(caller, { type: "message.sent" }), [all[1]])
          assert.deepStrictEqual(yield* ids(caller, { type: "brand.verified" }), [])
          assert.deepStrictEqual(yield* ids(caller, { created_after: Timestamp.format(now) }), [all[0]], "at or after")
          assert.deepStrictEqual(
            yield* ids(caller, { created_after: new Date(now - 1).toISOString() }),
            [all[0]],
            "Z allowed"
          )
          assert.deepStrictEqual(yield* ids(caller, { created_after: new Date(now + 1).toISOString() }), [])
          // a date: from the start of that day, UTC
          assert.deepStrictEqual(yield* ids(caller, { created_after: today }), all)
          assert.deepStrictEqual(yield* ids(caller, { created_after: tomorrow }), [])
          assert.deepStrictEqual(yield* ids(caller, { created_after: today, type: "message.sent" }), [all[1]])

          const first = (yield* events(caller, { page_size: "2" })).page!
          assert.deepStrictEqual(first.data.map((e) => e.id), all.slice(0, 2))
          assert.deepStrictEqual(first.pagination.has_more, true)
          const second = (yield* events(caller, { page_size: "2", cursor: first.pagination.next_cursor! })).page!
          assert.deepStrictEqual(second.data.map((e) => e.id), all.slice(2))
          assert.deepStrictEqual(second.pagination, { has_more: false, next_cursor: null, page_size: 2 })

          const bad = (query: Record<string, string>) => Effect.map(events(caller, query), ({ reply }) => reply)
          Replies.assertError(
            yield* bad({ type: "message.queued", cursor: first.pagination.next_cursor! }),
            400,
            "invalid_cursor"
          )
          Replies.assertError(yield* bad({ type: "message.read" }), 400, "invalid_parameter", "type")
          Replies.assertError(yield* bad({ created_after: "yesterday" }), 400, "invalid_parameter", "created_after")
          Replies.assertError(yield* bad({ created_after: "2026-02-30" }), 400, "invalid_parameter", "created_after")
          Replies.assertError(yield* bad({ page_size: "x" }), 400, "invalid_parameter", "page_size")
        }))

      it.effect("another account's event is not found, not redelivered and never listed", () =>
        Effect.gen(function*() {
          const owner = yield* sender()
          const stranger = yield* sender()
          const event = yield* queuedEventOf(owner, yield* sendOne(owner))
          Replies.assertError(
            yield* Http.request("GET", `/v1/events/${event.id}`, { key: stranger.key }),
            404,
            "not_found"
          )
          Replies.assertError(yield* redeliver(stranger, event.id), 404, "not_found")
          assert.notInclude(yield* ids(stranger), event.id)
          Replies.assertError(
            yield* Http.request("GET", "/v1/events/evt_00000000000000000000000000", { key: owner.key }),
            404,
            "not_found"
          )
        }))

      it.effect("POST /v1/events/{id}/redeliver starts a delivery from attempt 0 to each active subscription that asks for its type", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const [a, b] = ["https://a.acme.example/in", "https://b.acme.example/in"]
          const subscriptions = [
            yield* TestWebhooks.subscribe(caller, { url: a }),
            yield* TestWebhooks.subscribe(caller, { url: b })
          ]
          yield* TestWebhooks.subscribe(caller, { url: "https://c.acme.example/in", events: ["message.delivered"] })
          const event = yield* queuedEventOf(caller, yield* sendOne(caller))
          yield* TestWebhooks.deliver
          yield* TestClock.adjust("1 minute")
          const now = Timestamp.format(yield* Clock.currentTimeMillis)

          const headers = { "idempotency-key": "redeliver-event" }
          const reply = yield* redeliver(caller, event.id, headers)
          assert.strictEqual(reply.status, 200, reply.text)
          Replies.assertMeta(reply)
          const { data } = Replies.decode(Envelope.Envelope(EventsJson.EventRedelivered), reply.json)
          assert.strictEqual(data.event_id, event.id)
          assert.sameMembers(data.deliveries.map((d) => d.subscription_id), subscriptions)
          for (const d of data.deliveries) {
            assert.deepStrictEqual({ ...d, id: "", subscription_id: "" }, {
              id: "",
              event_id: event.id,
              event_type: "message.queued",
              subscription_id: "",
              attempt: 0,
              ...TestWebhooks.unattempted,
              scheduled_at: now,
              created_at: now
            })
          }
          const replayed = yield* redeliver(caller, event.id, headers)
          assert.strictEqual(replayed.text, reply.text)
          assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")

          yield* TestWebhooks.deliver
          for (const url of [a, b]) {
            const posted = yield* postedTo(url)
            assert.deepStrictEqual(
              posted.map((r) => [r.headers["x-service-event-id"], r.headers["x-service-delivery-attempt"]]),
              [
                [event.id, "0"],
                [event.id, "0"]
              ]
            )
            assert.strictEqual(posted[1]!.body, posted[0]!.body, "the same bytes every time")
          }
          const log = yield* Http.request("GET", `/v1/webhooks/${subscriptions[0]}/deliveries?state=succeeded`, {
            key: caller.key
          })
          assert.deepStrictEqual(log.json.data.map((d: { attempt: number }) => d.attempt), [0, 0])
          assert.include(
            log.json.data.map((d: { id: string }) => d.id),
            data.deliveries.find((d) => d.subscription_id === subscriptions[0])!.id
          )
        }))

      it.effect("POST /v1/events/{id}/redeliver of an event no one asks for starts none; of a callback's without an active subscription, 422 no_signing_secret", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const nobody = yield* queuedEventOf(caller, yield* sendOne(caller))
          const none = yield* redeliver(caller, nobody.id)
          assert.strictEqual(none.status, 200, none.text)
          assert.deepStrictEqual(none.json.data, { event_id: nobody.id, deliveries: [] })

          const id = yield* TestWebhooks.subscribe(caller, {
            url: "https://hooks.acme.example/signer",
            events: ["sid.expiring"]
          })
          const callback = yield* queuedEventOf(
            caller,
            yield* sendOne(caller, { callback_url: "https://cb.acme.example/message" })
          )
          const toCallback = yield* redeliver(caller, callback.id)
          assert.strictEqual(toCallback.status, 200, toCallback.text)
          assert.deepStrictEqual(
            toCallback.json.data.deliveries.map((d: { subscription_id: string | null }) => d.subscription_id),
            [null]
          )
          assert.strictEqual((yield* Http.request("DELETE", `/v1/webhooks/${id}`, { key: caller.key })).status, 200)
          const refused = yield* redeliver(caller, callback.id)
          Replies.assertError(refused, 422, "no_signing_secret", "id")
        }))

      it.effect("a second POST /v1/events/{id}/redeliver while the first one's deliveries are pending makes none: 200 with those under way", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const [a, b] = ["https://a.acme.example/once", "https://b.acme.example/once"]
          yield* TestWebhooks.subscribe(caller, { url: a })
          yield* TestWebhooks.subscribe(caller, { url: b })
          const event = yield* queuedEventOf(caller, yield* sendOne(caller))
          yield* TestWebhooks.deliver
          const redelivered = (reply: Http.Reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            return Replies.decode(Envelope.Envelope(EventsJson.EventRedelivered), reply.json).data.deliveries.map((d) =>
              d.id
            ).sort()
          }
          const first = redelivered(yield* redeliver(caller, event.id))
          assert.strictEqual(first.length, 2)
          for (let i = 0; i < 4; i++) {
            assert.deepStrictEqual(redelivered(yield* redeliver(caller, event.id)), first, "the same ones, under way")
          }
          yield* TestWebhooks.deliver
          for (const url of [a, b]) {
            assert.strictEqual((yield* postedTo(url)).length, 2, "the first delivery and one redelivery")
          }
          // once they are done, a redelivery starts afresh
          const next = redelivered(yield* redeliver(caller, event.id))
          assert.strictEqual(next.length, 2)
          assert.isFalse(next.some((id) => first.includes(id)), "new ones")
        }))

      it.effect("more than the account's redeliveries a minute, by either endpoint → 429 rate_limited with Retry-After until the oldest is a minute old", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const webhook = yield* TestWebhooks.subscribe(caller)
          const event = yield* queuedEventOf(caller, yield* sendOne(caller))
          const since = { since: Timestamp.format(yield* Clock.currentTimeMillis) }
          const bySubscription = () =>
            Http.request("POST", `/v1/webhooks/${webhook}/redeliver`, { key: caller.key, json: since })
          const max = Limits.defaults.redeliveriesPerMinute
          assert.strictEqual((yield* bySubscription()).status, 200)
          yield* TestClock.adjust("10 seconds")
          for (let i = 1; i < max; i++) assert.strictEqual((yield* redeliver(caller, event.id)).status, 200)
          for (const refused of [yield* redeliver(caller, event.id), yield* bySubscription()]) {
            Replies.assertError(refused, 429, "rate_limited")
            assert.strictEqual(refused.headers.get("retry-after"), "50")
          }
          yield* TestClock.adjust("49 seconds")
          assert.strictEqual((yield* redeliver(caller, event.id)).headers.get("retry-after"), "1")
          yield* TestClock.adjust("1 second")
          assert.strictEqual((yield* redeliver(caller, event.id)).status, 200, "the first is a minute old: one more")
          Replies.assertError(yield* bySubscription(), 429, "rate_limited")
        }))
    }
  )
}
