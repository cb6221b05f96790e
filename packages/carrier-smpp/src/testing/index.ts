/**
 * Test kits for code that sends through SMPP.
 *
 * @since 0.1.0
 */

/**
 * A real SMSC in the test's process (the `smpp` package's server), on a loopback port.
 *
 * @since 0.1.0
 */
export * as TestSmsc from "./TestSmsc.js"
