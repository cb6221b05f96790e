/**
 * The `sendline` executable's logging: at `LOG_LEVEL`, in `LOG_FORMAT`, to stderr, so that stdout
 * carries only what commands print. It imports nothing but `effect`: the executable provides it before it knows the
 * command, so whatever it imports `sendline --help` loads too (keep the settings it reads here, not
 * in `Config`, which loads the core, the stores and the mailer).
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Effect, Either, Layer, Logger, LogLevel } from "effect"

/** The variable `name`, any case, as one of `choices`; blank is unset (so that a default applies). */
const oneOf = <A>(name: string, choices: ReadonlyMap<string, A>): Config.Config<A> =>
  Config.string(name).pipe(
    Config.mapOrFail((text) => {
      const key = text.trim().toLowerCase()
      if (key === "") return Either.left(ConfigError.MissingData([], `${name} is empty`))
      const choice = choices.get(key)
      return choice === undefined
        ? Either.left(ConfigError.InvalidData([], `${name} must be one of ${[...choices.keys()].join(", ")}`))
        : Either.right(choice)
    })
  )

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
export const logLevel: Config.Config<LogLevel.LogLevel> = oneOf("LOG_LEVEL", levels).pipe(
  Config.withDefault(LogLevel.Info)
)

/** How log lines are written. @since 0.1.0 @category models */
export type LogFormat = "json" | "pretty"

const formats = new Map<string, LogFormat>([["json", "json"], ["pretty", "pretty"]])

/**
 * `LOG_FORMAT`, any case: `json` (one JSON object a line) or `pretty`; unset or blank, pretty when
 * the lines go to a terminal (`terminal`), else JSON.
 *
 * @since 0.1.0
 * @category config
 */
export const logFormat = (terminal: boolean): Config.Config<LogFormat> =>
  oneOf("LOG_FORMAT", formats).pipe(Config.withDefault<LogFormat>(terminal ? "pretty" : "json"))

/** Effect's logger of `format`, writing to stderr: JSON lines, or pretty lines coloured on a terminal. */
const loggerOf = (format: LogFormat, terminal: boolean) =>
  format === "json"
    ? Logger.withConsoleError(Logger.jsonLogger)
    : Logger.prettyLogger({ stderr: true, colors: terminal })

/**
 * Logs at `LOG_LEVEL` in `LOG_FORMAT` to stderr; fails with the `ConfigError` of a value it does not
 * know.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(Effect.suspend(() => {
  const terminal = process.stderr.isTTY === true
  return Effect.map(
    Effect.all([logLevel, logFormat(terminal)]),
    ([level, format]) =>
      Layer.merge(Logger.minimumLogLevel(level), Logger.replace(Logger.defaultLogger, loggerOf(format, terminal)))
  )
}))
