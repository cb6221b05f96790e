/**
 * The store suite's tests of `SenderIdStore`: Sender ID records.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import type { SenderIdRecord } from "../senderIds/SenderId.js"
import { SenderIdStore, SenderIdTaken } from "../senderIds/SenderIdStore.js"
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
      const inAnotherCase = yield* senderIds.findHeld(senderId.toUpperCase(), "AU")
      assert.deepStrictEqual([...inAnotherCase].sort((a, b) => a.id.localeCompare(b.id)), held, "in any case")
    }))

  it.effect("SenderIdStore: of two inserts at once of one Sender ID in two cases under two brands, exactly one succeeds", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("Race")
      for (let round = 0; round < 5; round++) {
        const market = ["AU", "NZ", "SG", "GB", "US"][round]!
        const both = [
          makeSenderId(yield* freshAccount, { senderId, market, brandName: "Lower Pty" }),
          makeSenderId(yield* freshAccount, { senderId: senderId.toUpperCase(), market, brandName: "Upper Pty" })
        ]
        const outcomes = yield* Effect.all(both.map((record) => Effect.either(senderIds.insert(record))), { concurrency: "unbounded" })
        const winners = both.filter((_, i) => Either.isRight(outcomes[i]!))
        assert.strictEqual(winners.length, 1, "one insert succeeds")
        const loser = both.find((record) => record !== winners[0])!
        assert.deepStrictEqual(
          outcomes.find(Either.isLeft)?.left,
          new SenderIdTaken({ senderId: loser.senderId, market, brandName: winners[0]!.brandName })
        )
        assert.isTrue(Option.isNone(yield* senderIds.findById(loser.accountId, loser.id)), "the loser is not written")
        assert.deepStrictEqual(yield* senderIds.findHeld(senderId, market), [winners[0]!])
      }
    }))

  it.effect("SenderIdStore: a brand holds a string with several records, from several accounts, in any case; another brand is SenderIdTaken", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("Same")
      const mine = { senderId, brandName: "Same Pty" }
      const accountId = yield* freshAccount
      yield* senderIds.insert(makeSenderId(accountId, mine))
      yield* senderIds.insert(makeSenderId(accountId, mine, T + 1))
      yield* senderIds.insert(makeSenderId(yield* freshAccount, { ...mine, senderId: senderId.toUpperCase() }, T + 2))
      const other = makeSenderId(yield* freshAccount, { senderId: senderId.toLowerCase(), brandName: "Other Pty" }, T + 3)
      assert.deepStrictEqual(
        yield* Effect.flip(senderIds.insert(other)),
        new SenderIdTaken({ senderId: other.senderId, market: "AU", brandName: "Same Pty" })
      )
      yield* senderIds.insert({ ...other, id: fresh("sid"), market: "NZ" })
    }))

  it.effect("SenderIdStore: a rejected, expired or overdue record does not hold its string; a brand's live record takes it", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("Gone")
      const insertAs = (brandName: string, fields: Partial<SenderIdRecord>, at: number) =>
        Effect.either(Effect.flatMap(freshAccount, (accountId) => senderIds.insert(makeSenderId(accountId, { senderId, brandName, ...fields }, at))))
      // records that never held it
      assert.isTrue(Either.isRight(yield* insertAs("First Pty", { status: "rejected" }, T)))
      assert.isTrue(Either.isRight(yield* insertAs("Second Pty", { status: "expired" }, T)))
      // a live record holds it until its expires_at
      assert.isTrue(Either.isRight(yield* insertAs("Third Pty", { expiresAt: T + 1_000 }, T)))
      assert.isTrue(Either.isLeft(yield* insertAs("Fourth Pty", {}, T + 999)), "held until it expires")
      assert.isTrue(Either.isRight(yield* insertAs("Fourth Pty", {}, T + 1_000)), "released once it is overdue")
      assert.deepStrictEqual(
        yield* insertAs("Third Pty", {}, T + 1_001),
        Either.left(new SenderIdTaken({ senderId, market: "AU", brandName: "Fourth Pty" }))
      )
      // a pending record holds it too
      const pending = fresh("Wait")
      const pendingRecord = makeSenderId(yield* freshAccount, { senderId: pending, brandName: "Fifth Pty", status: "pending" })
      yield* senderIds.insert(pendingRecord)
      assert.isTrue(Either.isLeft(yield* Effect.either(senderIds.insert(makeSenderId(yield* freshAccount, { senderId: pending, brandName: "Sixth Pty" })))))
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
