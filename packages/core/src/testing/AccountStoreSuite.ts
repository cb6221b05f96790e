/**
 * The store suite's tests of `AccountStore`: the accounts and their API keys.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { ApiKey, Account } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import type { Stores } from "../Stores.js"
import { fresh, T, makeAccount, freshAccount } from "./Fixtures.js"

/** Registers the tests of `AccountStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("AccountStore: inserts and finds accounts, optional fields exactly", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore
      const brand = makeAccount(fresh("acct"))
      const operator: Account = {
        ...makeAccount(fresh("acct")),
        type: "operator",
        network: "telstra",
        markets: ["AU", "NZ"],
        identifiers: []
      }
      yield* accounts.insertAccount(brand)
      yield* accounts.insertAccount(operator)
      assert.deepStrictEqual(yield* accounts.findAccount(brand.id), Option.some(brand))
      assert.deepStrictEqual(yield* accounts.findAccount(operator.id), Option.some(operator))
      assert.isTrue(Option.isNone(yield* accounts.findAccount(fresh("acct"))))
    }))

  it.effect("AccountStore: inserts a key and finds it by digest", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore
      const accountId = yield* freshAccount
      const withExpiry: ApiKey = {
        id: fresh("key"),
        accountId,
        digest: fresh("digest"),
        permissions: ["messaging:send", "messaging:read"],
        expiresAt: T + 86_400_000,
        createdAt: T
      }
      const plain: ApiKey = { id: fresh("key"), accountId, digest: fresh("digest"), permissions: [], createdAt: T + 1 }
      yield* accounts.insertKey(withExpiry)
      yield* accounts.insertKey(plain)
      assert.deepStrictEqual(yield* accounts.findKeyByDigest(withExpiry.digest), Option.some(withExpiry))
      assert.deepStrictEqual(yield* accounts.findKeyByDigest(plain.digest), Option.some(plain))
      assert.isTrue(Option.isNone(yield* accounts.findKeyByDigest(fresh("digest"))))
    }))

  it.effect("AccountStore: revokes a key once; an unknown key is not revoked", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore
      const accountId = yield* freshAccount
      const key: ApiKey = {
        id: fresh("key"),
        accountId,
        digest: fresh("digest"),
        permissions: ["sids:read"],
        createdAt: T
      }
      yield* accounts.insertKey(key)
      assert.isTrue(yield* accounts.revokeKey(key.id, T + 500))
      assert.isFalse(yield* accounts.revokeKey(key.id, T + 900))
      assert.deepStrictEqual(yield* accounts.findKeyByDigest(key.digest), Option.some({ ...key, revokedAt: T + 500 }))
      assert.isFalse(yield* accounts.revokeKey(fresh("key"), T + 500))
    }))
}
