/**
 * The shared test suite of the storage ports: every store (`store-sqlite`, `store-postgres`, …)
 * runs it against a real database, so that they all behave alike. The tests of each port live in
 * its own module (`AccountStoreSuite`, `SenderIdStoreSuite`, `RegistrationStoreSuite`, `MessageStoreSuite`, `BatchStoreSuite`,
 * `EventStoreSuite`, `SubscriptionStoreSuite`, `DeliveryStoreSuite`, `IdempotencyStoreSuite`,
 * `MailStoreSuite`, `BrandStoreSuite`, `OptOutStoreSuite`, `QueueDepthsSuite`, `ReadinessSuite`), their fixtures in `Fixtures`.
 *
 * @since 0.1.0
 */
import { layer } from "@effect/vitest"
import type { Layer } from "effect"
import type { Stores } from "../../Stores.js"
import type { TableReader } from "../TableReader.js"
import * as AccountStoreSuite from "./AccountStoreSuite.js"
import * as BatchStoreSuite from "./BatchStoreSuite.js"
import * as BrandStoreSuite from "./BrandStoreSuite.js"
import * as DeliveryStoreSuite from "./DeliveryStoreSuite.js"
import * as EventStoreSuite from "./EventStoreSuite.js"
import * as IdempotencyStoreSuite from "./IdempotencyStoreSuite.js"
import * as MailStoreSuite from "./MailStoreSuite.js"
import * as MessageStoreSuite from "./MessageStoreSuite.js"
import * as OptOutStoreSuite from "./OptOutStoreSuite.js"
import * as QueueDepthsSuite from "./QueueDepthsSuite.js"
import * as ReadinessSuite from "./ReadinessSuite.js"
import * as RegistrationStoreSuite from "./RegistrationStoreSuite.js"
import * as SenderIdStoreSuite from "./SenderIdStoreSuite.js"
import * as SubscriptionStoreSuite from "./SubscriptionStoreSuite.js"

/**
 * Registers the storage-port tests for one store. `store` is built once for the whole suite;
 * every test works on fresh ids, so the tests never depend on each other's data. With the store
 * comes a `TableReader` of its database (the test's own queries, not the store's), by which the
 * outbox, the transitions and the claims are checked as the tables hold them.
 *
 * @since 0.1.0
 * @category suites
 */
export const suite = (name: string, store: Layer.Layer<Stores | TableReader, unknown>): void =>
  layer(store)(`StoreSuite (${name})`, (it) => {
    AccountStoreSuite.tests(it)
    SenderIdStoreSuite.tests(it)
    RegistrationStoreSuite.tests(it)
    MessageStoreSuite.tests(it)
    BatchStoreSuite.tests(it)
    EventStoreSuite.tests(it)
    SubscriptionStoreSuite.tests(it)
    DeliveryStoreSuite.tests(it)
    IdempotencyStoreSuite.tests(it)
    MailStoreSuite.tests(it)
    BrandStoreSuite.tests(it)
    OptOutStoreSuite.tests(it)
    QueueDepthsSuite.tests(it)
    ReadinessSuite.tests(it)
  })
