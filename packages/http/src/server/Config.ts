/**
 * The server's configuration from the environment (CONTRACT §9), with its defaults: the only place
 * that names the variables and parses them. `server` reads every setting at start, checked together;
 * `messaging`, `carrier`, `workers` and `webhookTransport` are what the core's, the carrier's and
 * the webhook transport's layers read. `LOG_LEVEL` alone is read in `Logging` (re-exported here),
 * since the executable reads it before it loads this module and what it imports.
 *
 * @since 0.1.0
 */
import type { CarrierMock } from "@sendline/carrier-mock"
import { SmppUrl } from "@sendline/carrier-smpp"
import { Dispatcher, Limits, MessagingConfig, type UrlPolicy, WebhookDeliverer, type Workers } from "@sendline/core"
import { SmtpMailer } from "@sendline/mailer-smtp"
import { PgPool } from "@sendline/store-postgres"
import type { SqliteStore } from "@sendline/store-sqlite"
import type { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Config, ConfigError, Duration, Either, type LogLevel, Option, Redacted } from "effect"
import * as ClientAddress from "../middleware/ClientAddress.js"
import * as Logging from "./Logging.js"

/** The server's settings, read once at start. @since 0.1.0 @category models */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly sqlitePath: string
  readonly sqliteSynchronous: SqliteStore.Synchronous
  /** The PostgreSQL store's timeouts, when `databaseUrl` is set. */
  readonly postgres: PostgresTimeouts
  readonly rateLimitPerSecond: number
  readonly rateLimitPerAccountPerSecond: number
  readonly authFailuresPerMinute: number
  readonly trustProxy: ReadonlyArray<string>
  /** Where mail goes: an SMTP server (`SMTP_URL`, as `mail` reads it), or none (the mail is logged). */
  readonly mail: Option.Option<SmtpMailer.Options>
  /** What `messaging` reads. */
  readonly messaging: Partial<MessagingConfig.Settings>
  /** What `limits` reads. */
  readonly limits: Limits.Settings
  /** The SMPP account messages go to (`CARRIER_URL`); none: the simulated carrier. */
  readonly carrierUrl: Option.Option<Redacted.Redacted<string>>
  /** The routes file naming several carriers and their routes (`ROUTES_FILE`, CONTRACT §11); none: one carrier. */
  readonly routesFile: Option.Option<string>
  /** What `carrier` reads: the simulated carrier's settings. */
  readonly carrier: CarrierMock.Options
  /** What `workers` reads. */
  readonly workers: Workers.Options
  /** What `webhookTransport` reads. */
  readonly webhookTransport: NodeWebhookTransport.Options
  /** The OTLP/HTTP collector traces go to (`OTEL_EXPORTER_OTLP_ENDPOINT`); none: no trace is exported. */
  readonly otlpEndpoint: Option.Option<string>
}

/**
 * `name`'s text, missing when empty or blank, so that its default applies: `PORT=` is unset, never
 * 0 (Effect's own readers take "" for the number 0).
 */
const given = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((text) =>
      text.trim() === "" ? Either.left(ConfigError.MissingData([name], `${name} is empty`)) : Either.right(text)
    )
  )

/** `name` read by `parse`, which answers `undefined` for a text that is not `expected`. */
const parsed = <A>(name: string, expected: string, parse: (text: string) => A | undefined) =>
  Config.mapOrFail(given(name), (text) => {
    const value = parse(text.trim())
    return value === undefined
      ? Either.left(ConfigError.InvalidData([name], `Expected ${expected} value but received ${JSON.stringify(text)}`))
      : Either.right(value)
  })

const finite = (text: string) => (Number.isFinite(Number(text)) ? Number(text) : undefined)
const integer = (name: string) =>
  parsed(
    name,
    "an integer",
    (text) => (/^[+-]?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined)
  )
const booleans = new Map([["true", true], ["yes", true], ["on", true], ["1", true], ["false", false], ["no", false], [
  "off",
  false
], ["0", false]])
const boolean = (name: string) => parsed(name, "a boolean", (text) => booleans.get(text.toLowerCase()))

