/**
 * Test kits for code built on `@sendline/core`: fixtures, a table reader, a capturing mailer and
 * webhook transport. They need no test runner: importing this entry loads `effect` and core only.
 * The store suites, which run on `@effect/vitest`, are `@sendline/core/testing/suites`.
 *
 * @since 0.1.0
 */

/**
 * What the store suite reads of a store's tables without the store, which each store's test gives it.
 *
 * @since 0.1.0
 */
export * as TableReader from "./TableReader.js"

/**
 * The fixtures the suites build their data with (accounts, messages, Sender IDs, events), for a
 * store's own tests.
 *
 * @since 0.1.0
 */
export * as Fixtures from "./Fixtures.js"

/**
 * A `Mailer` that keeps what it is given and can be told to be down, for the MailSender's tests.
 *
 * @since 0.1.0
 */
export * as CapturingMailer from "./CapturingMailer.js"

/**
 * A `WebhookTransport` that keeps what it is given and answers as told, for the WebhookDeliverer's tests.
 *
 * @since 0.1.0
 */
export * as CapturingTransport from "./CapturingTransport.js"
