/**
 * @since 0.1.0
 */

/**
 * The tables of the Sendline stores and their migrations, with the DDL words each database passes in.
 *
 * @since 0.1.0
 */
export * as Migrations from "./Migrations.js"

/**
 * The statements each store's dialect combines into its outbox writes and its claim.
 *
 * @since 0.1.0
 */
export * as Queries from "./Queries.js"

/**
 * The rows of the Sendline tables and their mapping to and from the domain.
 *
 * @since 0.1.0
 */
export * as Rows from "./Rows.js"

/**
 * The six storage ports on one `SqlClient`, given a store's `Dialect`.
 *
 * @since 0.1.0
 */
export * as SqlStore from "./SqlStore.js"

/**
 * Runs the work that concurrent fibers submit in shared batches (group commit, batched lookups).
 *
 * @since 0.1.0
 */
export * as Batcher from "./Batcher.js"
