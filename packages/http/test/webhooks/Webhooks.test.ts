/**
 * The webhook subscription endpoints of CONTRACT §7 on both stores: `POST /v1/webhooks` and its
 * checks (url policy, event types, secret length), `GET /v1/webhooks` (newest first, keyset
 * cursor), `GET|PATCH|DELETE /v1/webhooks/{id}`; the secret never answered; another account's
 * subscription not found; and `callback_url` sends, which need an active subscription.
 */
import { assert, layer } from "@effect/vitest"
import { Envelope, WebhooksJson } from "@sendline/api"
import { Limits, Subscription, SubscriptionStore } from "@sendline/core"
import { Clock, Effect, Option, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"
import * as TestWebhooks from "../support/TestWebhooks.js"

const valid = {
  url: "https://hooks.acme.example/sendline",
  events: ["message.delivered", "message.failed"],
  secret: "whsec-0123456789abcdef"
}

const create = (json: unknown, key: string, headers: Record<string, string> = {}) =>
  Http.request("POST", "/v1/webhooks", { key, json, headers })
const get = (id: string, key: string) => Http.request("GET", `/v1/webhooks/${id}`, { key })
const patch = (id: string, key: string, json: unknown) => Http.request("PATCH", `/v1/webhooks/${id}`, { key, json })
const remove = (id: string, key: string) => Http.request("DELETE", `/v1/webhooks/${id}`, { key })

/** A new caller with a subscription of `body` (the valid one unless given): the caller and the subscription's JSON. */
const subscribed = (body: unknown = valid) =>
  Effect.gen(function*() {
    const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
    const reply = yield* create(body, caller.key)
    assert.strictEqual(reply.status, 201, reply.text)
    return { caller, webhook: Replies.decode(Envelope.Envelope(WebhooksJson.WebhookJson), reply.json).data }
  })

/** The subscription `id` as stored, secrets and all. */
const stored = (id: string) =>
  Effect.flatMap(SubscriptionStore.SubscriptionStore, (store) => Effect.map(store.findById(id), Option.getOrThrow))

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`webhooks on ${store.name}`, (it) => {
    it.effect("POST /v1/webhooks → 201 {id, url, events, status: active, created_at}, the secret never echoed; GET and the list answer the same", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const reply = yield* create({ ...valid, unknown_field: "ignored" }, caller.key)
        assert.strictEqual(reply.status, 201, reply.text)
        Replies.assertMeta(reply)
        assert.deepStrictEqual(Object.keys(reply.json.data).sort(), ["created_at", "events", "id", "status", "url"])
        assert.notInclude(reply.text, valid.secret)
        const { data } = Replies.decode(Envelope.Envelope(WebhooksJson.WebhookJson), reply.json)
        assert.match(data.id, /^wh_[0-9a-hjkmnp-tv-z]{26}$/)
        assert.deepStrictEqual({ ...data, id: "" }, {
          id: "",
          url: valid.url,
          events: valid.events,
          status: "active",
          created_at: new Date(yield* Clock.currentTimeMillis).toISOString().replace("Z", "+00:00")
        })
        const got = yield* get(data.id, caller.key)
        assert.strictEqual(got.status, 200, got.text)
        assert.deepStrictEqual(got.json.data, data)
        const listed = yield* Http.request("GET", "/v1/webhooks", { key: caller.key })
        assert.deepStrictEqual(Replies.decode(Envelope.ListEnvelope(WebhooksJson.WebhookJson), listed.json).data, [
          data
        ])
        assert.notInclude(got.text + listed.text, valid.secret)
        assert.strictEqual((yield* stored(data.id)).secret, valid.secret)
      }))

    it.effect("POST /v1/webhooks refuses a url that is not https on a public host: 422 webhook_url_not_allowed", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        for (
          const url of [
            "http://hooks.acme.example/in",
            "https://127.0.0.1/in",
            "https://localhost:8443/in",
            "https://10.1.2.3/in",
            "https://169.254.169.254/latest",
            "https://[::ffff:192.168.0.1]/in",
            "https://user:pass@hooks.acme.example/in",
            "ftp://hooks.acme.example/in",
            "not a url"
          ]
        ) Replies.assertError(yield* create({ ...valid, url }, caller.key), 422, "webhook_url_not_allowed", "url")
        Replies.assertError(
          yield* create({ ...valid, url: `https://a.example/${"x".repeat(2048)}` }, caller.key),
          400,
          "invalid_parameter",
          "url"
        )
        // url is checked first, then events, then the secret
        Replies.assertError(
          yield* create({ url: "http://x.example", events: [], secret: "" }, caller.key),
          422,
          "webhook_url_not_allowed",
          "url"
        )
        assert.deepStrictEqual((yield* Http.request("GET", "/v1/webhooks", { key: caller.key })).json.data, [])
      }))

    it.effect("POST /v1/webhooks checks events (non-empty, known types; repeats dropped) and the secret (16–256 characters)", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const unknown = yield* create({ ...valid, events: ["message.delivered", "message.read"] }, caller.key)
        Replies.assertError(unknown, 422, "unknown_event_type", "events")
        assert.include(unknown.json.error.message, "\"message.read\"")
        Replies.assertError(yield* create({ ...valid, events: [] }, caller.key), 400, "invalid_parameter", "events")
        Replies.assertError(
          yield* create({ ...valid, events: ["message.delivered", "x"], secret: "short" }, caller.key),
          422,
          "unknown_event_type",
          "events"
        )
        Replies.assertError(
          yield* create({ ...valid, secret: "x".repeat(15) }, caller.key),
          400,
          "invalid_parameter",
          "secret"
        )
        Replies.assertError(
          yield* create({ ...valid, secret: "x".repeat(257) }, caller.key),
          400,
          "invalid_parameter",
          "secret"
        )
        // half a surrogate pair cannot key an HMAC by its UTF-8 bytes: refused with the body's other ill-formed strings
        Replies.assertError(
          yield* create({ ...valid, secret: "x".repeat(15) + "\ud800" }, caller.key),
          400,
          "invalid_request"
        )
        for (const secret of ["x".repeat(16), "🔑".repeat(256)]) {
          assert.strictEqual((yield* create({ ...valid, secret }, caller.key)).status, 201)
        }
        const repeated = yield* create(
          { ...valid, events: ["sid.expiring", "brand.verified", "sid.expiring"] },
          caller.key
        )
        assert.deepStrictEqual(repeated.json.data.events, ["sid.expiring", "brand.verified"])
      }))

    it.effect("POST /v1/webhooks with a missing or mistyped field → 400, nothing created", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        for (
          const body of [{ events: valid.events, secret: valid.secret }, { ...valid, events: "message.sent" }, {
            ...valid,
            secret: 12
          }, { url: valid.url }]
        ) {
          const reply = yield* create(body, caller.key)
          assert.strictEqual(reply.status, 400, reply.text)
          assert.include(["invalid_request", "invalid_parameter"], reply.json.error.code)
        }
        assert.deepStrictEqual((yield* Http.request("GET", "/v1/webhooks", { key: caller.key })).json.data, [])
      }))

    it.effect("POST /v1/webhooks with an Idempotency-Key: the retry replays the first answer, one subscription", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const headers = { "idempotency-key": "webhook-once" }
        const first = yield* create(valid, caller.key, headers)
        const again = yield* create(valid, caller.key, headers)
        assert.strictEqual(first.status, 201, first.text)
        assert.strictEqual(again.text, first.text)
        assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
        Replies.assertError(
          yield* create({ ...valid, url: "https://other.example/in" }, caller.key, headers),
          409,
          "idempotency_conflict"
        )
        assert.strictEqual((yield* Http.request("GET", "/v1/webhooks", { key: caller.key })).json.data.length, 1)
      }))

    it.effect("GET /v1/webhooks pages newest first with a cursor; next_cursor is null exactly when has_more is false; page_size is checked", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) {
          ids.push((yield* create(valid, caller.key)).json.data.id)
          yield* TestClock.adjust("1 second")
        }
        const first = yield* Http.request("GET", "/v1/webhooks?page_size=2", { key: caller.key })
        assert.deepStrictEqual(first.json.data.map((w: { id: string }) => w.id), [ids[2], ids[1]])
        assert.strictEqual(first.json.pagination.has_more, true)
        const second = yield* Http.request(
          "GET",
          `/v1/webhooks?page_size=2&cursor=${first.json.pagination.next_cursor}`,
          { key: caller.key }
        )
        assert.deepStrictEqual(second.json.data.map((w: { id: string }) => w.id), [ids[0]])
        assert.deepStrictEqual(second.json.pagination, { has_more: false, next_cursor: null, page_size: 2 })
        Replies.assertError(
          yield* Http.request("GET", "/v1/webhooks?cursor=cur_bogus", { key: caller.key }),
          400,
          "invalid_cursor"
        )
        Replies.assertError(
          yield* Http.request("GET", "/v1/webhooks?page_size=0", { key: caller.key }),
          400,
          "invalid_parameter",
          "page_size"
        )
        const clamped = yield* Http.request("GET", "/v1/webhooks?page_size=500", { key: caller.key })
        assert.strictEqual(clamped.json.pagination.page_size, 100)
      }))

    it.effect("PATCH /v1/webhooks/{id} changes url, events and secret as checked at creation; the replaced secret is kept with its time", () =>
      Effect.gen(function*() {
        const { caller, webhook } = yield* subscribed()
        yield* TestClock.adjust("1 minute")
        const now = yield* Clock.currentTimeMillis
        const reply = yield* patch(webhook.id, caller.key, {
          url: "https://new.acme.example/in",
          events: ["sid.registered"],
          secret: "whsec-rotated-0123456789"
        })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.deepStrictEqual(Replies.decode(Envelope.Envelope(WebhooksJson.WebhookJson), reply.json).data, {
          ...webhook,
          url: "https://new.acme.example/in",
          events: ["sid.registered"]
        })
        assert.notInclude(reply.text, "whsec-")
        const after = yield* stored(webhook.id)
        assert.deepStrictEqual(Subscription.secretsOf(after), {
          secret: "whsec-rotated-0123456789",
          previous: { secret: valid.secret, replacedAt: now }
        })
        // nothing given changes nothing; the refusals of creation, naming their field
        assert.deepStrictEqual((yield* patch(webhook.id, caller.key, {})).json.data, reply.json.data)
        Replies.assertError(
          yield* patch(webhook.id, caller.key, { url: "http://new.acme.example/in" }),
          422,
          "webhook_url_not_allowed",
          "url"
        )
        Replies.assertError(
          yield* patch(webhook.id, caller.key, { events: ["brand.renamed"] }),
          422,
          "unknown_event_type",
          "events"
        )
        Replies.assertError(yield* patch(webhook.id, caller.key, { events: [] }), 400, "invalid_parameter", "events")
        Replies.assertError(
          yield* patch(webhook.id, caller.key, { secret: "short" }),
          400,
          "invalid_parameter",
          "secret"
        )
        Replies.assertError(yield* patch(webhook.id, caller.key, { status: "paused" }), 400, "invalid_request")
        Replies.assertError(yield* patch(webhook.id, caller.key, { url: 5 }), 400, "invalid_request")
        assert.deepStrictEqual((yield* get(webhook.id, caller.key)).json.data, reply.json.data)
      }))

    it.effect("PATCH status: active enables a disabled subscription (and is no change on an active one); disabled → 409 invalid_state_transition", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const subscriptions = yield* SubscriptionStore.SubscriptionStore
        const id = "wh_" + "0".repeat(20) + caller.accountId.slice(-6)
        yield* subscriptions.insert({
          id,
          accountId: caller.accountId,
          url: valid.url,
          events: ["message.sent"],
          secret: valid.secret,
          status: "disabled",
          createdAt: TestServer.start
        }, 1)
        assert.strictEqual((yield* get(id, caller.key)).json.data.status, "disabled")
        Replies.assertError(yield* patch(id, caller.key, { status: "disabled" }), 409, "invalid_state_transition")
        // a change of url alone leaves it disabled
        assert.strictEqual(
          (yield* patch(id, caller.key, { url: "https://fixed.acme.example/in" })).json.data.status,
          "disabled"
        )
        const enabled = yield* patch(id, caller.key, { status: "active" })
        assert.strictEqual(enabled.status, 200, enabled.text)
        assert.strictEqual(enabled.json.data.status, "active")
        assert.strictEqual((yield* patch(id, caller.key, { status: "active" })).json.data.status, "active")
        Replies.assertError(yield* patch(id, caller.key, { status: "disabled" }), 409, "invalid_state_transition")
        assert.strictEqual((yield* get(id, caller.key)).json.data.status, "active")
      }))

    it.effect("DELETE /v1/webhooks/{id} → 200 {id, deleted: true}; then it is not found, not listed, and deleted once", () =>
      Effect.gen(function*() {
        const { caller, webhook } = yield* subscribed()
        const reply = yield* remove(webhook.id, caller.key)
        assert.strictEqual(reply.status, 200, reply.text)
        Replies.assertMeta(reply)
        assert.deepStrictEqual(Replies.decode(Envelope.Envelope(WebhooksJson.WebhookDeleted), reply.json).data, {
          id: webhook.id,
          deleted: true
        })
        Replies.assertError(yield* get(webhook.id, caller.key), 404, "not_found")
        Replies.assertError(yield* patch(webhook.id, caller.key, { status: "active" }), 404, "not_found")
        Replies.assertError(yield* remove(webhook.id, caller.key), 404, "not_found")
        assert.deepStrictEqual((yield* Http.request("GET", "/v1/webhooks", { key: caller.key })).json.data, [])
      }))

    it.effect("another account's subscription, or an unknown id: 404 on GET, PATCH and DELETE, and never listed", () =>
      Effect.gen(function*() {
        const { caller, webhook } = yield* subscribed()
        const stranger = yield* TestAccounts.newCaller()
        Replies.assertError(yield* get(webhook.id, stranger.key), 404, "not_found")
        Replies.assertError(
          yield* patch(webhook.id, stranger.key, { secret: "whsec-stolen-0123456789" }),
          404,
          "not_found"
        )
        Replies.assertError(yield* remove(webhook.id, stranger.key), 404, "not_found")
        assert.deepStrictEqual((yield* Http.request("GET", "/v1/webhooks", { key: stranger.key })).json.data, [])
        assert.strictEqual((yield* stored(webhook.id)).secret, valid.secret)
        assert.deepStrictEqual((yield* get(webhook.id, caller.key)).json.data, webhook)
        for (const id of ["wh_00000000000000000000000000", "nonsense"]) {
          Replies.assertError(yield* get(id, caller.key), 404, "not_found")
        }
      }))

    it.effect("a send with callback_url needs an active subscription: 422 no_signing_secret before, 201 with one, 422 once it is deleted", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        const withCallback = { ...TestMessages.validSend, callback_url: "https://hooks.acme.example/callback" }
        Replies.assertError(
          yield* TestMessages.send(withCallback, { key: caller.key }),
          422,
          "no_signing_secret",
          "callback_url"
        )
        const created = yield* create(valid, caller.key)
        assert.strictEqual((yield* TestMessages.send(withCallback, { key: caller.key })).status, 201)
        const oldest = yield* (yield* SubscriptionStore.SubscriptionStore).oldestActive(caller.accountId)
        assert.deepStrictEqual(Option.map(oldest, (s) => s.id), Option.some(created.json.data.id))
        yield* remove(created.json.data.id, caller.key)
        Replies.assertError(
          yield* TestMessages.send(withCallback, { key: caller.key }),
          422,
          "no_signing_secret",
          "callback_url"
        )
      }))

    it.effect("a callback_url of 2,048 characters is taken; of 2,049, 422 invalid_callback_url", () =>
      Effect.gen(function*() {
        const { caller } = yield* subscribed()
        const base = "https://hooks.acme.example/callback?pad="
        const longest = base + "a".repeat(2_048 - base.length)
        const sent = yield* TestMessages.send({ ...TestMessages.validSend, callback_url: longest }, { key: caller.key })
        assert.strictEqual(sent.status, 201, sent.text)
        const refused = yield* TestMessages.send({ ...TestMessages.validSend, callback_url: `${longest}a` }, {
          key: caller.key
        })
        Replies.assertError(refused, 422, "invalid_callback_url", "callback_url")
        assert.include(refused.json.error.message, "2048")
      }))

    it.effect("POST /v1/webhooks past the account's most subscriptions → 422 webhook_subscription_limit_reached; a deleted one frees its place", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const max = Limits.defaults.webhookSubscriptions
        const ids: Array<string> = []
        for (let i = 0; i < max; i++) {
          ids.push(yield* TestWebhooks.subscribe(caller, { url: `https://hooks.acme.example/${i}` }))
        }
        const refused = yield* create(valid, caller.key)
        Replies.assertError(refused, 422, "webhook_subscription_limit_reached", null)
        assert.include(refused.json.error.message, String(max))
        assert.strictEqual(
          (yield* Http.request("GET", "/v1/webhooks?page_size=100", { key: caller.key })).json.data.length,
          max
        )
        assert.strictEqual(
          (yield* create(valid, (yield* TestAccounts.newCaller()).key)).status,
          201,
          "another account's are not counted"
        )
        assert.strictEqual((yield* remove(ids[0]!, caller.key)).status, 200)
        assert.strictEqual((yield* create(valid, caller.key)).status, 201, "a deleted one frees its place")
        Replies.assertError(yield* create(valid, caller.key), 422, "webhook_subscription_limit_reached", null)
      }))
  })

  layer(
    TestServer.layer({ store: store.layer(), urlPolicy: { allowHttp: true, allowPrivate: true } }),
    { timeout: 60_000 }
  )(`webhooks on ${store.name}, with http and private hosts allowed`, (it) => {
    it.effect("POST /v1/webhooks takes http://127.0.0.1 once the server allows it; credentials in the url are still refused", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const reply = yield* create({ ...valid, url: "http://127.0.0.1:8080/in" }, caller.key)
        assert.strictEqual(reply.status, 201, reply.text)
        Replies.assertError(
          yield* create({ ...valid, url: "http://u:p@127.0.0.1:8080/in" }, caller.key),
          422,
          "webhook_url_not_allowed",
          "url"
        )
      }))
  })
}
