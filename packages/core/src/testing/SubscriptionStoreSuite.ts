/**
 * The store suite's tests of `SubscriptionStore`: webhook subscriptions.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SubscriptionStore } from "../webhooks/SubscriptionStore.js"
import type { Stores } from "../Stores.js"
import { fresh, freshAccount } from "./Fixtures.js"

/** Registers the tests of `SubscriptionStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("SubscriptionStore: a fresh account has no active subscription", () =>
    Effect.gen(function*() {
      const subscriptions = yield* SubscriptionStore
      assert.isFalse(yield* subscriptions.hasActive(yield* freshAccount))
      assert.isFalse(yield* subscriptions.hasActive(fresh("acct")))
    }))
}
