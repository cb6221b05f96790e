/**
 * The shared suites every store runs, on `@effect/vitest` (`@sendline/core/testing/suites`): import
 * them from a test file, with `@effect/vitest` and `vitest` installed (core's optional peers).
 *
 * @since 0.1.0
 */

/**
 * The shared suite every store runs.
 *
 * @since 0.1.0
 */
export * as StoreSuite from "./StoreSuite.js"

/**
 * The shared suite of the stores that several processes may share: each process on its own connection.
 *
 * @since 0.1.0
 */
export * as SharedDatabaseSuite from "./SharedDatabaseSuite.js"
