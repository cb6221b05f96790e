/**
 * The store suite's tests of `SubscriptionStore`: webhook subscriptions, their secrets' rotation
 * and their deletion.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Stores } from "../../Stores.js"
import type { Subscription } from "../../webhooks/Subscription.js"
import { SubscriptionStore } from "../../webhooks/SubscriptionStore.js"
import { fresh, freshAccount, insertSubscription, makeSubscription, T } from "../Fixtures.js"

/** Registers the tests of `SubscriptionStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("SubscriptionStore: a fresh account has no active subscription", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const accountId = yield* freshAccount
      assert.isFalse(yield* subscriptions.hasActive(accountId))
      assert.isFalse(yield* subscriptions.hasActive(fresh("acct")))
      assert.isTrue(Option.isNone(yield* subscriptions.oldestActive(accountId)))
    }))

  it.effect("SubscriptionStore: a subscription reads back as inserted, its events in order, and only by its id", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const subscription = yield* insertSubscription(
        makeSubscription(yield* freshAccount, T, { events: ["sid.expiring", "brand.verified"] })
      )
      assert.deepStrictEqual(yield* subscriptions.findById(subscription.id), Option.some(subscription))
      assert.isTrue(Option.isNone(yield* subscriptions.findById(fresh("wh"))))
    }))

  it.effect("SubscriptionStore: the oldest active subscription signs callbacks; a disabled or deleted one does not", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const accountId = yield* freshAccount
      const disabled = yield* insertSubscription(makeSubscription(accountId, T, { status: "disabled" }))
      assert.isFalse(yield* subscriptions.hasActive(accountId))
      const older = yield* insertSubscription(makeSubscription(accountId, T + 1, { secret: "whsec-older-0123456789" }))
      const newer = yield* insertSubscription(makeSubscription(accountId, T + 2, { secret: "whsec-newer-0123456789" }))
      assert.isTrue(yield* subscriptions.hasActive(accountId))
      assert.deepStrictEqual(yield* subscriptions.oldestActive(accountId), Option.some(older))
      assert.isTrue(yield* subscriptions.delete(older.id, T + 3))
      assert.deepStrictEqual(yield* subscriptions.oldestActive(accountId), Option.some(newer))
      const reactivated = yield* subscriptions.update(disabled.id, { reactivate: true }, T + 4)
      assert.deepStrictEqual(reactivated, Option.some({ ...disabled, status: "active" as const }))
      assert.deepStrictEqual(yield* subscriptions.oldestActive(accountId), reactivated)
      // another account's subscriptions are no signer of this one's
      assert.isTrue(Option.isNone(yield* subscriptions.oldestActive(yield* freshAccount)))
    }))

  it.effect("SubscriptionStore: a list is the account's own, newest first, resuming after a keyset", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const accountId = yield* freshAccount
      const first = yield* insertSubscription(makeSubscription(accountId, T))
      const tiedA = yield* insertSubscription(makeSubscription(accountId, T + 1))
      const tiedB = yield* insertSubscription(makeSubscription(accountId, T + 1))
      const deleted = yield* insertSubscription(makeSubscription(accountId, T + 2))
      yield* subscriptions.delete(deleted.id, T + 3)
      yield* insertSubscription(makeSubscription(yield* freshAccount, T + 1))
      const newestFirst = [tiedB, tiedA, first].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      assert.deepStrictEqual(yield* subscriptions.list(accountId, Option.none(), 10), newestFirst)
      assert.deepStrictEqual(yield* subscriptions.list(accountId, Option.none(), 2), newestFirst.slice(0, 2))
      const last = newestFirst[1]!
      assert.deepStrictEqual(
        yield* subscriptions.list(accountId, Option.some({ createdAt: last.createdAt, id: last.id }), 10),
        newestFirst.slice(2)
      )
    }))

  it.effect("SubscriptionStore: forAccounts lists the accounts' live subscriptions, active and disabled, never a deleted one", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const [first, second, other] = [yield* freshAccount, yield* freshAccount, yield* freshAccount]
      const active = yield* insertSubscription(makeSubscription(first, T))
      const disabled = yield* insertSubscription(makeSubscription(first, T + 1, { status: "disabled" }))
      const deleted = yield* insertSubscription(makeSubscription(first, T + 2))
      yield* subscriptions.delete(deleted.id, T + 3)
      const rotated = yield* insertSubscription(
        makeSubscription(second, T, { previous: { secret: "whsec-old-0123456789", replacedAt: T } })
      )
      yield* insertSubscription(makeSubscription(other, T))
      const byId = (list: ReadonlyArray<Subscription>) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1))
      assert.deepStrictEqual(byId(yield* subscriptions.forAccounts([first, second])), byId([active, disabled, rotated]))
      assert.deepStrictEqual(byId(yield* subscriptions.forAccounts([second, second])), [rotated])
      assert.deepStrictEqual(yield* subscriptions.forAccounts([fresh("acct")]), [])
      assert.deepStrictEqual(yield* subscriptions.forAccounts([]), [])
    }))

  it.effect("SubscriptionStore: a change writes only what it gives; a new secret keeps the replaced one and when", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const subscription = yield* insertSubscription(makeSubscription(yield* freshAccount, T))
      const moved = yield* subscriptions.update(
        subscription.id,
        { url: "https://other.example/in", reactivate: false },
        T + 1
      )
      assert.deepStrictEqual(moved, Option.some({ ...subscription, url: "https://other.example/in" }))
      const retyped = yield* subscriptions.update(
        subscription.id,
        { events: ["sid.registered"], reactivate: false },
        T + 2
      )
      assert.deepStrictEqual(Option.map(retyped, (s) => s.events), Option.some(["sid.registered" as const]))
      const rotated = yield* subscriptions.update(subscription.id, {
        secret: "whsec-second-0123456789",
        reactivate: false
      }, T + 3)
      assert.deepStrictEqual(
        Option.map(rotated, (s) => [s.secret, s.previous]),
        Option.some(["whsec-second-0123456789", { secret: "whsec-first-0123456789", replacedAt: T + 3 }])
      )
      // the same secret again is no rotation: the replaced one and its time stay
      const same = yield* subscriptions.update(subscription.id, {
        secret: "whsec-second-0123456789",
        reactivate: false
      }, T + 4)
      assert.deepStrictEqual(same, rotated)
      const again = yield* subscriptions.update(subscription.id, {
        secret: "whsec-third-0123456789",
        reactivate: false
      }, T + 5)
      assert.deepStrictEqual(
        Option.map(again, (s) => s.previous),
        Option.some({ secret: "whsec-second-0123456789", replacedAt: T + 5 })
      )
      assert.deepStrictEqual(yield* subscriptions.findById(subscription.id), again)
      assert.deepStrictEqual(yield* subscriptions.update(subscription.id, { reactivate: false }, T + 6), again)
    }))

  it.effect("SubscriptionStore: a change leaves a disabled subscription disabled unless it reactivates", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const subscription = yield* insertSubscription(makeSubscription(yield* freshAccount, T, { status: "disabled" }))
      const changed = yield* subscriptions.update(subscription.id, {
        url: "https://other.example/in",
        reactivate: false
      }, T + 1)
      assert.deepStrictEqual(Option.map(changed, (s) => s.status), Option.some("disabled" as const))
    }))

  it.effect("SubscriptionStore: a deleted subscription is gone from every read and change, once", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const accountId = yield* freshAccount
      const subscription = yield* insertSubscription(makeSubscription(accountId, T))
      assert.isTrue(yield* subscriptions.delete(subscription.id, T + 1))
      assert.isFalse(yield* subscriptions.delete(subscription.id, T + 2))
      assert.isFalse(yield* subscriptions.delete(fresh("wh"), T + 2))
      assert.isTrue(Option.isNone(yield* subscriptions.findById(subscription.id)))
      assert.isTrue(
        Option.isNone(
          yield* subscriptions.update(subscription.id, { secret: "whsec-later-0123456789", reactivate: true }, T + 3)
        )
      )
      assert.deepStrictEqual(yield* subscriptions.list(accountId, Option.none(), 10), [])
      assert.isFalse(yield* subscriptions.hasActive(accountId))
    }))

  it.effect("SubscriptionStore: insert refuses a subscription past the account's most live ones, at once too; a disabled one counts, a deleted one frees its place", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      const accountId = yield* freshAccount
      assert.isTrue(yield* subscriptions.insert(makeSubscription(accountId, T, { status: "disabled" }), 3))
      const made = Array.from({ length: 5 }, (_, i) => makeSubscription(accountId, T + 1 + i))
      const inserted = yield* Effect.all(made.map((s) => subscriptions.insert(s, 3)), { concurrency: "unbounded" })
      assert.strictEqual(
        inserted.filter((done) => done === true).length,
        2,
        "two of five inserted at once beside the disabled one"
      )
      const active = (yield* subscriptions.list(accountId, Option.none(), 10)).filter((s) => s.status === "active")
      assert.sameMembers(
        active.map((s) => s.id),
        made.filter((_, i) => inserted[i]).map((s) => s.id),
        "exactly those said inserted"
      )
      assert.isTrue(
        yield* subscriptions.insert(makeSubscription(yield* freshAccount, T), 3),
        "another account's are not counted"
      )
      assert.isTrue(yield* subscriptions.delete(active[0]!.id, T + 10))
      assert.isTrue(
        yield* subscriptions.insert(makeSubscription(accountId, T + 11), 3),
        "a deleted one frees its place"
      )
      assert.isFalse(yield* subscriptions.insert(makeSubscription(accountId, T + 12), 3))
      assert.strictEqual((yield* subscriptions.list(accountId, Option.none(), 10)).length, 3)
    }))
}
