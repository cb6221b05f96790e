/**
 * @since 0.1.0
 */

/**
 * The PostgreSQL store: every storage port of `@sendline/core` on one PostgreSQL database.
 *
 * @since 0.1.0
 */
export * as PgStore from "./PgStore.js"

/**
 * The store's connection pool: keepalive, `statement_timeout` and a bound on each query, so that a
 * server that vanished fails a request rather than hang it.
 *
 * @since 0.1.0
 */
export * as PgPool from "./PgPool.js"
