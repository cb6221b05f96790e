/**
 * The store suite's tests of `OptOutStore`: one entry per account and number, an add that never
 * changes a listed entry, bulk adds, the send's check, the list's filters and keyset, deletion.
 *
 * @since 0.2.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { OptOut } from "../../optOuts/OptOut.js"
import { OptOutStore } from "../../optOuts/OptOutStore.js"
import type { Stores } from "../../Stores.js"
import { freshAccount, T } from "../Fixtures.js"

const optOut = (accountId: string, phone: string, createdAt: number, extra: Partial<OptOut> = {}): OptOut => ({
  accountId,
  phone,
  reason: null,
  source: "api",
  createdAt,
  ...extra
})

/** Registers the tests of `OptOutStore` on a suite's `it`. @since 0.2.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("OptOutStore: an add creates the entry once; again, the entry is answered as it was, unchanged", () =>
    Effect.gen(function*() {
      const store = yield* OptOutStore
      const accountId = yield* freshAccount
      const first = optOut(accountId, "+61412345678", T, { reason: "replied STOP" })
      assert.deepStrictEqual(yield* store.add(first), { optOut: first, created: true })
      const again = yield* store.add(optOut(accountId, "+61412345678", T + 5, { reason: "other", source: "import" }))
      assert.deepStrictEqual(again, { optOut: first, created: false })
      assert.deepStrictEqual(yield* store.get(accountId, "+61412345678"), Option.some(first))
      // another account's list is its own
      const other = yield* freshAccount
      assert.isTrue(Option.isNone(yield* store.get(other, "+61412345678")))
      assert.isTrue((yield* store.add(optOut(other, "+61412345678", T))).created)
    }))

  it.effect("OptOutStore: listed answers which numbers the account lists, none of another's", () =>
    Effect.gen(function*() {
      const store = yield* OptOutStore
      const [accountId, other] = [yield* freshAccount, yield* freshAccount]
      yield* store.add(optOut(accountId, "+61412345678", T))
      yield* store.add(optOut(other, "+61412345679", T))
      assert.deepStrictEqual([...(yield* store.listed(accountId, ["+61412345678"]))], ["+61412345678"])
      assert.deepStrictEqual(
        [...(yield* store.listed(accountId, ["+61412345678", "+61412345679", "+61412345670"]))],
        ["+61412345678"]
      )
      assert.strictEqual((yield* store.listed(accountId, [])).size, 0)
      assert.strictEqual((yield* store.listed(other, ["+61412345678"])).size, 0)
    }))

  it.effect("OptOutStore: addMany adds what is not listed, in one go, and counts only those", () =>
    Effect.gen(function*() {
      const store = yield* OptOutStore
      const accountId = yield* freshAccount
      const listed = optOut(accountId, "+61412000000", T, { reason: "kept" })
      yield* store.add(listed)
      const phones = Array.from({ length: 600 }, (_, i) => `+61412${String(i).padStart(6, "0")}`)
      assert.strictEqual(yield* store.addMany(accountId, [...phones, phones[1]!], "import", T + 1), 599)
      assert.strictEqual(yield* store.addMany(accountId, phones, "import", T + 2), 0)
      assert.strictEqual(yield* store.addMany(accountId, [], "import", T + 2), 0)
      assert.deepStrictEqual(yield* store.get(accountId, listed.phone), Option.some(listed))
      assert.deepStrictEqual(
        yield* store.get(accountId, phones[599]!),
        Option.some(optOut(accountId, phones[599]!, T + 1, { source: "import" }))
      )
      assert.strictEqual((yield* store.listed(accountId, phones)).size, 600)
    }))

  it.effect("OptOutStore: a list is the account's own, newest first (then phone descending), filtered, resuming after a keyset", () =>
    Effect.gen(function*() {
      const store = yield* OptOutStore
      const accountId = yield* freshAccount
      const a = optOut(accountId, "+61412000001", T)
      const b = optOut(accountId, "+61412000002", T + 10, { source: "import" })
      const c = optOut(accountId, "+61412000003", T + 10, { source: "import" })
      const d = optOut(accountId, "+61412000004", T + 20)
      for (const entry of [a, b, c, d]) yield* store.add(entry)
      yield* store.add(optOut(yield* freshAccount, "+61412000005", T + 10))
      const all = yield* store.list(accountId, {}, Option.none(), 10)
      assert.deepStrictEqual(all, [d, c, b, a])
      assert.deepStrictEqual(yield* store.list(accountId, {}, Option.none(), 2), [d, c])
      assert.deepStrictEqual(
        yield* store.list(accountId, {}, Option.some({ createdAt: c.createdAt, id: c.phone }), 10),
        [
          b,
          a
        ]
      )
      assert.deepStrictEqual(yield* store.list(accountId, { source: "import" }, Option.none(), 10), [c, b])
      assert.deepStrictEqual(yield* store.list(accountId, { phone: a.phone }, Option.none(), 10), [a])
      assert.deepStrictEqual(yield* store.list(accountId, { from: T + 10, to: T + 10 }, Option.none(), 10), [c, b])
      assert.deepStrictEqual(yield* store.list(accountId, { from: T + 11 }, Option.none(), 10), [d])
      assert.deepStrictEqual(yield* store.list(accountId, { to: T + 9 }, Option.none(), 10), [a])
    }))

  it.effect("OptOutStore: delete takes a number off the account's list only; the number can be listed again", () =>
    Effect.gen(function*() {
      const store = yield* OptOutStore
      const [accountId, other] = [yield* freshAccount, yield* freshAccount]
      yield* store.add(optOut(accountId, "+61412345678", T))
      assert.isFalse(yield* store.delete(other, "+61412345678"))
      assert.isTrue(yield* store.delete(accountId, "+61412345678"))
      assert.isFalse(yield* store.delete(accountId, "+61412345678"))
      assert.isTrue(Option.isNone(yield* store.get(accountId, "+61412345678")))
      assert.strictEqual((yield* store.listed(accountId, ["+61412345678"])).size, 0)
      assert.isTrue((yield* store.add(optOut(accountId, "+61412345678", T + 1))).created)
    }))
}
