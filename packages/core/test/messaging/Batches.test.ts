import { assert, layer } from "@effect/vitest"
import { Batches, Idempotency, Messaging } from "@sendline/core"
import { Effect } from "effect"
import * as TestCore from "../TestCore.js"

const defaults = { senderId: "Acme", market: "AU", body: "Hi {{name}}" }

layer(TestCore.layer)("Batches", (it) => {
  it.effect("a batch's message is refused as the same single send is, with the same code and field", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const batches = yield* Batches.Batches
      const messaging = yield* Messaging.Messaging
      const requests = [
        { to: "+61412345678", body: "" },
        { to: "+6112", body: "x" },
        { to: "+61412345678", body: "x", senderId: "Nope" },
        { to: "+61412345678", body: "x", reference: "r".repeat(256) },
        { to: "+61412345678", body: "x" }
      ]
      const batch = yield* batches.send(principal, { defaults, messages: requests })
      for (const [index, request] of requests.entries()) {
        const single = yield* Effect.either(messaging.send(principal, { ...defaults, ...request }))
        const result = batch.results[index]!
        if (single._tag === "Right") assert.isTrue("id" in result)
        else {
          assert.isTrue("error" in result)
          const refused = single.left
          assert.strictEqual(refused._tag, "RuleViolation")
          if ("error" in result && refused._tag === "RuleViolation") {
            assert.deepStrictEqual([result.error.code, result.error.field], [refused.code, refused.field])
          }
        }
      }
    }))

  it.effect("a batch with a key the account used answers that batch again, sending nothing; another request with it conflicts", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const batches = yield* Batches.Batches
      const idempotencyKey = Idempotency.Key.make("batch-7")
      const input = { defaults, messages: [{ to: "+61412345678", variables: { name: "Ann" } }], idempotencyKey }
      const first = yield* batches.send(principal, input)
      const again = yield* batches.send(principal, input)
      assert.deepStrictEqual(again, first)
      const other = yield* Effect.flip(
        batches.send(principal, { ...input, messages: [{ to: "+61412345679", variables: { name: "Bo" } }] })
      )
      assert.strictEqual(other.code, "idempotency_conflict")
      const got = yield* batches.get(principal, first.id)
      assert.strictEqual(got.statuses.queued, 1)
    }))
})
