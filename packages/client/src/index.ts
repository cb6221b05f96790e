/**
 * Sendline's typed client (`SendlineClient`), with CONTRACT's errors it fails with (`Errors`, from
 * `@sendline/api`). A client user installs this package and its two Effect peers, nothing of the
 * server.
 *
 * @since 0.2.0
 */

/** CONTRACT §8's errors, each with its `code`: what a call fails with when the server refuses it. @since 0.2.0 */
export * as Errors from "@sendline/api/Errors"

/** The typed client of `/v1`. @since 0.2.0 */
export * as SendlineClient from "./SendlineClient.js"
