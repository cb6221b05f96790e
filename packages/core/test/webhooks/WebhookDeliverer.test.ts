import { assert, describe, it } from "@effect/vitest"
import type { Account, Delivery } from "@sendline/core"
import { MailSender, Messaging, RetrySchedule, WebhookDeliverer, Webhooks, WebhookTransport } from "@sendline/core"
import { CapturingMailer, CapturingTransport } from "@sendline/core/testing"
import { Clock, Deferred, Duration, Effect, Fiber, TestClock } from "effect"
import { createHmac } from "node:crypto"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

const deliver = Effect.flatMap(WebhookDeliverer.WebhookDeliverer, (w) => w.runOnce)
const mail = Effect.flatMap(MailSender.MailSender, (m) => m.runOnce)
const requests = Effect.flatMap(CapturingTransport.CapturingTransport, (t) => t.requests)
const answerWith = (answer: CapturingTransport.Answer) =>
  Effect.flatMap(CapturingTransport.CapturingTransport, (t) => t.answerWith(answer))
const adjust = (millis: number) => TestClock.adjust(Duration.millis(millis))

const receiverUrl = "https://receiver.example.com/hooks"
const secret = "whsec_first_secret_0123"

/** An account allowed to send and manage webhooks, subscribed to `events` at `receiverUrl`. */
const subscribed = (events: ReadonlyArray<string> = ["message.queued"]) =>
  Effect.gen(function*() {
    const { principal } = yield* TestCore.seedAccount(["messaging:send", "messaging:read", "webhooks:manage"])
    const subscription = yield* (yield* Webhooks.Webhooks).create(principal, { url: receiverUrl, events, secret })
    return { principal, subscription }
  })

const send = (principal: Account.Principal, extra: { readonly callbackUrl?: string } = {}) =>
  Effect.flatMap(Messaging.Messaging, (m) => m.send(principal, { ...TestCore.auMessage, ...extra }))

const deliveries = (
  principal: Account.Principal,
  id: string,
  filter: { readonly state?: Delivery.DeliveryState } = {}
) =>
  Effect.map(
    Effect.flatMap(Webhooks.Webhooks, (w) => w.deliveries(principal, id, filter, { pageSize: 100 })),
    (page) => page.items
  )

