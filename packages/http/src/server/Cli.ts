/**
 * The `sendline` command line (CONTRACT §10). Every command that creates something prints one JSON
 * object on stdout; errors go to stderr with a non-zero exit.
 *
 * @since 0.1.0
 */
import { Args, Command, Options } from "@effect/cli"
import { CarrierMock } from "@sendline/carrier-mock"
import { Account, Admin, BrandVerifier, Demo, Errors, Ids, Mailer, Markets, MessagingConfig, Permission, Services, Timestamp, Workers } from "@sendline/core"
import { SmtpMailer } from "@sendline/mailer-smtp"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Console, Effect, Layer, Logger, Option, Schema } from "effect"
import * as Config from "./Config.js"
import * as Server from "./Server.js"
import * as Store from "./Store.js"

/**
 * The use cases over the configured store, with the configured messaging settings; built without
 * spans while there is no trace exporter (see `Services.withoutSpans`).
 */
const coreLayer = (config: Config.ServerConfig) =>
  Services.withoutSpans(Services.layerWithoutDefaults).pipe(
    Layer.provideMerge(
      Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layerConfig(Config.messaging), BrandVerifier.layer)
    ),
    Layer.provideMerge(Store.layer(config))
  )

/** The simulated carrier, the only carrier there is for now. */
const carrierLayer = Layer.tap(
  CarrierMock.layerConfig(Config.carrier),
  () => Effect.logInfo("Carrier: simulated (@sendline/carrier-mock)")
)

/** The mailer the MailSender sends through: SMTP when `SMTP_URL` is set, else the one that logs each mail. */
const mailerLayer = (config: Config.ServerConfig) =>
  Option.match(config.mail, {
    onNone: () =>
      Layer.tap(Mailer.layerLog, () => Effect.logInfo("Mail: logged, not sent (SMTP_URL is not set)")),
    onSome: (options) =>
      Layer.tap(SmtpMailer.layer(options), () => Effect.logInfo(`Mail: SMTP at ${SmtpMailer.location(options.url)}, from ${options.from}`))
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

const withCore = <A, E>(effect: Effect.Effect<A, E, Services.UseCases>) =>
  Effect.flatMap(Config.server, (config) => Effect.provide(effect, coreLayer(config)))

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const accountJson = (a: Account.Account) => ({
  id: a.id,
  name: a.name,
  type: a.type,
  admin_email: a.adminEmail,
  ...(a.network === undefined ? {} : { network: a.network }),
  markets: a.markets,
  identifiers: a.identifiers.map((i) => ({ identifier_type: i.identifierType, identifier_value: i.identifierValue })),
  created_at: Timestamp.format(a.createdAt)
})

const keyJson = ({ apiKey, secret }: Admin.IssuedKey) => ({
  id: apiKey.id,
  key: secret,
  account_id: apiKey.accountId,
  permissions: apiKey.permissions,
  expires_at: apiKey.expiresAt === undefined ? null : Timestamp.format(apiKey.expiresAt),
  created_at: Timestamp.format(apiKey.createdAt)
})

const demo = Options.boolean("demo").pipe(
  Options.withDescription("Create the demo organisation, Brand Owner and operators once and print new demo keys")
)

// The demo key is issued once the server listens: a start that cannot listen prints no key.
const serve = Command.make("serve", { demo }, ({ demo }) =>
  Effect.gen(function*() {
    // every setting checked before anything starts; the layers below read theirs through Config
    const config = yield* Config.server
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
            onSome: (key) => [`  Demo Brand Owner key (brands, owns ${identifierType} ${identifierValue}): ${key.secret}`]
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
        trustProxy: config.trustProxy
      }),
      Workers.layerConfig(Config.workers)
    ).pipe(Layer.provide(Layer.mergeAll(carrierLayer, mailerLayer(config), webhookTransportLayer(config))))
    // Said when the signal comes, before the drain (at most Listener.timeouts.drain) and the workers' stop.
    const program = Effect.scoped(Effect.gen(function*() {
      yield* Effect.logInfo(`Store: ${Store.describe(config)}`)
      yield* Layer.build(serving)
      if (demo) yield* printDemoKey
      return yield* Effect.never.pipe(
        Effect.onInterrupt(() => Effect.logInfo("Shutting down: in-flight requests finish, workers stop"))
      )
    }))
    return yield* Effect.provide(program, coreLayer(config))
  })).pipe(Command.withDescription("Migrate, then serve /v1 (with --demo: create demo data and print a key)"))

