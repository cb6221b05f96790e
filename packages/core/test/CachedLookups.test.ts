import { assert, layer } from "@effect/vitest"
import { AccountStore, Admin, Auth, CachedLookups, Messaging, SenderIdStore } from "@sendline/core"
import { Clock, Effect, Option, TestClock } from "effect"
import * as TestCore from "./TestCore.js"

const ttl = CachedLookups.defaults.ttlMillis

/** A registered Sender ID record of `accountId` in AU, of the legal entity every test imports (one entity holds a Sender ID). */
const registration = (accountId: string, id: string, senderId: string, at: number) =>
  ({
    id,
    accountId,
    senderId,
    market: "AU",
    brandName: "Acme Pty Ltd",
    ...TestCore.acme,
    status: "registered",
    createdAt: at,
    registeredAt: at,
    version: 0
  }) as const

/** A fresh key, once authenticated (so cached), and how to authenticate it again. */
const cachedKey = Effect.gen(function*() {
  const { issued } = yield* TestCore.seedAccount()
  const auth = yield* Auth.Auth
  const authenticate = TestCore.outcome(auth.authenticate(`Bearer ${issued.secret}`))
  assert.strictEqual(yield* authenticate, "ok")
  return { keyId: issued.apiKey.id, authenticate }
})

// `Services` gives the use cases the cached stores; the stores of the context are the store's
// own, as another process writing to the same database would be.
layer(TestCore.layer)("CachedLookups", (it) => {
  it.effect("a key revoked through Admin is refused at once, though it was cached", () =>
    Effect.gen(function*() {
      const { authenticate, keyId } = yield* cachedKey
      yield* (yield* Admin.Admin).revokeKey(keyId)
      assert.strictEqual(yield* authenticate, "unauthenticated")
    }))

  it.effect("a key revoked by another process is refused once the cache's time is up", () =>
    Effect.gen(function*() {
      const { authenticate, keyId } = yield* cachedKey
      yield* (yield* AccountStore.AccountStore).revokeKey(keyId, yield* Clock.currentTimeMillis)
      assert.strictEqual(yield* authenticate, "ok", "served from the cache")
      yield* TestClock.adjust(ttl - 1)
      assert.strictEqual(yield* authenticate, "ok", "still within the cache's time")
      yield* TestClock.adjust(1)
      assert.strictEqual(yield* authenticate, "unauthenticated")
    }))

  it.effect("a Sender ID registered by another process after a miss is found at once", () =>
    Effect.gen(function*() {
      const { account, principal } = yield* TestCore.seedAccount()
      const messaging = yield* Messaging.Messaging
      const send = TestCore.outcome(messaging.send(principal, { ...TestCore.auMessage, senderId: "Later" }))
      assert.strictEqual(yield* send, "sender_id_not_registered")
      const now = yield* Clock.currentTimeMillis
      yield* (yield* SenderIdStore.SenderIdStore).insert(registration(account.id, "sid_later", "Later", now), [], [])
      assert.strictEqual(yield* send, "ok")
    }))

  it.effect("a newer registration is read at once when imported here, and within the cache's time when written elsewhere", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const cached = yield* CachedLookups.make()
      const store = yield* SenderIdStore.SenderIdStore
      const idOf = Effect.map(
        Effect.provide(
          Effect.flatMap(SenderIdStore.SenderIdStore, (s) => s.findRegistered(account.id, "Acme", "AU")),
          cached
        ),
        Option.map((record) => record.id)
      )
      const imported = yield* idOf
      assert.isTrue(Option.isSome(imported))

      // Written elsewhere: the cached record stays until its time is up.
      yield* TestClock.adjust(1)
      yield* store.insert(registration(account.id, "sid_elsewhere", "Acme", yield* Clock.currentTimeMillis), [], [])
      assert.deepStrictEqual(yield* idOf, imported)
      yield* TestClock.adjust(ttl)
      assert.deepStrictEqual(yield* idOf, Option.some("sid_elsewhere"))

      // Written through the cached store: read at once.
      yield* TestClock.adjust(1)
      yield* Effect.provide(
        Effect.flatMap(
          SenderIdStore.SenderIdStore,
          (s) =>
            Effect.flatMap(
              Clock.currentTimeMillis,
              (at) => s.insert(registration(account.id, "sid_here", "Acme", at), [], [])
            )
        ),
        cached
      )
      assert.deepStrictEqual(yield* idOf, Option.some("sid_here"))
    }))

  it.effect("a time of 0 turns the caches off", () =>
    Effect.gen(function*() {
      const { issued } = yield* TestCore.seedAccount()
      const cached = yield* CachedLookups.make({ ttlMillis: 0 })
      const store = yield* AccountStore.AccountStore
      const find = Effect.provide(
        Effect.flatMap(AccountStore.AccountStore, (s) => s.findKeyByDigest(issued.apiKey.digest)),
        cached
      )
      assert.isTrue(Option.isSome(yield* find))
      yield* store.revokeKey(issued.apiKey.id, yield* Clock.currentTimeMillis)
      const found = yield* find
      assert.isTrue(Option.isSome(found) && found.value.revokedAt !== undefined)
    }))

  it.effect("an unknown key is looked up once within the cache's time, apart from the keys found", () =>
    Effect.gen(function*() {
      const { issued } = yield* TestCore.seedAccount()
      const store = yield* AccountStore.AccountStore
      const looked: Array<string> = []
      const counting = AccountStore.AccountStore.of({
        ...store,
        findKeyByDigest: (digest) =>
          Effect.zipRight(Effect.sync(() => looked.push(digest)), store.findKeyByDigest(digest))
      })
      const cached = yield* Effect.provideService(
        CachedLookups.make({ capacity: 2 }),
        AccountStore.AccountStore,
        counting
      )
      const find = (digest: string) =>
        Effect.provide(Effect.flatMap(AccountStore.AccountStore, (s) => s.findKeyByDigest(digest)), cached)
      const unknown = Auth.digest("sk_" + "0".repeat(40))

      assert.isTrue(Option.isNone(yield* find(unknown)))
      assert.isTrue(Option.isNone(yield* find(unknown)))
      assert.deepStrictEqual(looked, [unknown], "the second miss is answered from memory")

      // A flood of unknown keys pushes out unknown keys, never the keys found.
      assert.isTrue(Option.isSome(yield* find(issued.apiKey.digest)))
      for (let i = 1; i <= 5; i++) yield* find(Auth.digest("sk_" + String(i).repeat(40)))
      looked.length = 0
      assert.isTrue(Option.isSome(yield* find(issued.apiKey.digest)))
      assert.deepStrictEqual(looked, [], "the key found is still served from memory")

      yield* TestClock.adjust(ttl)
      assert.isTrue(Option.isNone(yield* find(unknown)))
      assert.deepStrictEqual(looked, [unknown], "looked up again once its time is up")
    }))
})
