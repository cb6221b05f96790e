/**
 * The real `/v1` server on an ephemeral port, on its own listener as `sendline serve` runs it, over
 * the core use cases and a SQLite `:memory:` database (or a store of the test's).
 *
 * Meant for `@effect/vitest`'s `layer(TestServer.layer())`: its `TestClock` is then the server's clock
 * too, so tests move the server's time with `TestClock.adjust` (no sleeps). The clock starts at
 * `start`. The workers are there too, not started: a test runs their passes itself (`Workers.runOnce`,
 * or one worker's `runOnce`, `TestWebhooks.deliver` for the WebhookDeliverer).
 */
import { HttpServer } from "@effect/platform"
import { CarrierMock } from "@sendline/carrier-mock"
import {
  BrandVerifier,
  Demo,
  Ids,
  Mailer,
  Markets,
  MessagingConfig,
  Services,
  type Stores,
  UrlPolicy,
  type WebhookTransport,
  Workers
} from "@sendline/core"
import { CapturingTransport } from "@sendline/core/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Context, Effect, Layer, TestClock } from "effect"
import * as Listener from "../../src/server/Listener.js"
import * as Server from "../../src/server/Server.js"
import * as TestAccounts from "./TestAccounts.js"

/** The server's clock at start: 2026-11-22T07:00:00.000Z. */
export const start = Date.UTC(2026, 10, 22, 7, 0, 0)

/** The running server. */
export class TestServer extends Context.Tag("@sendline/http/test/TestServer")<TestServer, {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** An account with every permission and Sender ID `Acme` registered in every market. */
  readonly main: TestAccounts.Caller
  /** The demo organisation (`Demo.ensure`): another account, with Sender ID `Sendline` everywhere. */
  readonly demo: TestAccounts.Caller
}>() {}

/**
 * The server over a fresh SQLite `:memory:` database (or over `store`, which may wrap one, and whose
 * other services the tests get too), with the main caller and the demo data. The limits
 * (`rateLimitPerSecond`, `authFailuresPerMinute`) default to 0 (off), since the test clock only moves
 * when told to; `messaging` overrides the default messaging settings, `urlPolicy` the strict URL
 * policy. The workers' services, not
 * started, run over the simulated carrier, the mailer that logs and `transport` (by default the
 * capturing one): the tests get what it provides too.
 */
export const layer = <S = Stores.Stores, T = CapturingTransport.CapturingTransport>(
  options: Partial<Server.Options> & {
    /** Every storage port, and whatever else the tests need of it (its `SqlClient`). */
    readonly store?: Layer.Layer<S, unknown>
    readonly messaging?: Partial<MessagingConfig.Settings>
    /** The URL policy of subscriptions and `callback_url`: `UrlPolicy.strict` unless given. */
    readonly urlPolicy?: UrlPolicy.UrlPolicy
    /** The brand verifier; the default one (verified at once) unless given. */
    readonly verifier?: Layer.Layer<BrandVerifier.BrandVerifier>
    /** What the WebhookDeliverer posts through: `CapturingTransport.layer` unless given. */
    readonly transport?: Layer.Layer<T | WebhookTransport.WebhookTransport, unknown>
  } = {}
) => {
  const {
    messaging,
    store: given,
    transport = CapturingTransport.layer as Layer.Layer<T | WebhookTransport.WebhookTransport>,
    urlPolicy = UrlPolicy.strict,
    verifier = BrandVerifier.layer,
    ...serving
  } = options
  const store = (given ?? SqliteStore.layerSqlite({ filename: ":memory:" })) as Layer.Layer<S | Stores.Stores, unknown>
  const defaults = Layer.mergeAll(
    Markets.layer,
    Ids.layer,
    MessagingConfig.layer(messaging),
    UrlPolicy.layer(urlPolicy),
    verifier
  )
  const core = Workers.layerServices().pipe(
    Layer.provideMerge(Layer.mergeAll(transport, CarrierMock.layer(), Mailer.layerLog)),
    Layer.provideMerge(Services.layerWithoutDefaults.pipe(Layer.provideMerge(defaults), Layer.provideMerge(store)))
  )
  const running = Layer.effect(
    TestServer,
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      if (server.address._tag !== "TcpAddress") return yield* Effect.die("expected a TCP address")
      const main = yield* TestAccounts.newCaller({
        senderIds: [["Acme", "AU"], ["Acme", "NZ"], ["Acme", "SG"], ["Acme", "GB"]]
      })
      const issued = yield* Effect.orDie(Demo.ensure)
      const demo = { accountId: issued.apiKey.accountId, keyId: issued.apiKey.id, key: issued.secret }
      return { url: `http://127.0.0.1:${server.address.port}`, main, demo }
    })
  )
  // The server's own listener (`Listener`), as `sendline serve` runs it.
  const server = Listener.layer(
    Layer.merge(Server.layerServe({ rateLimitPerSecond: 0, authFailuresPerMinute: 0, ...serving }), running),
    { port: 0, host: "127.0.0.1" }
  )
  return server.pipe(
    Layer.provideMerge(core),
    Layer.provideMerge(Layer.effectDiscard(TestClock.setTime(start)))
  )
}
