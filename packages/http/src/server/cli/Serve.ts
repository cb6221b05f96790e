/**
 * `sendline serve [--demo]`: migrate, then serve `/v1` with the background workers until a signal
 * comes; with `--demo`, first create (once) the demo data and print its keys.
 *
 * @since 0.1.0
 */
import { Demo, Mailer, Markets, Workers } from "@sendline/core"
import { SmtpMailer } from "@sendline/mailer-smtp"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Console, Effect, Layer, Option } from "effect"
import * as Config from "../Config.js"
import * as Routing from "../Routing.js"
import * as Server from "../Server.js"
import * as Store from "../Store.js"
import * as Tracing from "../Tracing.js"
import * as UseCases from "./UseCases.js"

/** The mailer the MailSender sends through: SMTP when `SMTP_URL` is set, else the one that logs each mail. */
const mailerLayer = (config: Config.ServerConfig) =>
  Option.match(config.mail, {
    onNone: () => Layer.tap(Mailer.layerLog, () => Effect.logInfo("Mail: logged, not sent (SMTP_URL is not set)")),
    onSome: (options) =>
      Layer.tap(SmtpMailer.layer(options), () =>
        Effect.logInfo(`Mail: SMTP at ${SmtpMailer.location(options.url)}, from ${options.from}`))
  })

/** The transport the WebhookDeliverer posts through, checking each URL against the URL policy again. */
const webhookTransportLayer = (config: Config.ServerConfig) => {
  const { allowHttp, allowPrivate } = config.webhookTransport.policy
  const over = allowHttp ? "HTTPS or HTTP (WEBHOOK_ALLOW_HTTP)" : "HTTPS"
  const to = allowPrivate ? "any host, private and loopback too (WEBHOOK_ALLOW_PRIVATE)" : "public hosts only"
  return Layer.tap(
    NodeWebhookTransport.layer(config.webhookTransport),
    () => Effect.logInfo(`Webhooks: delivered over ${over} to ${to}`)
  )
}

/**
 * Serves until interrupted. Every setting is checked before anything starts; the demo key is
 * issued once the server listens, so a start that cannot listen prints no key.
 *
 * @since 0.1.0
 * @category commands
 */
export const serve = ({ demo }: { readonly demo: boolean }) =>
  Effect.gen(function*() {
    // every setting checked before anything starts; the layers below read theirs through Config
    const config = yield* Config.server
    // the carriers and their routes: ROUTES_FILE's, else CARRIER_URL's or the simulated one
    const routing = yield* Routing.fromConfig(config).pipe(Effect.provide(Markets.layer))
    const traced = Option.isSome(config.otlpEndpoint)
    const printDemoKey = Effect.gen(function*() {
      const issued = yield* Demo.ensure
      const owner = yield* Demo.issueBrandOwnerKey
      const operators = yield* Demo.issueOperatorKeys
      const { identifierType, identifierValue } = Demo.brandOwnerIdentifier
      yield* Console.log(
        [
          "",
          "  Sendline demo organisation ready.",
          `  Demo API key (all permissions): ${issued.secret}`,
          ...Option.match(owner, {
            onNone: () => [],
            onSome: (
              key
            ) => [`  Demo Brand Owner key (brands, owns ${identifierType} ${identifierValue}): ${key.secret}`]
          }),
          ...operators.map(({ issued, network }) =>
            `  Demo operator key (${network}, ${Demo.registeredMarket}: reviews Sender IDs): ${issued.secret}`
          ),
          `  They work for ${Demo.keyLifetimeMillis / 86_400_000} days; every start prints new ones.`,
          `  Registered Sender ID "${Demo.senderId}" in ${(yield* Markets.Markets).all.map((m) => m.code).join(", ")}.`,
          ""
        ].join("\n")
      )
    })
    const serving = Layer.mergeAll(
      Server.layer({
        port: config.port,
        host: config.host,
        rateLimitPerSecond: config.rateLimitPerSecond,
        rateLimitPerAccountPerSecond: config.rateLimitPerAccountPerSecond,
        authFailuresPerMinute: config.authFailuresPerMinute,
        trustProxy: config.trustProxy,
        traced
      }),
      Workers.layerConfig(Config.workers)
    ).pipe(Layer.provide(
      Layer.mergeAll(Routing.layer(routing), mailerLayer(config), webhookTransportLayer(config))
    ))
    // Said when the signal comes, before the drain (at most Listener.timeouts.drain) and the workers' stop.
    const program = Effect.scoped(Effect.gen(function*() {
      yield* Effect.logInfo(`Store: ${Store.describe(config)}`)
      yield* Layer.build(serving)
      if (demo) yield* printDemoKey
      return yield* Effect.never.pipe(
        Effect.onInterrupt(() => Effect.logInfo("Shutting down: in-flight requests finish, workers stop"))
      )
    }))
    // The tracer first, so that the store's batches, the use cases, the workers and the server all trace to it.
    return yield* Effect.provide(
      program,
      UseCases.layer(config, traced).pipe(Layer.provideMerge(Tracing.layer(config.otlpEndpoint)))
    )
  })
