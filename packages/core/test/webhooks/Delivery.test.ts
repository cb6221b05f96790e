import { assert, describe, it } from "@effect/vitest"
import { Delivery, Ids, Routing, WebhookTransport } from "@sendline/core"
import type { Event, Subscription } from "@sendline/core"
import { Effect, Option } from "effect"

const event: Event.Event = {
  id: "evt_1",
  accountId: "acct_1",
  type: "message.delivered",
  subjectId: "msg_1",
  createdAt: 1_000,
  data: { id: "msg_1" }
}

const subscription = (
  id: string,
  events: ReadonlyArray<Event.EventType>,
  status: Subscription.SubscriptionStatus = "active",
  accountId = "acct_1"
): Subscription.Subscription => ({
  id,
  accountId,
  url: `https://${id}.example.com/`,
  events,
  secret: "0123456789abcdef",
  status,
  createdAt: 0
})

const first = (attempt = 0) =>
  Effect.map(
    Delivery.first(event, { _tag: "Subscription", subscriptionId: "wh_1" }, "pending", 1_000),
    (d) => ({ ...d, attempt })
  )

const answered = (status: number) =>
  ({ _tag: "Answered", response: { status, durationMillis: 12, body: "ok" } }) as const

describe("Delivery", () => {
  it.effect("a 2xx succeeds; any other status fails http_<status> with its retry due on the schedule", () =>
    Effect.gen(function*() {
      const pending = yield* first()
      const ok = Delivery.attempted(pending, "https://x.example.com/", 2_000, answered(204), 2_012)
      assert.strictEqual(ok.state, "succeeded")
      assert.isUndefined(ok.nextAttemptAt)
      const failed = Delivery.attempted(pending, "https://x.example.com/", 2_000, answered(302), 2_012)
      assert.deepStrictEqual([failed.state, failed.error, failed.nextAttemptAt, failed.failingSince], [
        "failed",
        "http_302",
        32_012,
        2_000
      ])
      const retry = Option.getOrThrow(yield* Delivery.retryOf(failed, 2_012))
      assert.deepStrictEqual([retry.attempt, retry.state, retry.dueAt, retry.createdAt, retry.failingSince], [
        1,
        "pending",
        32_012,
        2_012,
        2_000
      ])
      assert.isTrue(Option.isNone(yield* Delivery.retryOf(ok, 2_012)))
    }).pipe(Effect.provide(Ids.layerTest)))

  it.effect("retry 6 failing schedules nothing and disables a subscription; a callback's chain just ends", () =>
    Effect.gen(function*() {
      const sixth = yield* first(6)
      const failed = Delivery.attempted(sixth, "https://x.example.com/", 5_000, {
        _tag: "Failed",
        failure: WebhookTransport.failure("connection_refused", "refused", 3)
      }, 5_003)
      assert.strictEqual(failed.error, "connection_refused")
      assert.isUndefined(failed.nextAttemptAt)
      assert.isTrue(Option.isNone(yield* Delivery.retryOf(failed, 5_003)))
      assert.isTrue(Delivery.disablesSubscription(failed))
      const callback = { ...failed, subscriptionId: undefined, callbackUrl: "https://cb.example.com/" }
      assert.isFalse(Delivery.disablesSubscription(callback))
      assert.isFalse(Delivery.disablesSubscription({ ...failed, attempt: 5 }))
    }).pipe(Effect.provide(Ids.layerTest)))

  it("the result a person reads: the status, or the error class", () => {
    const base = { error: undefined, statusCode: undefined } as unknown as Delivery.Delivery
    assert.strictEqual(Delivery.describeResult({ ...base, error: "http_503", statusCode: 503 }), "HTTP 503")
    assert.strictEqual(Delivery.describeResult({ ...base, error: "timeout" }), "timeout")
  })
})

describe("Routing", () => {
  it.effect("an event goes to each subscription of its account that asks for its type: pending when active, skipped when disabled", () =>
    Effect.gen(function*() {
      const made = yield* Routing.deliveriesOf({ event }, [
        subscription("wh_a", ["message.delivered"]),
        subscription("wh_b", ["message.failed"]),
        subscription("wh_c", ["message.delivered"], "disabled"),
        subscription("wh_d", ["message.delivered"], "active", "acct_2")
      ], 1_000)
      assert.deepStrictEqual(made.map((d) => [d.subscriptionId, d.state, d.attempt, d.dueAt]), [
        ["wh_a", "pending", 0, 1_000],
        ["wh_c", "skipped", 0, 1_000]
      ])
    }).pipe(Effect.provide(Ids.layerTest)))

  it.effect("a message's event with a callback_url goes there alone; other events ignore a callback URL", () =>
    Effect.gen(function*() {
      const subscriptions = [subscription("wh_a", ["message.delivered", "brand.verified"])]
      const [callback, ...none] = yield* Routing.deliveriesOf(
        { event, callbackUrl: "https://cb.example.com/" },
        subscriptions,
        1_000
      )
      assert.strictEqual(none.length, 0)
      assert.strictEqual(callback!.callbackUrl, "https://cb.example.com/")
      assert.isUndefined(callback!.subscriptionId)
      const brand = { ...event, type: "brand.verified" as const }
      const [toSubscription] = yield* Routing.deliveriesOf(
        { event: brand, callbackUrl: "https://cb.example.com/" },
        subscriptions,
        1_000
      )
      assert.strictEqual(toSubscription!.subscriptionId, "wh_a")
    }).pipe(Effect.provide(Ids.layerTest)))
})
