/**
 * A subscription's delivery log and its redelivery (CONTRACT §7) on both stores, the deliverer
 * driven pass by pass over a capturing transport and the test clock: `GET /v1/webhooks/{id}/deliveries`
 * (each attempt newest first, with its answer or error and its next attempt; `event_type`, `state`,
 * a cursor bound to them) and `POST /v1/webhooks/{id}/redeliver` (what failed for good or was
 * skipped since a time, resent from attempt 0; 409 while disabled).
 */
import { assert, layer } from "@effect/vitest"
import { DeliveriesJson, Envelope, WebhooksJson } from "@sendline/api"
import { RetrySchedule, Timestamp, Workers } from "@sendline/core"
import { CapturingTransport } from "@sendline/core/testing"
import { Clock, Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import * as TestWebhooks from "../support/TestWebhooks.js"

/** `GET /v1/webhooks/{id}/deliveries` with `query`, decoded (no undocumented field) when 200. */
const deliveries = (caller: TestAccounts.Caller, id: string, query: Record<string, string> = {}) =>
  Effect.map(
    Http.request("GET", `/v1/webhooks/${id}/deliveries?${new URLSearchParams(query)}`, { key: caller.key }),
    (reply) => ({
      reply,
      page: reply.status === 200
        ? Replies.decode(Envelope.ListEnvelope(DeliveriesJson.DeliveryJson), reply.json)
        : undefined
    })
  )

/** What `deliveries` answers. */
type Listed = Effect.Effect.Success<ReturnType<typeof deliveries>>

/** A page of two of the delivery log, from `cursor`. */
const pageOf = (caller: TestAccounts.Caller, id: string, cursor: string | null) =>
  deliveries(caller, id, { page_size: "2", ...(cursor === null ? {} : { cursor }) })

/** `POST /v1/webhooks/{id}/redeliver` with `json`. */
const redeliver = (caller: TestAccounts.Caller, id: string, json: unknown, headers: Record<string, string> = {}) =>
  Http.request("POST", `/v1/webhooks/${id}/redeliver`, { key: caller.key, json, headers })

/** How the transport answers from now on. */
const answer = (status: number, body = "") =>
  Effect.flatMap(
    CapturingTransport.CapturingTransport,
    (transport) => transport.answerWith(CapturingTransport.status(status, body))
  )

/** The requests posted to `url` so far. */
const postedTo = (url: string) =>
  Effect.map(
    Effect.flatMap(CapturingTransport.CapturingTransport, (t) => t.requests),
    (all) => all.filter((r) => r.url === url)
  )

/** A new caller that sends from Acme in AU. */
const sender = () => TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })

