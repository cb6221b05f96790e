/**
 * @since 0.1.0
 */

/**
 * The SQLite store: every storage port of `@sendline/core` on one SQLite database.
 *
 * @since 0.1.0
 */
export * as SqliteStore from "./SqliteStore.js"
