/**
 * Test kits for code that sends mail through SMTP (needs the `smtp-server` package).
 *
 * @since 0.1.0
 */

/**
 * A real SMTP server in the test's process, on a loopback port, keeping what it receives.
 *
 * @since 0.1.0
 */
export * as TestSmtpServer from "./TestSmtpServer.js"