const migrate = Command.make("migrate", {}, () =>
  Effect.flatMap(Config.server, (config) =>
    Effect.provide(Effect.logInfo(`Migrations applied: ${Store.describe(config)}`), Store.layer(config)))).pipe(
    Command.withDescription("Create or update the database schema")
  )

const accountType = Options.choice("type", Account.AccountType.literals).pipe(Options.withDescription("What the account is"))
/** An option naming an account by id. */
const accountOption = Options.text("account").pipe(Options.withDescription("The account's id, acct_…"))
const identifier = Options.text("identifier").pipe(
  Options.repeated,
  Options.withDescription(
    "A legal identifier the brand account owns, TYPE:VALUE (ABN, ACN, NZBN, UEN or CRN, checked as a brand's; spaces ignored; owned by no other account)"
  )
)

const createAccount = Command.make("create", {
  name: Options.text("name").pipe(Options.withDescription("The account's name")),
  type: accountType,
  adminEmail: Options.text("admin-email").pipe(Options.withDescription("Where the account's administrator is written to")),
  network: Options.optional(Options.text("network").pipe(Options.withDescription("An operator's network, e.g. telstra (operators only)"))),
  market: Options.optional(Options.text("market").pipe(Options.withDescription("An operator's market, e.g. AU (operators only)"))),
  identifier
}, (o) =>
  withCore(Effect.gen(function*() {
    const identifiers = []
    for (const raw of o.identifier) {
      const [type, ...rest] = raw.split(":")
      if (type === undefined || type === "" || rest.join(":") === "") {
        return yield* Errors.invalidParameter("identifier", `--identifier ${raw} must be TYPE:VALUE.`)
      }
      identifiers.push({ identifierType: type, identifierValue: rest.join(":") })
    }
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({
      name: o.name,
      type: o.type,
      adminEmail: o.adminEmail,
      network: Option.getOrUndefined(o.network),
      market: Option.getOrUndefined(o.market),
      identifiers
    })
    yield* printJson(accountJson(account))
  }))).pipe(Command.withDescription("Create an account (organisation)"))

const createKey = Command.make("create", {
  account: accountOption,
  permissions: Options.text("permissions").pipe(Options.withDescription("Comma-separated, e.g. messaging:send,messaging:read")),
  expiresAt: Options.optional(Options.text("expires-at")).pipe(
    Options.withDescription("When the key stops working: an RFC 3339 date-time, or a date (its first instant, UTC)")
  )
}, (o) =>
  withCore(Effect.gen(function*() {
    const permissions: Array<Permission.Permission> = []
    for (const p of o.permissions.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
      if (!Schema.is(Permission.Permission)(p)) {
        return yield* Errors.invalidParameter("permissions", `Unknown permission ${p}; known: ${Permission.all.join(", ")}.`)
      }
      permissions.push(p)
    }
    let expiresAt: number | undefined
    if (Option.isSome(o.expiresAt)) {
      const parsed = Timestamp.parseDateFilter(o.expiresAt.value, false)
      if (Option.isNone(parsed)) {
        return yield* Errors.invalidParameter(
          "expires-at",
          "--expires-at must be an RFC 3339 date-time, or a date (YYYY-MM-DD: its first instant, UTC)."
        )
      }
      expiresAt = parsed.value
    }
    const admin = yield* Admin.Admin
    yield* printJson(keyJson(yield* admin.createKey({ accountId: o.account, permissions, expiresAt })))
  }))).pipe(Command.withDescription("Create an API key; its secret is printed once"))

