import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@sendline/core"
import { Effect } from "effect"

describe("Ids", () => {
  it.effect("makes prefix_ + 26 lowercase Crockford characters", () =>
    Effect.gen(function*() {
      const ids = yield* Ids.IdGenerator
      const id = yield* ids.make("msg")
      assert.isTrue(Ids.isId("msg", id), id)
      assert.isFalse(Ids.isId("evt", id))
    }).pipe(Effect.provide(Ids.layer)))

  it.effect("ids made in one millisecond still sort in creation order", () =>
    Effect.gen(function*() {
      const ids = yield* Ids.IdGenerator
      const made = yield* Effect.all(Array.from({ length: 500 }, () => ids.make("msg")))
      assert.deepStrictEqual([...made].sort(), made)
      assert.strictEqual(new Set(made).size, made.length)
    }).pipe(Effect.provide(Ids.layer)))

  it("encodes the time in the first ten characters", () => {
    assert.strictEqual(Ids.encodeUlid(0, new Uint8Array(10)), "0".repeat(26))
    assert.strictEqual(Ids.encodeUlid(2 ** 48 - 1, new Uint8Array(10).fill(255)), "7" + "z".repeat(25))
  })
})
