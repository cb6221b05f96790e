/**
 * The server's configuration from the environment (CONTRACT §9), with its defaults. The only place
 * that reads the environment.
 *
 * @since 0.1.0
 */
import type { SqliteStore } from "@sendline/store-sqlite"
import { Config, ConfigError, Either, LogLevel, Option, Redacted } from "effect"

/** The server's settings, read once at start. @since 0.1.0 @category models */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly sqlitePath: string
  readonly sqliteSynchronous: SqliteStore.Synchronous
  readonly rateLimitPerSecond: number
  readonly webhookAllowHttp: boolean
  readonly webhookAllowPrivate: boolean
  readonly maxSegments: number
  readonly carrier: CarrierSettings
  readonly workers: WorkerSettings
}

/** How the background workers poll and hold their work (WORKER_*). @since 0.1.0 @category models */
export interface WorkerSettings {
  /** Clock time between passes when a pass found less than a full batch. */
  readonly pollMillis: number
  /** How long a claim holds a message; a process that dies loses its claims when they end. */
  readonly leaseMillis: number
}

/** The simulated carrier's settings (CARRIER_*); see `@sendline/carrier-mock`. @since 0.1.0 @category models */
export interface CarrierSettings {
  readonly submitLatencyMillis: number
  readonly reportDelayMillis: number
  readonly maxPerSecond: Option.Option<number>
  readonly journalPath: Option.Option<string>
  /** How long the carrier remembers a submission in memory (its dedupe window). */
  readonly retainMillis: number
}

/** Refuses a value below `min`, naming the variable. */
const atLeast = (name: string, min: number) =>
  Config.validate({ message: `${name} must be ${min} or more`, validation: (n: number) => n >= min })

/** An integer setting of at least `min`, `fallback` when unset. */
const integerAtLeast = (name: string, min: number, fallback: number) =>
  Config.integer(name).pipe(atLeast(name, min), Config.withDefault(fallback))

/** A text setting, `fallback` when unset or empty (`HOST=` must not mean every interface). */
const text = (name: string, fallback: string) =>
  Config.string(name).pipe(Config.withDefault(fallback), Config.map((value) => (value === "" ? fallback : value)))

/** An optional text setting, unset when empty. */
const optionalText = (name: string) => Config.option(Config.string(name)).pipe(Config.map(Option.filter((v) => v !== "")))

/** Every setting, with CONTRACT §9's names. @since 0.1.0 @category config */
export const server: Config.Config<ServerConfig> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: text("HOST", "127.0.0.1"),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")).pipe(
    Config.map(Option.filter((url) => Redacted.value(url) !== ""))
  ),
  sqlitePath: text("SQLITE_PATH", "data/sendline.sqlite"),
  sqliteSynchronous: Config.string("SQLITE_SYNCHRONOUS").pipe(
    Config.map((value) => (value === "" ? "normal" : value.toLowerCase())),
    Config.validate({
      message: "SQLITE_SYNCHRONOUS must be normal or full",
      validation: (value): value is SqliteStore.Synchronous => value === "normal" || value === "full"
    }),
    Config.withDefault("normal" as const)
  ),
  rateLimitPerSecond: Config.number("RATE_LIMIT_PER_SECOND").pipe(
    Config.validate({ message: "RATE_LIMIT_PER_SECOND must be 0 (no limit) or more", validation: (n) => n >= 0 }),
    Config.withDefault(100)
  ),
  webhookAllowHttp: Config.boolean("WEBHOOK_ALLOW_HTTP").pipe(Config.withDefault(false)),
  webhookAllowPrivate: Config.boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  maxSegments: integerAtLeast("MAX_MESSAGE_SEGMENTS", 1, 10),
  carrier: Config.all({
    submitLatencyMillis: integerAtLeast("CARRIER_SUBMIT_LATENCY_MS", 0, 0),
    reportDelayMillis: integerAtLeast("CARRIER_REPORT_DELAY_MS", 0, 2000),
    maxPerSecond: Config.option(Config.integer("CARRIER_MAX_PER_SECOND").pipe(atLeast("CARRIER_MAX_PER_SECOND", 1))),
    journalPath: optionalText("CARRIER_JOURNAL_PATH"),
    retainMillis: integerAtLeast("CARRIER_RETAIN_MS", 0, 10 * 60_000)
  }),
  workers: Config.all({
    pollMillis: integerAtLeast("WORKER_POLL_MS", 1, 1000),
    leaseMillis: integerAtLeast("WORKER_LEASE_MS", 1000, 30_000)
  })
}).pipe(
  // A message whose submission went unanswered (a crash, a 7777) is submitted again a lease
  // later: the simulated carrier must still remember the first one then, to dedupe or accept it.
  Config.mapOrFail((settings) =>
    settings.carrier.retainMillis >= 2 * settings.workers.leaseMillis
      ? Either.right(settings)
      : Either.left(ConfigError.InvalidData(
        ["CARRIER_RETAIN_MS"],
        `CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (${2 * settings.workers.leaseMillis} ms): ` +
          "a message is submitted again one lease later, and the carrier must still remember the first submission"
      ))
  )
)

/**
 * What a configuration error says: each problem naming its variable, joined by "; "
 * ("PORT: Expected a network port value but received abc").
 *
 * @since 0.1.0
 * @category errors
 */
export const describeError = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${describeError(error.left)}; ${describeError(error.right)}`
    case "Unsupported":
    case "SourceUnavailable":
    case "MissingData":
    case "InvalidData": {
      const name = error.path.join("_")
      return name === "" || error.message.startsWith(name) ? error.message : `${name}: ${error.message}`
    }
  }
}

const levels = new Map<string, LogLevel.LogLevel>([
  ["all", LogLevel.All],
  ["trace", LogLevel.Trace],
  ["debug", LogLevel.Debug],
  ["info", LogLevel.Info],
  ["warn", LogLevel.Warning],
  ["warning", LogLevel.Warning],
  ["error", LogLevel.Error],
  ["fatal", LogLevel.Fatal],
  ["none", LogLevel.None]
])

/** `LOG_LEVEL`, any case: all, trace, debug, info (default), warn or warning, error, fatal, none. @since 0.1.0 @category config */
export const logLevel: Config.Config<LogLevel.LogLevel> = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((name) => {
    const level = levels.get(name.toLowerCase())
    return level === undefined
      ? Either.left(ConfigError.InvalidData([], `LOG_LEVEL must be one of ${[...levels.keys()].join(", ")}`))
      : Either.right(level)
  }),
  Config.withDefault(LogLevel.Info)
)
