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

/**
 * A TCP proxy in front of the test database whose connections can be made to go silent, as when
 * the server vanishes without closing them.
 *
 * @since 0.1.0
 */
export * as FreezingProxy from "./FreezingProxy.js"

/**
 * A PostgreSQL server of a test's own (a cluster in a temporary directory), which the test may
 * stop and start again.
 *
 * @since 0.1.0
 */
export * as PrivateServer from "./PrivateServer.js"
