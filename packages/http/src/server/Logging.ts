/**
 * The `sendline` executable's logging: at `LOG_LEVEL`, to stderr, so that stdout carries only what
 * commands print. It imports nothing but `effect`: the executable provides it before it knows the
 * command, so whatever it imports `sendline --help` loads too (keep the settings it reads here, not
 * in `Config`, which loads the core, the stores and the mailer).
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Effect, Either, Layer, Logger, LogLevel } from "effect"

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

/**
 * `LOG_LEVEL`, any case: all, trace, debug, info (default, also when blank), warn or warning,
 * error, fatal, none.
 *
 * @since 0.1.0
 * @category config
 */
export const logLevel: Config.Config<LogLevel.LogLevel> = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((text) => {
    const name = text.trim().toLowerCase()
    // blank is unset, so that the default applies
    if (name === "") return Either.left(ConfigError.MissingData([], "LOG_LEVEL is empty"))
    const level = levels.get(name)
    return level === undefined
      ? Either.left(ConfigError.InvalidData([], `LOG_LEVEL must be one of ${[...levels.keys()].join(", ")}`))
      : Either.right(level)
  }),
  Config.withDefault(LogLevel.Info)
)

/**
 * Logs at `LOG_LEVEL` to stderr, in Effect's pretty format (colours on a terminal); fails with the
 * `ConfigError` of a `LOG_LEVEL` it does not know.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(logLevel, (level) =>
    Layer.merge(
      Logger.minimumLogLevel(level),
      Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: "auto" }))
    ))
)