/** Refuses a value below `min`, naming the variable. */
const atLeast = (name: string, min: number) =>
  Config.validate({ message: `${name} must be ${min} or more`, validation: (n: number) => n >= min })

/** Refuses a value above `max`, naming the variable. */
const atMost = (name: string, max: number) =>
  Config.validate({ message: `${name} must be ${max} or less`, validation: (n: number) => n <= max })

/** An integer setting of at least `min`, `fallback` when unset. */
const integerAtLeast = (name: string, min: number, fallback: number) =>
  integer(name).pipe(atLeast(name, min), Config.withDefault(fallback))

/** A text setting, `fallback` when unset or empty (`HOST=` must not mean every interface). */
const text = (name: string, fallback: string) => given(name).pipe(Config.withDefault(fallback))

/** An optional text setting, undefined when unset or empty. */
const optionalText = (name: string) => given(name).pipe(Config.withDefault(undefined))

/** The value of `choices` that `name` names, in any case. */
const oneOf = <A>(name: string, choices: ReadonlyMap<string, A>) =>
  Config.mapOrFail(given(name), (text) => {
    const value = choices.get(text.trim().toLowerCase())
    return value === undefined
      ? Either.left(ConfigError.InvalidData([name], `${name} must be one of ${[...choices.keys()].join(", ")}`))
      : Either.right(value)
  })

const synchronousModes = new Map<string, SqliteStore.Synchronous>([["normal", "normal"], ["full", "full"]])

/**
 * The URL policy of webhooks and callback URLs (`WEBHOOK_ALLOW_HTTP`, `WEBHOOK_ALLOW_PRIVATE`, both
 * off: https to public hosts only): what a subscription's `url` and a `callback_url` are checked
 * against when given, and what the transport checks again at each delivery.
 *
 * @since 0.1.0
 * @category config
 */
export const urlPolicy: Config.Config<UrlPolicy.UrlPolicy> = Config.all({
  allowHttp: boolean("WEBHOOK_ALLOW_HTTP").pipe(Config.withDefault(false)),
  allowPrivate: boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false))
})

/**
 * The limits per account (`MAX_PENDING_SENDER_IDS`, `BRAND_SUBMISSIONS_PER_HOUR`,
 * `MAX_WEBHOOK_SUBSCRIPTIONS`, `REDELIVERIES_PER_MINUTE`), for `Limits.layerConfig`.
 *
 * @since 0.1.0
 * @category config
 */
export const limits: Config.Config<Limits.Settings> = Config.all({
  pendingSenderIds: integerAtLeast("MAX_PENDING_SENDER_IDS", 1, Limits.defaults.pendingSenderIds),
  brandSubmissionsPerHour: integerAtLeast("BRAND_SUBMISSIONS_PER_HOUR", 1, Limits.defaults.brandSubmissionsPerHour),
  webhookSubscriptions: integerAtLeast("MAX_WEBHOOK_SUBSCRIPTIONS", 1, Limits.defaults.webhookSubscriptions),
  redeliveriesPerMinute: integerAtLeast("REDELIVERIES_PER_MINUTE", 1, Limits.defaults.redeliveriesPerMinute)
})

/** The messaging settings (`MAX_MESSAGE_SEGMENTS`), for `MessagingConfig.layerConfig`. @since 0.1.0 @category config */
export const messaging: Config.Config<Partial<MessagingConfig.Settings>> = Config.all({
  maxSegments: integerAtLeast("MAX_MESSAGE_SEGMENTS", 1, 10).pipe(
    atMost("MAX_MESSAGE_SEGMENTS", MessagingConfig.mostSegments)
  )
})

/**
 * The webhook transport's settings (the URL policy, `WEBHOOK_ALLOW_*`; its 10 s timeout is
 * CONTRACT §7's), for `NodeWebhookTransport.layer`.
 *
 * @since 0.1.0
 * @category config
 */
