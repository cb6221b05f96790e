/**
 * The store suite's tests of a batch's writes and reads on `MessageStore` (CONTRACT §13): all of a
 * batch in one transaction, the spending limit consumed in request order, its key unique, its
 * counts by status, and the list's `batchId` filter.
 *
 * @since 0.3.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { EventStore } from "../../EventStore.js"
import type { NewBatch, Valid } from "../../messaging/Batch.js"
import { MessageStore } from "../../messaging/MessageStore.js"
import { SpendingStore } from "../../messaging/SpendingStore.js"
import type { Stores } from "../../Stores.js"
import { fresh, freshAccount, makeEvent, makeMessage, T } from "../Fixtures.js"

/** A valid entry `index` of batch `batchId`: a queued AU message at 0.0500 AUD with its event and charge. */
const validEntry = (accountId: string, batchId: string, index: number): Valid => {
  const message = makeMessage(accountId, fresh("msg"), { batchId, createdAt: T })
  return {
    _tag: "Valid",
    index,
    message,
    event: Option.some(makeEvent(message, fresh("evt"), T)),
    charge: { accountId, currency: "AUD", month: "2026-11", amount: 500, segments: 1 }
  }
}

/** A batch of `accountId` with the given entries: valid ones at the indexes in `valid`, invalid elsewhere. */
const newBatch = (accountId: string, count: number, valid: ReadonlyArray<number>, key?: string): NewBatch => {
  const id = fresh("bat")
  return {
    id,
    accountId,
    createdAt: T,
    ...(key === undefined ? {} : { idempotencyKey: key, requestDigest: "digest" }),
    entries: Array.from({ length: count }, (_, index) =>
      valid.includes(index)
        ? validEntry(accountId, id, index)
        : { _tag: "Invalid", index, error: { code: "empty_body", message: "body must not be empty.", field: "body" } }),
    refused: (refusal) => ({ code: "spending_limit_reached", message: `past ${refusal.limit}` })
  }
}

/** Registers the batch tests of `MessageStore` on a suite's `it`. @since 0.3.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("batch: insertBatch writes the valid messages, their events and the record, in request order", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const batch = newBatch(accountId, 4, [0, 2, 3])
      const record = yield* messages.insertBatch(batch)
      assert.deepStrictEqual([record.accepted, record.rejected], [3, 1])
      assert.deepStrictEqual(record.results.map((r) => r.index), [0, 1, 2, 3])
      assert.deepStrictEqual(Option.getOrThrow(yield* messages.findBatch(accountId, batch.id)), record)
      assert.isTrue(Option.isNone(yield* messages.findBatch(fresh("acct"), batch.id)), "another account's")
      for (const entry of batch.entries) {
        if (entry._tag !== "Valid") continue
        assert.deepStrictEqual(Option.getOrThrow(yield* messages.findById(accountId, entry.message.id)), entry.message)
        assert.strictEqual((yield* events.listBySubject(accountId, entry.message.id)).length, 1)
      }
      const listed = yield* messages.list(accountId, { batchId: batch.id }, Option.none(), 10)
      assert.strictEqual(listed.length, 3)
      assert.deepStrictEqual(yield* messages.list(accountId, { batchId: fresh("bat") }, Option.none(), 10), [])
    }))

  it.effect("batch: countBatch counts the batch's messages in every status, zeros too", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const batch = newBatch(accountId, 3, [0, 1, 2])
      yield* messages.insertBatch(batch)
      const first = batch.entries[0] as Valid
      yield* messages.transition([{ next: { ...first.message, status: "sent" }, from: "queued", event: Option.none() }])
      assert.deepStrictEqual(yield* messages.countBatch(batch.id), {
        scheduled: 0,
        queued: 2,
        sent: 1,
        delivered: 0,
        undelivered: 0,
        failed: 0,
        cancelled: 0
      })
    }))

  it.effect("batch: the spending limit is consumed in request order, the messages past it refused and not written", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const spending = yield* SpendingStore
      const accountId = yield* freshAccount
      yield* spending.setLimit(accountId, { currency: "AUD", monthly: 1_000 })
      const batch = newBatch(accountId, 3, [0, 1, 2])
      const record = yield* messages.insertBatch(batch)
      assert.deepStrictEqual([record.accepted, record.rejected], [2, 1])
      assert.deepStrictEqual(record.results[2], {
        index: 2,
        error: { code: "spending_limit_reached", message: "past 1000" }
      })
      const third = batch.entries[2] as Valid
      assert.isTrue(Option.isNone(yield* messages.findById(accountId, third.message.id)))
      const [spend] = yield* spending.spendOf(accountId, "2026-11")
      assert.deepStrictEqual([spend?.amount, spend?.messages], [1_000, 2])

      // none left under the limit: nothing written, the record has no accepted message
      const none = newBatch(accountId, 2, [0, 1])
      const refused = yield* messages.insertBatch(none)
      assert.deepStrictEqual([refused.accepted, refused.rejected], [0, 2])
      assert.isTrue(Option.isNone(yield* messages.findBatch(accountId, none.id)))
      assert.deepStrictEqual(yield* messages.countBatch(none.id), yield* messages.countBatch(fresh("bat")))
    }))

  it.effect("batch: an idempotency key is held by one batch of the account; nothing of a second is written", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const accountId = yield* freshAccount
      const key = fresh("key")
      const first = newBatch(accountId, 1, [0], key)
      yield* messages.insertBatch(first)
      const second = newBatch(accountId, 2, [0, 1], key)
      const taken = yield* Effect.flip(messages.insertBatch(second))
      assert.strictEqual(taken._tag, "IdempotencyKeyTaken")
      assert.isTrue(Option.isNone(yield* messages.findById(accountId, (second.entries[0] as Valid).message.id)))
      assert.strictEqual(Option.getOrThrow(yield* messages.findBatchByIdempotencyKey(accountId, key, T)).id, first.id)
      assert.isTrue(Option.isNone(yield* messages.findBatchByIdempotencyKey(accountId, key, T + 1)))
      yield* messages.releaseBatchIdempotencyKey(accountId, key, T + 1)
      assert.isTrue(Option.isNone(yield* messages.findBatchByIdempotencyKey(accountId, key, T)))
      yield* messages.insertBatch(second)
    }))
}
