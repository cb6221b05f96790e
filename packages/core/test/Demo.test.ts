import { assert, layer } from "@effect/vitest"
import { AccountStore, Auth, Demo, SenderIdStore } from "@sendline/core"
import { Effect, Option } from "effect"
import * as TestCore from "./TestCore.js"

layer(TestCore.layer)("Demo", (it) => {
  it.effect("two processes starting at once both get a working key; the organisation is created once", () =>
    Effect.gen(function*() {
      // Both look before either inserts, as two processes on one database may.
      const store = yield* AccountStore.AccountStore
      const slowToLook = AccountStore.AccountStore.of({
        ...store,
        findAccount: (id) => Effect.zipLeft(store.findAccount(id), Effect.yieldNow())
      })
      const [a, b] = yield* Effect.all(
        [Demo.ensure, Demo.ensure].map(Effect.provideService(AccountStore.AccountStore, slowToLook)),
        { concurrency: "unbounded" }
      )
      assert.notStrictEqual(a.secret, b.secret)
      const auth = yield* Auth.Auth
      for (const issued of [a, b]) {
        assert.strictEqual((yield* auth.authenticate(`Bearer ${issued.secret}`)).accountId, Demo.accountId)
      }
      assert.isTrue(Option.isSome(yield* (yield* AccountStore.AccountStore).findAccount(Demo.accountId)))
      const sid = yield* (yield* SenderIdStore.SenderIdStore).findRegistered(Demo.accountId, Demo.senderId, "AU")
      assert.isTrue(Option.isSome(sid))
    }))

  it.effect("a later start reuses the organisation and issues another key", () =>
    Effect.gen(function*() {
      const first = yield* Demo.ensure
      const again = yield* Demo.ensure
      assert.strictEqual(first.apiKey.accountId, again.apiKey.accountId)
      assert.notStrictEqual(first.apiKey.id, again.apiKey.id)
    }))
})