const hex = (key: string, body: string) => createHmac("sha256", Buffer.from(key, "utf8")).update(body).digest("hex")
const standard = (key: string, headers: Readonly<Record<string, string>>, body: string) =>
  `v1,${
    createHmac("sha256", Buffer.from(key, "utf8")).update(
      `${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`
    ).digest("base64")
  }`

/** Every retry's delay after the failure before it, in ms. */
const delays = RetrySchedule.delays.map(Duration.toMillis)

for (const store of TestStores.all) {
  describe(`WebhookDeliverer (${store.name})`, () => {
    const layer = () => TestWorkers.layer({}, store)

    it.effect("an event reaches its subscription at once, signed over the exact bytes, as attempt 0", () =>
      Effect.gen(function*() {
        const { principal, subscription } = yield* subscribed()
        const message = yield* send(principal)
        assert.strictEqual(yield* deliver, 1)
        const [request, ...more] = yield* requests
        assert.strictEqual(more.length, 0)
        assert.strictEqual(request!.url, receiverUrl)
        assert.strictEqual(request!.at, 0)
        const body = JSON.parse(request!.body)
        assert.strictEqual(body.type, "message.queued")
        assert.strictEqual(body.data.id, message.id)
        assert.deepStrictEqual(Object.keys(body), ["id", "type", "created_at", "data"])
        assert.strictEqual(request!.headers["x-service-signature"], hex(secret, request!.body))
        assert.strictEqual(request!.headers["webhook-signature"], standard(secret, request!.headers, request!.body))
        assert.strictEqual(request!.headers["x-service-event-id"], body.id)
        assert.strictEqual(request!.headers["x-service-delivery-attempt"], "0")
        const [logged] = yield* deliveries(principal, subscription.id)
        assert.strictEqual(logged!.state, "succeeded")
        assert.strictEqual(logged!.statusCode, 200)
        assert.strictEqual(yield* deliver, 0, "delivered once")
      }).pipe(Effect.provide(layer())))

    it.effect("each retry at its instant to the second: 30 s, 2 min, 15 min, 1 h, 4 h, 24 h after each failure", () =>
      Effect.gen(function*() {
        yield* answerWith(CapturingTransport.status(500, "down"))
        const { principal } = yield* subscribed()
        yield* send(principal)
        yield* deliver
        let failedAt = 0
        for (const [i, delay] of delays.entries()) {
          yield* adjust(delay - 1_000)
          assert.strictEqual(yield* deliver, 0, `retry ${i + 1} not a second early`)
          yield* adjust(1_000)
          assert.strictEqual(yield* deliver, 1, `retry ${i + 1} at its instant`)
          failedAt += delay
          const made = yield* requests
          assert.strictEqual(made[i + 1]!.at, failedAt)
          assert.strictEqual(made[i + 1]!.headers["x-service-delivery-attempt"], String(i + 1))
        }
        assert.deepStrictEqual((yield* requests).map((r) => r.at / 1000), [0, 30, 150, 1_050, 4_650, 19_050, 105_450])
      }).pipe(Effect.provide(layer())))

    it.effect("retry 6 failing disables the subscription, skips its pending deliveries and mails the admin exactly once", () =>
      Effect.gen(function*() {
        yield* answerWith(() => Effect.fail(WebhookTransport.failure("timeout", "no answer in 10 s", 10_000)))
        const { principal, subscription } = yield* subscribed()
        yield* send(principal)
        yield* deliver
        for (const delay of delays.slice(0, -1)) {
          yield* adjust(delay)
          yield* deliver
        }
        // a second event, still pending at its retry 1 when the first one's retry 6 fails
        yield* adjust(delays.at(-1)! - 10_000)
        yield* send(principal)
        yield* deliver
        yield* adjust(10_000)
        assert.strictEqual(yield* deliver, 1, "retry 6 of the first event")
        const webhooks = yield* Webhooks.Webhooks
        assert.strictEqual((yield* webhooks.get(principal, subscription.id)).status, "disabled")
        assert.strictEqual((yield* requests).length, 8)
        const skipped = yield* deliveries(principal, subscription.id, { state: "skipped" })
        assert.deepStrictEqual(skipped.map((d) => d.attempt), [1], "the second event's pending retry stops")
        yield* adjust(Duration.toMillis(Duration.days(2)))
        assert.strictEqual(yield* deliver, 0)
        assert.strictEqual((yield* requests).length, 8, "no attempt after the disable")
        yield* mail
        yield* mail
        const sent = yield* Effect.flatMap(CapturingMailer.CapturingMailer, (m) => m.sent)
        assert.strictEqual(sent.length, 1)
        assert.strictEqual(sent[0]!.to, "ops@acme.test")
        assert.include(sent[0]!.text, receiverUrl)
        assert.include(sent[0]!.text, "timeout")
        assert.include(sent[0]!.text, "failing since 1970-01-01T00:00:00.000+00:00")
      }).pipe(Effect.provide(layer())))

    it.effect("a receiver that recovers at retry 3 gets the event then, and no attempt follows", () =>
      Effect.gen(function*() {
        let calls = 0
        yield* answerWith(() => Effect.succeed({ status: ++calls <= 3 ? 503 : 204, durationMillis: 5, body: "" }))
        const { principal, subscription } = yield* subscribed()
        yield* send(principal)
        yield* deliver
        for (const delay of delays.slice(0, 3)) {
          yield* adjust(delay)
          yield* deliver
        }
        yield* adjust(Duration.toMillis(Duration.days(3)))
        assert.strictEqual(yield* deliver, 0)
        const log = yield* deliveries(principal, subscription.id)
        assert.deepStrictEqual(log.map((d) => [d.attempt, d.state, d.statusCode ?? null, d.error ?? null]), [
          [3, "succeeded", 204, null],
          [2, "failed", 503, "http_503"],
          [1, "failed", 503, "http_503"],
          [0, "failed", 503, "http_503"]
        ])
        assert.strictEqual(log[1]!.nextAttemptAt, log[0]!.attemptedAt, "each failure names when the next is due")
        assert.strictEqual(
          (yield* Effect.flatMap(Webhooks.Webhooks, (w) => w.get(principal, subscription.id))).status,
          "active"
        )
      }).pipe(Effect.provide(layer())))

    it.effect("a callback_url chain retries on the same schedule, signed with the subscription's secret, and never disables it", () =>
      Effect.gen(function*() {
        const callbackUrl = "https://app.example.com/sms-callback"
        yield* answerWith((request) =>
          Effect.succeed({ status: request.url === callbackUrl ? 500 : 200, durationMillis: 1, body: "" })
        )
        const { principal, subscription } = yield* subscribed(["message.queued", "brand.verified"])
        yield* send(principal, { callbackUrl })
        yield* deliver
        for (const delay of delays) {
          yield* adjust(delay)
          yield* deliver
        }
        yield* adjust(Duration.toMillis(Duration.days(2)))
        yield* deliver
        const made = yield* requests
        assert.strictEqual(made.length, 7, "attempt 0 and six retries, to the callback only")
        assert.isTrue(
          made.every((r) => r.url === callbackUrl && r.headers["x-service-signature"] === hex(secret, r.body))
        )
        assert.strictEqual(
          (yield* Effect.flatMap(Webhooks.Webhooks, (w) => w.get(principal, subscription.id))).status,
          "active"
        )
        assert.strictEqual((yield* deliveries(principal, subscription.id)).length, 0, "not in the subscription's log")
        yield* mail
        assert.strictEqual((yield* Effect.flatMap(CapturingMailer.CapturingMailer, (m) => m.sent)).length, 0)
      }).pipe(Effect.provide(layer())))

    it.effect("events while disabled are recorded skipped, and redelivered once it is active again", () =>
      Effect.gen(function*() {
        yield* answerWith(CapturingTransport.status(500))
        const { principal, subscription } = yield* subscribed()
        yield* send(principal)
        yield* deliver
        for (const delay of delays) {
          yield* adjust(delay)
          yield* deliver
        }
        const webhooks = yield* Webhooks.Webhooks
        assert.strictEqual((yield* webhooks.get(principal, subscription.id)).status, "disabled")
        const since = yield* Clock.currentTimeMillis
        yield* send(principal)
        yield* send(principal)
        yield* deliver
        assert.strictEqual((yield* requests).length, 7, "nothing sent while disabled")
        assert.strictEqual((yield* deliveries(principal, subscription.id, { state: "skipped" })).length, 2)
        const refused = yield* Effect.either(webhooks.redeliver(principal, subscription.id, since))
        assert.isTrue(
          refused._tag === "Left" && refused.left._tag === "Conflict",
          "a disabled subscription is not redelivered to"
        )
        yield* answerWith(CapturingTransport.status(200))
        yield* webhooks.update(principal, subscription.id, { status: "active" })
        assert.deepStrictEqual(yield* webhooks.redeliver(principal, subscription.id, since), {
          redelivered: 2,
          hasMore: false
        })
        assert.deepStrictEqual(yield* webhooks.redeliver(principal, subscription.id, since), {
          redelivered: 0,
          hasMore: false
        })
        assert.strictEqual(yield* deliver, 2)
        assert.strictEqual((yield* deliveries(principal, subscription.id, { state: "succeeded" })).length, 2)
        yield* send(principal)
        assert.strictEqual(yield* deliver, 1, "new events go out again")
      }).pipe(Effect.provide(layer())))

    it.effect("after a secret change both secrets sign webhook-signature for 24 hours; X-Service-Signature uses the new one at once", () =>
      Effect.gen(function*() {
        const { principal, subscription } = yield* subscribed()
        const rotated = "whsec_second_secret_456"
        yield* adjust(1_000)
        yield* (yield* Webhooks.Webhooks).update(principal, subscription.id, { secret: rotated })
        yield* send(principal)
        yield* deliver
        yield* adjust(Duration.toMillis(Duration.hours(24)))
        yield* send(principal)
        yield* deliver
        const [during, after] = yield* requests
        assert.strictEqual(during!.headers["x-service-signature"], hex(rotated, during!.body))
        assert.strictEqual(
          during!.headers["webhook-signature"],
          `${standard(rotated, during!.headers, during!.body)} ${standard(secret, during!.headers, during!.body)}`
        )
        assert.strictEqual(after!.headers["webhook-signature"], standard(rotated, after!.headers, after!.body))
      }).pipe(Effect.provide(layer())))

    it.effect("the loop delivers by the Clock alone, and a receiver that never answers holds only its share of the slots", () =>
      Effect.gen(function*() {
        const stuckUrl = "https://stuck.example.com/hooks"
        // the stuck receiver answers after 10 s of Clock time, as the transport's timeout would end it
        yield* answerWith((request) =>
          request.url === stuckUrl
            ? Effect.as(Effect.sleep("10 seconds"), { status: 200, durationMillis: 10_000, body: "" })
            : Effect.succeed({ status: 200, durationMillis: 1, body: "" })
        )
        const stuck = yield* TestCore.seedAccount(["messaging:send", "webhooks:manage"])
        const webhooks = yield* Webhooks.Webhooks
        yield* webhooks.create(stuck.principal, { url: stuckUrl, events: ["message.queued"], secret })
        const { principal } = yield* subscribed()
        for (let i = 0; i < 40; i++) yield* send(stuck.principal)
        yield* send(principal)
        const running = yield* Effect.fork((yield* WebhookDeliverer.WebhookDeliverer).run)
        yield* TestWorkers.advanceUntil(
          "the healthy receiver's event is delivered",
          Effect.map(requests, (all) => all.some((r) => r.url === receiverUrl)),
          { step: "100 millis" },
          20
        )
        const stuckInFlight = (yield* requests).filter((r) => r.url === stuckUrl).length
        assert.strictEqual(
          stuckInFlight,
          WebhookDeliverer.defaults.perDestination,
          "the stuck receiver holds its share, no more"
        )
        yield* Fiber.interrupt(running)
      }).pipe(Effect.provide(layer())))

    it.effect("an account whose receivers never answer holds only its share of the slots: another account's event is attempted at once", () =>
      Effect.gen(function*() {
        const stuckUrls = Array.from({ length: 5 }, (_, i) => `https://stuck-${i}.example.com/hooks`)
        // the other account's event arriving, or every slot of the process taken by the stuck ones: whichever comes first
        const arrived = yield* Deferred.make<boolean>()
        let stuckInFlight = 0
        yield* answerWith((request) =>
          stuckUrls.includes(request.url)
            ? Effect.zipRight(
              ++stuckInFlight === WebhookDeliverer.defaults.concurrency
                ? Deferred.succeed(arrived, false)
                : Effect.void,
              Effect.never
            )
            : Effect.as(Deferred.succeed(arrived, true), { status: 200, durationMillis: 1, body: "" })
        )
        const stuck = yield* TestCore.seedAccount(["messaging:send", "webhooks:manage"])
        const webhooks = yield* Webhooks.Webhooks
        for (const url of stuckUrls) {
          yield* webhooks.create(stuck.principal, { url, events: ["message.queued"], secret })
        }
        const { principal } = yield* subscribed()
        // 100 deliveries to the five, more than the slots of a process even at their cap per destination, all due first
        for (let i = 0; i < 20; i++) yield* send(stuck.principal)
        yield* adjust(1)
        yield* send(principal)
        const running = yield* Effect.fork((yield* WebhookDeliverer.WebhookDeliverer).run)
        assert.isTrue(
          yield* Deferred.await(arrived),
          "the other account's event is attempted before the stuck ones take every slot"
        )
        assert.isTrue((yield* requests).every((r) => r.at === 1), "at once: the clock never moved")
        yield* TestWorkers.eventually(
          "the stuck account's attempts started",
          Effect.sync(() => stuckInFlight >= WebhookDeliverer.defaults.perAccount)
        )
        assert.strictEqual(
          stuckInFlight,
          WebhookDeliverer.defaults.perAccount,
          "the stuck account holds its share, no more"
        )
        yield* Fiber.interrupt(running)
      }).pipe(Effect.provide(layer())))
  })
}