export const webhookTransport: Config.Config<NodeWebhookTransport.Options> = Config.map(
  urlPolicy,
  (policy) => ({ policy })
)

/**
 * How long a worker's claim holds a message, by default the Dispatcher's (every worker that claims
 * has that one); the carrier's dedupe window depends on it too.
 */
const leaseMillis = integerAtLeast("WORKER_LEASE_MS", 1000, Dispatcher.defaults.leaseMillis)

/**
 * The workers' settings (`WORKER_*`: one poll interval for all, one lease for those that claim; by
 * default the workers' own), for `Workers.layerConfig`. The WebhookDeliverer takes the lease, and
 * keeps its own poll (100 ms: the wait between an event and its first attempt);
 * `WEBHOOK_IN_FLIGHT_PER_ACCOUNT` caps its attempts in flight of one account, in every process
 * together.
 *
 * @since 0.1.0
 * @category config
 */
export const workers: Config.Config<Workers.Options> = Config.map(
  Config.all({
    pollMillis: integerAtLeast("WORKER_POLL_MS", 1, Dispatcher.defaults.pollMillis),
    leaseMillis,
    perAccount: integerAtLeast("WEBHOOK_IN_FLIGHT_PER_ACCOUNT", 1, WebhookDeliverer.defaults.perAccount)
  }),
  ({ leaseMillis, perAccount, pollMillis }) => ({
    dispatcher: { pollMillis, leaseMillis },
    scheduler: { pollMillis, leaseMillis },
    deliveryReports: { pollMillis },
    mailSender: { pollMillis, leaseMillis },
    webhookDeliverer: { leaseMillis, perAccount }
  })
)

/**
 * The SMTP server mail goes through (`SMTP_URL`: `smtp://` or `smtps://`, credentials in the URL,
 * redacted; a URL it cannot use is refused naming the problem, never the URL), from `MAIL_FROM`
 * (default `sendline@localhost`); none when `SMTP_URL` is unset, and mail is logged instead.
 *
 * @since 0.1.0
 * @category config
 */
export const mail: Config.Config<Option.Option<SmtpMailer.Options>> = Config.all({
  url: Config.option(
    Config.mapOrFail(given("SMTP_URL"), (text) => {
      const url = Redacted.make(text.trim())
      return Either.match(SmtpMailer.parse(url), {
        onLeft: (problem) => Either.left(ConfigError.InvalidData(["SMTP_URL"], `SMTP_URL ${problem}`)),
        onRight: () => Either.right(url)
      })
    })
  ),
  from: text("MAIL_FROM", "sendline@localhost")
}).pipe(Config.map(({ from, url }) => Option.map(url, (url): SmtpMailer.Options => ({ url, from }))))

/**
 * The simulated carrier's settings (`CARRIER_*`, in milliseconds), for `CarrierMock.layerConfig`;
 * `CARRIER_RETAIN_MS` must be at least twice `WORKER_LEASE_MS`.
 *
 * @since 0.1.0
 * @category config
 */
export const carrier: Config.Config<CarrierMock.Options> = Config.all([
  Config.all({
    submitLatency: integerAtLeast("CARRIER_SUBMIT_LATENCY_MS", 0, 0),
    reportDelay: integerAtLeast("CARRIER_REPORT_DELAY_MS", 0, 2000),
    maxPerSecond: integer("CARRIER_MAX_PER_SECOND").pipe(
      atLeast("CARRIER_MAX_PER_SECOND", 1),
      Config.withDefault(undefined)
    ),
    journalPath: optionalText("CARRIER_JOURNAL_PATH"),
    // a server runs for days: the mock forgets what is older than its dedupe window
    retain: integerAtLeast("CARRIER_RETAIN_MS", 0, 10 * 60_000)
  }),
  leaseMillis
]).pipe(
  // A message whose submission went unanswered (a crash, a 7777) is submitted again a lease
  // later: the simulated carrier must still remember the first one then, to dedupe or accept it.
  Config.mapOrFail(([options, leaseMillis]) =>
    options.retain >= 2 * leaseMillis
      ? Either.right(options)
      : Either.left(ConfigError.InvalidData(
        ["CARRIER_RETAIN_MS"],
        `CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (${2 * leaseMillis} ms): ` +
          "a message is submitted again one lease later, and the carrier must still remember the first submission"
      ))
  )
)

