#!/usr/bin/env node
/**
 * The `sendline` executable.
 *
 * @since 0.1.0
 */
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, ConfigError, Console, Effect, Layer, Option } from "effect"
import * as Cli from "./server/Cli.js"
import * as Config from "./server/Config.js"

/** The command-line option of a field the core names (`admin_email` → `--admin-email`). */
const option = (field: string): string => `--${field === "identifiers" ? "identifier" : field.replace(/_/g, "-")}`

const describe = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return Config.describeError(error)
  if (typeof error === "object" && error !== null && "message" in error) {
    const message = String(error.message)
    // every error of core carries its CONTRACT code, the envelope's
    const code = "code" in error ? String(error.code) : undefined
    const named = "field" in error && error.field !== undefined ? option(String(error.field)) : undefined
    const field = named === undefined || message.includes(named) ? "" : ` (${named})`
    return `${code === undefined ? "" : `${code}: `}${message}${field}`
  }
  return String(error)
}

/** `text` without its colour codes. */
const uncoloured = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "")

/** `text` without colours, on one line: its lines, trimmed, joined by "; ". */
const oneLine = (text: string): string =>
  uncoloured(text).split("\n").map((line) => line.trim()).filter((line) => line !== "").join("; ")

/**
 * `effect` with @effect/cli's console: a usage error it prints is one line led by its code, as every
 * error of `sendline` is ("sendline: invalid_request: Expected to find option: '--account'"), and
 * help on a stdout that is not a terminal comes without colours.
 */
const withPlainCliOutput = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(effect, {
      ...console,
      error: (...args) => console.error(`sendline: invalid_request: ${oneLine(args.map(String).join(" "))}`),
      log: (...args) =>
        process.stdout.isTTY
          ? console.log(...args)
          : console.log(...args.map((arg) => (typeof arg === "string" ? uncoloured(arg) : arg)))
    }))

withPlainCliOutput(Cli.run(process.argv)).pipe(
  Effect.provide(Layer.merge(NodeContext.layer, Cli.loggingLayer)),
  Effect.catchAllCause((cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.void
    const failure = Cause.failureOption(cause)
    // @effect/cli has already printed usage errors
    if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
      return Effect.sync(() => (process.exitCode = 1))
    }
    return Console.error(
      `sendline: ${Option.match(failure, { onNone: () => Cause.pretty(cause), onSome: describe })}`
    ).pipe(Effect.zipRight(Effect.sync(() => (process.exitCode = 1))))
  }),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
