#!/usr/bin/env node
/**
 * The `sendline` executable. It loads only the command line itself (`server/Cli`) and Node's
 * context: a command's implementation, with the core, the stores and the server, is loaded when
 * that command runs, so `sendline --help` answers in well under a second.
 *
 * @since 0.1.0
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Console, Effect, Layer, Option } from "effect"
import * as Cli from "./server/Cli.js"
import * as HelpText from "./server/HelpText.js"
import * as Logging from "./server/Logging.js"

/** The widest line of help, in columns. */
const helpWidth = 100

/** The command-line option of a field the core names (`admin_email` → `--admin-email`). */
const option = (field: string): string => `--${field === "identifiers" ? "identifier" : field.replace(/_/g, "-")}`

/** What an error says, one line each: an error of several problems (the routes') says each. */
const describe = (error: unknown): Effect.Effect<ReadonlyArray<string>> => {
  // Config, which loads the core and the stores, only once there is a configuration error to describe
  if (ConfigError.isConfigError(error)) {
    return Effect.map(Effect.promise(() => import("./server/Config.js")), (Config) => [Config.describeError(error)])
  }
  if (typeof error === "object" && error !== null && "problems" in error && Array.isArray(error.problems)) {
    return Effect.succeed(error.problems.map(String))
  }
  return Effect.map(describeOne(error), (line) => [line])
}

const describeOne = (error: unknown): Effect.Effect<string> => {
  if (typeof error === "object" && error !== null && "message" in error) {
    const message = String(error.message)
    // every error of core carries its CONTRACT code, the envelope's
    const code = "code" in error ? String(error.code) : undefined
    const named = "field" in error && error.field !== undefined ? option(String(error.field)) : undefined
    const field = named === undefined || message.includes(named) ? "" : ` (${named})`
    return Effect.succeed(`${code === undefined ? "" : `${code}: `}${message}${field}`)
  }
  return Effect.succeed(String(error))
}

/** `text` without its colour codes. */
const uncoloured = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "")

/** `text` without colours, on one line: its lines, trimmed, joined by "; ". */
const oneLine = (text: string): string =>
  uncoloured(text).split("\n").map((line) => line.trim()).filter((line) => line !== "").join("; ")

/** Whether `argv` asks for help, which @effect/cli then prints instead of running a command. */
const asksForHelp = (argv: ReadonlyArray<string>): boolean => argv.includes("--help") || argv.includes("-h")

/**
 * `effect` with @effect/cli's console: a usage error it prints is one line led by its code, as every
 * error of `sendline` is ("sendline: invalid_request: Expected to find option: '--account'"); help
 * fits in 100 columns, and on a stdout that is not a terminal comes without colours.
 */
const withPlainCliOutput = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(effect, {
      ...console,
      error: (...args) => console.error(`sendline: invalid_request: ${oneLine(args.map(String).join(" "))}`),
      log: (...args) => {
        const shown = asksForHelp(process.argv)
          ? args.map((arg) => (typeof arg === "string" ? HelpText.fit(arg, helpWidth) : arg))
          : args
        return process.stdout.isTTY
          ? console.log(...shown)
          : console.log(...shown.map((arg) => (typeof arg === "string" ? uncoloured(arg) : arg)))
      }
    }))

withPlainCliOutput(Cli.run(process.argv)).pipe(
  Effect.provide(Layer.merge(NodeContext.layer, Logging.layer)),
  Effect.catchAllCause((cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.void
    const failure = Cause.failureOption(cause)
    // @effect/cli has already printed usage errors
    if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
      return Effect.sync(() => (process.exitCode = 1))
    }
    return Option.match(failure, {
      onNone: () => Effect.succeed<ReadonlyArray<string>>([Cause.pretty(cause)]),
      onSome: describe
    }).pipe(
      Effect.flatMap((lines) => Effect.forEach(lines, (line) => Console.error(`sendline: ${line}`))),
      Effect.zipRight(Effect.sync(() => (process.exitCode = 1)))
    )
  }),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