/**
 * `CARRIER_URL`: the SMPP account messages go to, `smpp://system_id:password@host[:port]?…` (or
 * `smpps://` for TLS; see `SmppUrl`), redacted; a URL it cannot use is refused naming the problem,
 * never the URL. Unset: the simulated carrier.
 *
 * @since 0.1.0
 * @category config
 */
export const carrierUrl: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  Config.mapOrFail(given("CARRIER_URL"), (text) => {
    const url = Redacted.make(text.trim())
    return Either.match(SmppUrl.parse(url), {
      onLeft: (problem) => Either.left(ConfigError.InvalidData(["CARRIER_URL"], `CARRIER_URL ${problem}`)),
      onRight: () => Either.right(url)
    })
  })
)

/**
 * `ROUTES_FILE`: the path of a JSON file naming several carriers and routing markets to them
 * (CONTRACT §11, read and checked by `Routing`); unset, one carrier: `CARRIER_URL`'s, or the
 * simulated one.
 *
 * @since 0.2.0
 * @category config
 */
export const routesFile: Config.Config<Option.Option<string>> = Config.option(
  given("ROUTES_FILE").pipe(Config.map((path) => path.trim()))
)

/** What routing reads (`ROUTES_FILE`, `CARRIER_URL`, `CARRIER_*`, `WORKER_LEASE_MS`), alone: for `sendline routes check`. @since 0.2.0 @category config */
export const routing: Config.Config<Pick<ServerConfig, "routesFile" | "carrierUrl" | "carrier" | "workers">> = Config
  .all({ routesFile, carrierUrl, carrier, workers })

/** The PostgreSQL store's timeouts, as `PgPool.Options` names them (zero turns either off). @since 0.1.0 @category models */
export interface PostgresTimeouts {
  readonly statementTimeout: Duration.Duration
  readonly queryTimeout: Duration.Duration
}

/** A duration in milliseconds of at least 0, `fallback` when unset. */
const millisAtLeastZero = (name: string, fallback: Duration.Duration) =>
  integerAtLeast(name, 0, Duration.toMillis(fallback)).pipe(Config.map(Duration.millis))

/**
 * The PostgreSQL store's timeouts (`DATABASE_STATEMENT_TIMEOUT_MS`, `DATABASE_QUERY_TIMEOUT_MS`,
 * 0 turns either off), by default `PgPool`'s; when both are on, the query timeout must be the
 * longer, so that a slow statement is the server's to cancel.
 *
 * @since 0.1.0
 * @category config
 */
export const postgres: Config.Config<PostgresTimeouts> = Config.all({
  statementTimeout: millisAtLeastZero("DATABASE_STATEMENT_TIMEOUT_MS", PgPool.defaults.statementTimeout),
  queryTimeout: millisAtLeastZero("DATABASE_QUERY_TIMEOUT_MS", PgPool.defaults.queryTimeout)
}).pipe(
  Config.mapOrFail((timeouts) => {
    const [statement, query] = [Duration.toMillis(timeouts.statementTimeout), Duration.toMillis(timeouts.queryTimeout)]
    return statement === 0 || query === 0 || query > statement
      ? Either.right(timeouts)
      : Either.left(ConfigError.InvalidData(
        ["DATABASE_QUERY_TIMEOUT_MS"],
        `DATABASE_QUERY_TIMEOUT_MS must be longer than DATABASE_STATEMENT_TIMEOUT_MS (${statement} ms): ` +
          "a slow statement is the server's to cancel, without closing its connection"
      ))
  })
)

