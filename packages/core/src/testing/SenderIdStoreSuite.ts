/**
 * The store suite's tests of `SenderIdStore`: Sender ID records.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { SenderIdRecord } from "../senderIds/SenderId.js"
import { SenderIdStore } from "../senderIds/SenderIdStore.js"
import type { Stores } from "../Stores.js"
import { fresh, freshAccount, makeSenderId, T } from "./Fixtures.js"

/** Registers the tests of `SenderIdStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("SenderIdStore: inserts and finds records by id within their account", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const registered = makeSenderId(accountId, { registeredAt: T + 10 })
      const pending: SenderIdRecord = {
        id: fresh("sid"),
        accountId,
        senderId: "Acme Alerts",
        market: "NZ",
        brandName: "Acme NZ",
        status: "pending",
        createdAt: T + 1
      }
      yield* senderIds.insert(registered)
      yield* senderIds.insert(pending)
      assert.deepStrictEqual(yield* senderIds.findById(accountId, registered.id), Option.some(registered))
      assert.deepStrictEqual(yield* senderIds.findById(accountId, pending.id), Option.some(pending))
      assert.isTrue(Option.isNone(yield* senderIds.findById(otherAccountId, registered.id)))
      assert.isTrue(Option.isNone(yield* senderIds.findById(accountId, fresh("sid"))))
    }))

  it.effect("SenderIdStore: findRegistered needs the account, the market and status registered", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const registered = makeSenderId(accountId)
      yield* senderIds.insert(registered)
      for (const status of ["pending", "info_requested", "rejected", "expired"] as const) {
        yield* senderIds.insert(makeSenderId(accountId, { senderId: "Bolt", status }))
      }
      yield* senderIds.insert(makeSenderId(accountId, { market: "NZ", status: "pending" }))

      assert.deepStrictEqual(yield* senderIds.findRegistered(accountId, "Acme", "AU"), Option.some(registered))
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(otherAccountId, "Acme", "AU")), "wrong account")
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Acme", "NZ")), "wrong market")
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Acme", "SG")), "no record")
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Bolt", "AU")), "not registered")
    }))

  it.effect("SenderIdStore: findHeld answers every account's records of the string in the market, but rejected and expired ones", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("H")
      const base = { brandName: "Acme Pty Ltd", createdAt: T, senderId, market: "AU" }
      const held: Array<SenderIdRecord> = []
      for (const status of ["registered", "pending", "info_requested"] as const) {
        const record: SenderIdRecord = { ...base, id: fresh("sid"), accountId: yield* freshAccount, status }
        yield* senderIds.insert(record)
        held.push(record)
      }
      for (const status of ["rejected", "expired"] as const) {
        yield* senderIds.insert({ ...base, id: fresh("sid"), accountId: yield* freshAccount, status })
      }
      yield* senderIds.insert({ ...base, id: fresh("sid"), accountId: yield* freshAccount, market: "NZ", status: "registered" })
      const found = yield* senderIds.findHeld(senderId, "AU")
      assert.deepStrictEqual([...found].sort((a, b) => a.id.localeCompare(b.id)), held)
      assert.deepStrictEqual(yield* senderIds.findHeld(fresh("H"), "AU"), [])
    }))

  it.effect("SenderIdStore: findRegistered answers the newest of several registered records", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const record = (createdAt: number) => makeSenderId(accountId, {}, createdAt)
      const [older, newest, old] = [record(T + 1_000), record(T + 2_000), record(T)]
      for (const r of [older, newest, old]) yield* senderIds.insert(r)
      assert.deepStrictEqual(yield* senderIds.findRegistered(accountId, "Acme", "AU"), Option.some(newest))
    }))
}