/** Sends one message as `caller` (201 asserted): its id. */
const sendOne = (caller: TestAccounts.Caller) =>
  Effect.map(TestMessages.send(TestMessages.validSend, { key: caller.key }), (reply) => {
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.json.data.id as string
  })

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 120_000 })(
    `webhook deliveries on ${store.name}`,
    (it) => {
      it.effect("the delivery log lists each attempt newest first: nulls until attempted, then its status or error, body, duration and next attempt", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const url = "https://hooks.acme.example/log"
          const id = yield* TestWebhooks.subscribe(caller, { url })
          yield* answer(503, "try later")
          yield* sendOne(caller)
          const none = yield* deliveries(caller, id)
          assert.deepStrictEqual(none.page!.data, [], "not fanned out before the deliverer's pass")
          const first = yield* Clock.currentTimeMillis
          yield* TestWebhooks.deliver
          const [event] = (yield* Http.request("GET", "/v1/events?type=message.queued", { key: caller.key })).json.data
          const retryAt = first + 30_000

          const failing = yield* deliveries(caller, id)
          assert.strictEqual(failing.reply.status, 200, failing.reply.text)
          Replies.assertMeta(failing.reply)
          const [pending, failed] = failing.page!.data
          assert.strictEqual(failing.page!.data.length, 2)
          assert.match(failed!.id, /^dlv_[0-9a-hjkmnp-tv-z]{26}$/)
          assert.deepStrictEqual({ ...failed, id: "" }, {
            id: "",
            event_id: event.id,
            event_type: "message.queued",
            subscription_id: id,
            attempt: 0,
            state: "failed",
            url,
            status_code: 503,
            error: "http_503",
            duration_ms: 0,
            response_body: "try later",
            scheduled_at: Timestamp.format(first),
            attempted_at: Timestamp.format(first),
            next_attempt_at: Timestamp.format(retryAt),
            created_at: Timestamp.format(first)
          })
          // the retry it scheduled: pending, nothing known yet but when it is due
          assert.deepStrictEqual({ ...pending, id: "" }, {
            id: "",
            event_id: event.id,
            event_type: "message.queued",
            subscription_id: id,
            attempt: 1,
            ...TestWebhooks.unattempted,
            scheduled_at: Timestamp.format(retryAt),
            created_at: Timestamp.format(first)
          })

          yield* TestClock.adjust("30 seconds")
          yield* answer(204)
          yield* TestWebhooks.deliver
          const done = yield* deliveries(caller, id)
          assert.deepStrictEqual(done.page!.data.map((d) => [d.id, d.attempt, d.state]), [
            [pending!.id, 1, "succeeded"],
            [failed!.id, 0, "failed"]
          ])
          assert.deepStrictEqual(done.page!.data[0], {
            ...pending!,
            state: "succeeded",
            url,
            status_code: 204,
            duration_ms: 0,
            response_body: "",
            attempted_at: Timestamp.format(retryAt)
          })
          assert.deepStrictEqual((yield* postedTo(url)).map((r) => r.headers["x-service-delivery-attempt"]), ["0", "1"])
        }))

      it.effect("the delivery log filters by event_type and state, and pages with a cursor bound to its filters; bad filters are 400", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const id = yield* TestWebhooks.subscribe(caller, {
            url: "https://hooks.acme.example/filters",
            events: ["message.queued", "message.sent"]
          })
          yield* answer(200, "ok")
          yield* sendOne(caller)
          yield* sendOne(caller)
          // queued → sent by the Dispatcher, then both events of both messages delivered
          yield* Effect.orDie(Workers.runOnce)
          yield* TestClock.adjust("1 second")
          yield* answer(500)
          yield* sendOne(caller)
          yield* TestWebhooks.deliver

          const all = (yield* deliveries(caller, id)).page!.data
          assert.strictEqual(all.length, 5 + 1, "4 succeeded, 1 failed and its pending retry")
          const types = (query: Record<string, string>) =>
            Effect.map(deliveries(caller, id, query), ({ page }) => page!.data.map((d) => `${d.event_type} ${d.state}`))
          assert.deepStrictEqual(yield* types({ event_type: "message.sent" }), [
            "message.sent succeeded",
            "message.sent succeeded"
          ])
          assert.deepStrictEqual(yield* types({ state: "failed" }), ["message.queued failed"])
          assert.deepStrictEqual(yield* types({ state: "pending" }), ["message.queued pending"])
          assert.deepStrictEqual(yield* types({ event_type: "message.queued", state: "succeeded" }), [
            "message.queued succeeded",
            "message.queued succeeded"
          ])
          assert.deepStrictEqual(yield* types({ event_type: "sid.expiring" }), [])

          // newest first, two by two, the cursor carrying on where the page ended
          const seen: Array<string> = []
          let cursor: string | null = null
          do {
            const { page, reply }: Listed = yield* pageOf(caller, id, cursor)
            assert.strictEqual(reply.status, 200, reply.text)
            for (const d of page!.data) seen.push(d.id)
            cursor = page!.pagination.next_cursor
            assert.strictEqual(page!.pagination.has_more, cursor !== null)
          } while (cursor !== null)
          assert.deepStrictEqual(seen, all.map((d) => d.id))
          const created = all.map((d) => d.created_at)
          assert.deepStrictEqual(created, [...created].sort().reverse())

          const page = (yield* deliveries(caller, id, { page_size: "2" })).page!
          Replies.assertError(
            (yield* deliveries(caller, id, { state: "failed", cursor: page.pagination.next_cursor! })).reply,
            400,
            "invalid_cursor"
          )
          Replies.assertError(
            (yield* deliveries(caller, id, { event_type: "message.read" })).reply,
            400,
            "invalid_parameter",
            "event_type"
          )
          Replies.assertError(
            (yield* deliveries(caller, id, { state: "lost" })).reply,
            400,
            "invalid_parameter",
            "state"
          )
          Replies.assertError(
            (yield* deliveries(caller, id, { page_size: "0" })).reply,
            400,
            "invalid_parameter",
            "page_size"
          )
          Replies.assertError((yield* deliveries(caller, id, { cursor: "cur_bogus" })).reply, 400, "invalid_cursor")
        }))

      it.effect("another account's subscription: its delivery log and its redelivery are 404, an unknown one too", () =>
        Effect.gen(function*() {
          const owner = yield* sender()
          const stranger = yield* sender()
          const id = yield* TestWebhooks.subscribe(owner, { url: "https://hooks.acme.example/private" })
          Replies.assertError((yield* deliveries(stranger, id)).reply, 404, "not_found")
          Replies.assertError(yield* redeliver(stranger, id, { since: "2026-01-01" }), 404, "not_found")
          Replies.assertError((yield* deliveries(owner, "wh_00000000000000000000000000")).reply, 404, "not_found")
        }))

      it.effect("POST /v1/webhooks/{id}/redeliver resends what failed for good or was skipped since a time, from attempt 0; 409 while disabled", () =>
        Effect.gen(function*() {
          const caller = yield* sender()
          const url = "https://hooks.acme.example/down"
          const id = yield* TestWebhooks.subscribe(caller, { url })
          const since = Timestamp.format(yield* Clock.currentTimeMillis)
          yield* answer(500, "down")
          yield* sendOne(caller)
          // the first attempt and six retries fail: the subscription is disabled
          yield* TestWebhooks.deliver
          for (const delay of RetrySchedule.delays) {
            yield* TestClock.adjust(delay)
            yield* TestWebhooks.deliver
          }
          assert.strictEqual(
            (yield* Http.request("GET", `/v1/webhooks/${id}`, { key: caller.key })).json.data.status,
            "disabled"
          )
          assert.strictEqual((yield* postedTo(url)).length, 7)
          // while disabled, an event is recorded as skipped
          yield* sendOne(caller)
          yield* TestWebhooks.deliver
          assert.deepStrictEqual(
            (yield* deliveries(caller, id, { state: "skipped" })).page!.data.map((d) => d.attempt),
            [0]
          )
          Replies.assertError(yield* redeliver(caller, id, { since }), 409, "invalid_state_transition")

          const enabled = yield* Http.request("PATCH", `/v1/webhooks/${id}`, {
            key: caller.key,
            json: { status: "active" }
          })
          assert.strictEqual(enabled.status, 200, enabled.text)
          Replies.assertError(yield* redeliver(caller, id, {}), 400, "invalid_request", "since")
          Replies.assertError(yield* redeliver(caller, id, { since: "last week" }), 400, "invalid_request", "since")
          const later = yield* redeliver(caller, id, {
            since: Timestamp.format((yield* Clock.currentTimeMillis) + 60_000)
          })
          assert.deepStrictEqual(later.json.data, { subscription_id: id, redelivered: 0, has_more: false })

          const headers = { "idempotency-key": "redeliver-once" }
          const resent = yield* redeliver(caller, id, { since: since.slice(0, 10) }, headers)
          assert.strictEqual(resent.status, 200, resent.text)
          Replies.assertMeta(resent)
          assert.deepStrictEqual(
            Replies.decode(Envelope.Envelope(WebhooksJson.WebhookRedelivered), resent.json).data,
            { subscription_id: id, redelivered: 2, has_more: false }
          )
          const replayed = yield* redeliver(caller, id, { since: since.slice(0, 10) }, headers)
          assert.strictEqual(replayed.text, resent.text)
          assert.strictEqual(replayed.headers.get("idempotent-replayed"), "true")
          // once resent, an event is not resent again
          assert.deepStrictEqual((yield* redeliver(caller, id, { since })).json.data, {
            subscription_id: id,
            redelivered: 0,
            has_more: false
          })

          yield* answer(200, "back")
          yield* TestWebhooks.deliver
          const delivered = (yield* deliveries(caller, id, { state: "succeeded" })).page!.data
          assert.deepStrictEqual(delivered.map((d) => d.attempt), [0, 0])
          const posted = yield* postedTo(url)
          assert.strictEqual(posted.length, 9)
          assert.deepStrictEqual(
            new Set(posted.slice(7).map((r) => JSON.parse(r.body).type)),
            new Set(["message.queued"])
          )
        }))
    }
  )
}
