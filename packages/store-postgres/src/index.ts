/**
 * @since 0.1.0
 */

/**
 * The PostgreSQL store: every storage port of `@sendline/core` on one PostgreSQL database.
 *
 * @since 0.1.0
 */
export * as PgStore from "./PgStore.js"