/** A rate in requests per second (fractions allowed), `fallback` when unset; 0 turns its limit off. */
const rate = (name: string, fallback: number) =>
  parsed(name, "a number", finite).pipe(
    Config.validate({ message: `${name} must be 0 (no limit) or more`, validation: (n) => n >= 0 }),
    Config.withDefault(fallback)
  )

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT`: the base URL of an OTLP/HTTP collector (`http://` or `https://`;
 * traces go to its `/v1/traces`), as OpenTelemetry's SDKs name it; unset, no trace is exported.
 *
 * @since 0.1.0
 * @category config
 */
export const otlpEndpoint: Config.Config<Option.Option<string>> = Config.option(
  Config.mapOrFail(given("OTEL_EXPORTER_OTLP_ENDPOINT"), (text) => {
    const url = URL.canParse(text.trim()) ? new URL(text.trim()) : undefined
    return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
      ? Either.right(text.trim())
      : Either.left(ConfigError.InvalidData(
        ["OTEL_EXPORTER_OTLP_ENDPOINT"],
        "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the collector's OTLP/HTTP endpoint)"
      ))
  })
)

/** Every setting, with CONTRACT §9's names, checked together at start. @since 0.1.0 @category config */
export const server: Config.Config<ServerConfig> = Config.all({
  port: parsed("PORT", "a network port", (text) => {
    const port = /^\d+$/.test(text) ? Number(text) : NaN
    return port >= 1 && port <= 65535 ? port : undefined
  }).pipe(Config.withDefault(3000)),
  host: text("HOST", "127.0.0.1"),
  databaseUrl: Config.option(
    given("DATABASE_URL").pipe(
      Config.validate({
        message: "DATABASE_URL must be a postgres:// URL; unset it to use SQLite",
        validation: (url) => /^postgres(ql)?:\/\//.test(url)
      }),
      Config.map(Redacted.make)
    )
  ),
  sqlitePath: text("SQLITE_PATH", "data/sendline.sqlite"),
  sqliteSynchronous: oneOf("SQLITE_SYNCHRONOUS", synchronousModes).pipe(Config.withDefault("normal" as const)),
  postgres,
  rateLimitPerSecond: rate("RATE_LIMIT_PER_SECOND", 100),
  rateLimitPerAccountPerSecond: rate("RATE_LIMIT_PER_ACCOUNT_PER_SECOND", 200),
  authFailuresPerMinute: integerAtLeast("AUTH_FAILURES_PER_MINUTE", 0, 60),
  trustProxy: parsed("TRUST_PROXY", "a comma-separated list of addresses or CIDR ranges", (text) => {
    const ranges = text.split(",").map((range) => range.trim())
    return ranges.every(ClientAddress.isRange) ? ranges : undefined
  }).pipe(Config.withDefault([])),
  mail,
  messaging,
  limits,
  carrierUrl,
  routesFile,
  carrier,
  workers,
  webhookTransport,
  otlpEndpoint
})

/**
 * What a configuration error says: each problem once, naming its variable, joined by "; "
 * ("PORT: Expected a network port value but received abc"). A variable that several settings
 * read (`WORKER_LEASE_MS`) is named once.
 *
 * @since 0.1.0
 * @category errors
 */
export const describeError = (error: ConfigError.ConfigError): string => [...new Set(problems(error))].join("; ")

const problems = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...problems(error.left), ...problems(error.right)]
    case "Unsupported":
    case "SourceUnavailable":
    case "MissingData":
    case "InvalidData": {
      const name = error.path.join("_")
      return [name === "" || error.message.startsWith(name) ? error.message : `${name}: ${error.message}`]
    }
  }
}

/** `LOG_LEVEL`: read in `Logging`, which the executable loads before anything else. @since 0.1.0 @category config */
export const logLevel: Config.Config<LogLevel.LogLevel> = Logging.logLevel

/** `LOG_FORMAT`: read in `Logging`, as `LOG_LEVEL` is. @since 0.1.0 @category config */
export const logFormat = Logging.logFormat