const revokeKey = Command.make("revoke", { id: Args.text({ name: "KEY_ID" }).pipe(Args.withDescription("The key's id, key_…")) }, ({ id }) =>
  withCore(Effect.gen(function*() {
    yield* (yield* Admin.Admin).revokeKey(id)
    yield* printJson({ id, revoked: true })
  }))).pipe(Command.withDescription("Revoke an API key"))

const importSid = Command.make("import", {
  account: accountOption,
  senderId: Options.text("sender-id").pipe(Options.withDescription("1–11 letters, digits or spaces, with a letter")),
  market: Options.text("market").pipe(Options.withDescription("The market it is registered in, e.g. AU")),
  brandName: Options.text("brand-name").pipe(Options.withDescription("The brand that holds it in the market"))
}, (o) =>
  withCore(Effect.gen(function*() {
    const record = yield* (yield* Admin.Admin).importSenderId({
      accountId: o.account,
      senderId: o.senderId,
      market: o.market,
      brandName: o.brandName
    })
    yield* printJson({
      id: record.id,
      account_id: record.accountId,
      sender_id: record.senderId,
      market: record.market,
      brand_name: record.brandName,
      status: record.status,
      created_at: Timestamp.format(record.createdAt),
      registered_at: record.registeredAt === undefined ? null : Timestamp.format(record.registeredAt),
      expires_at: record.expiresAt === undefined ? null : Timestamp.format(record.expiresAt)
    })
  }))).pipe(Command.withDescription("Record a Sender ID registered elsewhere as registered"))

// A group run without its command did nothing: a usage error, on stderr with exit 1 (the
// executable leads it with "sendline: invalid_request:", as every usage error).
const noCommand = (group: string, commands: ReadonlyArray<string>) =>
  Effect.zipRight(
    Console.error(`${group} needs a command: ${commands.join(", ")} (${group} --help says more).`),
    Effect.sync(() => (process.exitCode = 1))
  )

/** The `sendline` command with its subcommands. @since 0.1.0 @category commands */
export const command = Command.make("sendline", {}, () => noCommand("sendline", ["serve", "migrate", "accounts", "keys", "sids"])).pipe(
  Command.withSubcommands([
    serve,
    migrate,
    Command.make("accounts", {}, () => noCommand("sendline accounts", ["create"])).pipe(Command.withSubcommands([createAccount])),
    Command.make("keys", {}, () => noCommand("sendline keys", ["create", "revoke"])).pipe(Command.withSubcommands([createKey, revokeKey])),
    Command.make("sids", {}, () => noCommand("sendline sids", ["import"])).pipe(Command.withSubcommands([importSid]))
  ])
)

/** Runs the command line on the whole `process.argv`. @since 0.1.0 @category running */
export const run = Command.run(command, { name: "sendline", version: "0.1.0" })

/**
 * Effect's logger of `format`, writing to stderr: JSON lines (`Logger.jsonLogger`), or pretty
 * lines coloured when they go to a terminal.
 */
const loggerOf = (format: Config.LogFormat, terminal: boolean) =>
  format === "json"
    ? Logger.withConsoleError(Logger.jsonLogger)
    : Logger.prettyLogger({ stderr: true, colors: terminal })

/**
 * Logs at `LOG_LEVEL` in `LOG_FORMAT` to stderr, so that stdout carries only what commands print.
 *
 * @since 0.1.0
 * @category layers
 */
export const loggingLayer = Layer.unwrapEffect(Effect.suspend(() => {
  const terminal = process.stderr.isTTY === true
  return Effect.map(Effect.all([Config.logLevel, Config.logFormat(terminal)]), ([level, format]) =>
    Layer.merge(Logger.minimumLogLevel(level), Logger.replace(Logger.defaultLogger, loggerOf(format, terminal))))
}))
