/**
 * The store suite's tests of `SenderIdStore`: Sender ID records (being rewritten for the
 * registrations of issue 18 on branch h18-store).
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import type { Stores } from "../Stores.js"

/** Registers the tests of `SenderIdStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (_it: Vitest.MethodsNonLive<Stores>): void => {}
