import { assert, layer } from "@effect/vitest"
import { Admin, Batches, Idempotency, Messaging, OptOutStore, SenderIdStore, Spending } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Context, Effect, Layer } from "effect"
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

  it.effect("a batch's charges are taken in request order, as sends one after the other: one over what is left is refused, a later one that fits is not", () =>
    Effect.gen(function*() {
      const { account, principal } = yield* TestCore.seedAccount()
      const admin = yield* Admin.Admin
      yield* admin.setSpendingLimit({ accountId: account.id, currency: "AUD", monthly: "0.15" })
      const batches = yield* Batches.Batches
      // 0.05 a segment: 0.05 fits, 0.15 (3 segments) would make 0.20, then 0.05 and 0.05 make 0.15, then 0.05 would not.
      const segments = [1, 3, 1, 1, 1]
      const batch = yield* batches.send(principal, {
        defaults: { senderId: "Acme", market: "AU" },
        messages: segments.map((n, i) => ({ to: `+6141234567${i}`, body: "x".repeat(n === 1 ? 10 : 400) }))
      })
      const outcomes = batch.results.map((result) => "error" in result ? result.error.code : result.status)
      assert.deepStrictEqual(outcomes, [
        "queued",
        "spending_limit_reached",
        "queued",
        "queued",
        "spending_limit_reached"
      ])
      const refusals = batch.results.flatMap((result) => "error" in result ? [result.error.message] : [])
      assert.include(refusals[0], "spend of 0.0500 AUD")
      assert.include(refusals[1], "spend of 0.1500 AUD")
      const usage = yield* (yield* Spending.Spending).usage(principal)
      assert.deepStrictEqual(usage.spend.map((line) => [line.amount, line.messages]), [[1500, 3]])
      // The refused ones are not kept: the batch counts three messages, all queued.
      const got = yield* batches.get(principal, batch.id)
      assert.deepStrictEqual(Object.entries(got.statuses).filter(([, n]) => n > 0), [["queued", 3]])
    }))
})

/** How often the send checks read the opt-outs and the Sender IDs' registrations. */
const reads = { optOuts: 0, registrations: 0 }
const countingStores = Layer.effectContext(Effect.gen(function*() {
  const optOuts = yield* OptOutStore.OptOutStore
  const senderIds = yield* SenderIdStore.SenderIdStore
  return Context.make(OptOutStore.OptOutStore, {
    ...optOuts,
    listed: (accountId, phones) =>
      Effect.zipRight(Effect.sync(() => reads.optOuts++), optOuts.listed(accountId, phones))
  }).pipe(Context.add(SenderIdStore.SenderIdStore, {
    ...senderIds,
    findRegistered: (accountId, senderId, market) =>
      Effect.zipRight(Effect.sync(() => reads.registrations++), senderIds.findRegistered(accountId, senderId, market))
  }))
})).pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" })))

layer(TestCore.layerOn(countingStores))("Batches' reads", (it) => {
  it.effect("a batch reads its recipients' opt-outs once, and a Sender ID's registration once, not once a message", () =>
    Effect.gen(function*() {
      const { principal } = yield* TestCore.seedAccount()
      const optOuts = yield* OptOutStore.OptOutStore
      yield* optOuts.addMany(principal.accountId, ["+61412345002"], "import", 0)
      const batches = yield* Batches.Batches
      const messages = Array.from(
        { length: 50 },
        (_, i) => ({ to: `+614123450${String(i).padStart(2, "0")}`, variables: { name: "A" } })
      )
      reads.optOuts = 0
      reads.registrations = 0
      const batch = yield* batches.send(principal, { defaults, messages })
      assert.deepStrictEqual(reads, { optOuts: 1, registrations: 1 })
      assert.deepStrictEqual(
        batch.results.flatMap((result, index) => "error" in result ? [[index, result.error.code]] : []),
        [
          [2, "recipient_opted_out"]
        ]
      )
    }))
})
