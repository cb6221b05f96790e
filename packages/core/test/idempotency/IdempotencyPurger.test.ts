import { assert, layer } from "@effect/vitest"
import { Idempotency, IdempotencyPurger, IdempotencyStore } from "@sendline/core"
import { Clock, Effect, Layer, TestClock } from "effect"
import * as TestCore from "../TestCore.js"

const purger = IdempotencyPurger.layer().pipe(Layer.provideMerge(TestCore.layer))

layer(purger)("IdempotencyPurger", (it) => {
  it.effect("no record survives its 24 hours plus one purge interval", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      const store = yield* IdempotencyStore.IdempotencyStore
      for (const key of ["k1", "k2", "k3"]) yield* idempotency.begin(account.id, key, "fp")
      yield* Effect.forkScoped((yield* IdempotencyPurger.IdempotencyPurger).run)

      yield* TestClock.adjust(Idempotency.retentionMillis - 1_000)
      const conflict = yield* Effect.flip(idempotency.begin(account.id, "k1", "another request"))
      assert.strictEqual(conflict.code, "idempotency_conflict", "a record within its 24 hours is kept")

      yield* TestClock.adjust(1_000 + IdempotencyPurger.defaults.pollMillis)
      const now = yield* Clock.currentTimeMillis
      assert.strictEqual(yield* store.purge(now - Idempotency.retentionMillis, 1_000), 0, "none expired is left")
      assert.strictEqual((yield* idempotency.begin(account.id, "k2", "another request"))._tag, "Reserved")
    }).pipe(Effect.scoped))
})

layer(purger)("IdempotencyPurger passes", (it) => {
  it.effect("one pass deletes at most a batch, until none expired is left", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const idempotency = yield* Idempotency.Idempotency
      for (let i = 0; i < 5; i++) yield* idempotency.begin(account.id, `batch-${i}`, "fp")
      yield* TestClock.adjust(Idempotency.retentionMillis + 1)
      const small = yield* IdempotencyPurger.make({ batchSize: 2 })
      assert.deepStrictEqual([yield* small.runOnce, yield* small.runOnce, yield* small.runOnce, yield* small.runOnce], [
        2,
        2,
        1,
        0
      ])
    }))
})
