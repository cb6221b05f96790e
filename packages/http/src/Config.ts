/**
 * The server's configuration from the environment (CONTRACT §9), with its defaults. The only place
 * that reads the environment.
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Either, LogLevel, Option, Redacted } from "effect"

/** The server's settings, read once at start. @since 0.1.0 @category models */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly sqlitePath: string
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

/** Every setting, with CONTRACT §9's names. @since 0.1.0 @category config */
export const server: Config.Config<ServerConfig> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  sqlitePath: Config.string("SQLITE_PATH").pipe(Config.withDefault("data/sendline.sqlite")),
  rateLimitPerSecond: Config.number("RATE_LIMIT_PER_SECOND").pipe(
    Config.validate({ message: "RATE_LIMIT_PER_SECOND must be 0 (no limit) or more", validation: (n) => n >= 0 }),
    Config.withDefault(100)
  ),
  webhookAllowHttp: Config.boolean("WEBHOOK_ALLOW_HTTP").pipe(Config.withDefault(false)),
  webhookAllowPrivate: Config.boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  maxSegments: Config.integer("MAX_MESSAGE_SEGMENTS").pipe(
    Config.validate({ message: "MAX_MESSAGE_SEGMENTS must be 1 or more", validation: (n) => n >= 1 }),
    Config.withDefault(10)
  ),
  carrier: Config.all({
    submitLatencyMillis: Config.integer("CARRIER_SUBMIT_LATENCY_MS").pipe(Config.withDefault(0)),
    reportDelayMillis: Config.integer("CARRIER_REPORT_DELAY_MS").pipe(Config.withDefault(2000)),
    maxPerSecond: Config.option(
      Config.integer("CARRIER_MAX_PER_SECOND").pipe(
        Config.validate({ message: "CARRIER_MAX_PER_SECOND must be 1 or more", validation: (n) => n >= 1 })
      )
    ),
    journalPath: Config.option(Config.string("CARRIER_JOURNAL_PATH")),
    retainMillis: Config.integer("CARRIER_RETAIN_MS").pipe(Config.withDefault(10 * 60_000))
  }),
  workers: Config.all({
    pollMillis: Config.integer("WORKER_POLL_MS").pipe(Config.withDefault(1000)),
    leaseMillis: Config.integer("WORKER_LEASE_MS").pipe(Config.withDefault(30_000))
  })
})

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
