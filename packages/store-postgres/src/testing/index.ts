/**
 * Test kits for the PostgreSQL store.
 *
 * @since 0.1.0
 */

/**
 * The test database: its URL, a fresh schema per test file, and the skip-or-fail probe.
 *
 * @since 0.1.0
 */
export * as TestDatabase from "./TestDatabase.js"
