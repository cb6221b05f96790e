/**
 * The store suite's tests of `Readiness`: a migrated store is ready.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import * as Readiness from "../../Readiness.js"
import type { Stores } from "../../Stores.js"

/** Registers the tests of `Readiness` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("Readiness: a store built (and so migrated) is ready, naming the last migration it recorded", () =>
    Effect.gen(function*() {
      const ready = yield* Readiness.ready
      assert.match(ready.migration, /^\d{4}_[a-z0-9_]+$/)
    }))
}
