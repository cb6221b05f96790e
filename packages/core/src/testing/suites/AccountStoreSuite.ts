/**
 * The store suite's tests of `AccountStore`: the accounts, the identifiers brand accounts own, and
 * the API keys.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import type { Account, ApiKey } from "../../accounts/Account.js"
import { AccountStore, IdentifierTaken } from "../../accounts/AccountStore.js"
import type { Stores } from "../../Stores.js"
import { fresh, freshAccount, makeAccount, T } from "../Fixtures.js"

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

  it.effect("AccountStore: a brand account owns its identifiers: findBrandOwner answers its id, for that type and value only", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore
      const brand: Account = {
        ...makeAccount(fresh("acct")),
        identifiers: [{ identifierType: "ABN", identifierValue: fresh("abn") }, {
          identifierType: "ACN",
          identifierValue: fresh("acn")
        }]
      }
      const [abn, acn] = brand.identifiers
      yield* accounts.insertAccount(brand)
      assert.deepStrictEqual(yield* accounts.findBrandOwner("ABN", abn!.identifierValue), Option.some(brand.id))
      assert.deepStrictEqual(yield* accounts.findBrandOwner("ACN", acn!.identifierValue), Option.some(brand.id))
      assert.isTrue(
        Option.isNone(yield* accounts.findBrandOwner("ACN", abn!.identifierValue)),
        "another type, same value"
      )
      assert.isTrue(Option.isNone(yield* accounts.findBrandOwner("ABN", fresh("abn"))), "an identifier nobody owns")

      const aggregator: Account = {
        ...makeAccount(fresh("acct")),
        type: "aggregator",
        identifiers: [{ identifierType: "ABN", identifierValue: fresh("abn") }]
      }
      yield* accounts.insertAccount(aggregator)
      assert.isTrue(
        Option.isNone(yield* accounts.findBrandOwner("ABN", aggregator.identifiers[0]!.identifierValue)),
        "only a brand account owns"
      )
    }))

  it.effect("AccountStore: an identifier another account owns is IdentifierTaken, and nothing of the new account is written", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore
      const owner = makeAccount(fresh("acct"))
      yield* accounts.insertAccount(owner)
      const unowned = { identifierType: "NZBN", identifierValue: fresh("nzbn") }
      const late: Account = { ...makeAccount(fresh("acct")), identifiers: [unowned, owner.identifiers[0]!] }
      assert.deepStrictEqual(
        yield* Effect.flip(accounts.insertAccount(late)),
        new IdentifierTaken({ accountId: late.id })
      )
      assert.isTrue(Option.isNone(yield* accounts.findAccount(late.id)))
      assert.isTrue(Option.isNone(yield* accounts.findBrandOwner(unowned.identifierType, unowned.identifierValue)))
      assert.deepStrictEqual(
        yield* accounts.findBrandOwner("ABN", owner.identifiers[0]!.identifierValue),
        Option.some(owner.id)
      )
    }))

  it.effect("AccountStore: of two brand accounts inserted at once with one identifier, exactly one owns it", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore
      const identifiers = [{ identifierType: "CRN", identifierValue: fresh("crn") }]
      const both: ReadonlyArray<Account> = [
        { ...makeAccount(fresh("acct")), identifiers },
        { ...makeAccount(fresh("acct")), identifiers }
      ]
      const outcomes = yield* Effect.all(both.map((account) => Effect.either(accounts.insertAccount(account))), {
        concurrency: "unbounded"
      })
      const winners = both.filter((_, i) => Either.isRight(outcomes[i]!))
      assert.strictEqual(winners.length, 1, "one insert succeeds")
      const loser = both.find((account) => account !== winners[0])!
      assert.deepStrictEqual(outcomes.find(Either.isLeft)?.left, new IdentifierTaken({ accountId: loser.id }))
      assert.deepStrictEqual(
        yield* accounts.findBrandOwner("CRN", identifiers[0]!.identifierValue),
        Option.some(winners[0]!.id)
      )
      assert.isTrue(Option.isNone(yield* accounts.findAccount(loser.id)))
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
