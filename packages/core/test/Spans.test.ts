import { assert, layer } from "@effect/vitest"
import {
  Admin,
  Auth,
  BrandVerifier,
  Idempotency,
  Ids,
  Markets,
  Messaging,
  MessagingConfig,
  Services
} from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Clock, Effect, Layer, Tracer } from "effect"
import * as TestCore from "./TestCore.js"

/** `effect` with a tracer that records the name of every span started, and those names. */
const recordingSpans = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tracerWith((tracer) => {
    const names: Array<string> = []
    const recording = Tracer.make({
      span: (name, ...rest) => {
        names.push(name)
        return tracer.span(name, ...rest)
      },
      context: (f, fiber) => tracer.context(f, fiber)
    })
    return Effect.map(Effect.withTracer(effect, recording), () => names)
  })

layer(TestCore.layer)("use case spans", (it) => {
  it.effect("every use case call is a span named after it", () =>
    Effect.gen(function*() {
      const names = yield* recordingSpans(Effect.gen(function*() {
        const { account, issued } = yield* TestCore.seedAccount()
        const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${issued.secret}`)
        const messaging = yield* Messaging.Messaging
        const scheduledAt = (yield* Clock.currentTimeMillis) + 3_600_000
        const message = yield* messaging.send(principal, {
          ...TestCore.auMessage,
          idempotencyKey: Idempotency.Key.make("k"),
          scheduledAt
        })
        yield* messaging.preview(principal, { body: "Hi" })
        yield* messaging.get(principal, message.id)
        yield* messaging.list(principal, { filter: {} })
        yield* messaging.cancel(principal, message.id)
        yield* (yield* Idempotency.Idempotency).begin(account.id, "k", "f")
        yield* (yield* Admin.Admin).revokeKey(issued.apiKey.id)
      }))
      assert.deepStrictEqual(names.filter((name) => /^(Admin|Auth|Idempotency|Messaging)\./.test(name)), [
        "Admin.createAccount",
        "Admin.importSenderId",
        "Admin.createKey",
        "Auth.authenticate",
        "Messaging.send",
        "Messaging.preview",
        "Messaging.get",
        "Messaging.list",
        "Messaging.cancel",
        "Idempotency.begin",
        "Admin.revokeKey"
      ])
    }))
})

const untraced = Services.withoutSpans(Services.layerWithoutDefaults).pipe(
  Layer.provideMerge(Layer.mergeAll(Markets.layer, Ids.layerTest, MessagingConfig.layer(), BrandVerifier.layer)),
  Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" }))
)

layer(untraced)("use cases built withoutSpans", (it) => {
  it.effect("start no span, and still work", () =>
    Effect.gen(function*() {
      const names = yield* recordingSpans(Effect.gen(function*() {
        const { issued } = yield* TestCore.seedAccount()
        const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${issued.secret}`)
        const message = yield* (yield* Messaging.Messaging).send(principal, TestCore.auMessage)
        assert.strictEqual(message.status, "queued")
      }))
      assert.deepStrictEqual(names.filter((name) => /^(Admin|Auth|Idempotency|Messaging)\./.test(name)), [])
    }))
})
