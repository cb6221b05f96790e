/**
 * `sendline migrate`: create or update the configured store's schema, then exit.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Config from "../Config.js"
import * as Store from "../Store.js"

/**
 * Opens the configured store, which migrates it, and logs which store it was.
 *
 * @since 0.1.0
 * @category commands
 */
export const migrate = Effect.flatMap(
  Config.server,
  (config) => Effect.provide(Effect.logInfo(`Migrations applied: ${Store.describe(config)}`), Store.layer(config))
)
