/** What the in-process server logs, kept line by line for a test to read. */
import type { LogLevel } from "effect"
import { HashMap, Layer, Logger } from "effect"

/** One line: its level, its message as text, and its annotations. */
export interface Logged {
  readonly level: LogLevel.LogLevel
  readonly text: string
  readonly fields: Record<string, unknown>
}

/** The default logger replaced by one that appends every line at `minimum` or above to `into`, then calls `logged`. */
export const capture = (into: Array<Logged>, minimum: LogLevel.LogLevel, logged?: () => void) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) => {
      const text = Array.isArray(message) ? message.join(" ") : String(message)
      into.push({ level: logLevel, text, fields: Object.fromEntries(HashMap.toEntries(annotations)) })
      logged?.()
    })
  ).pipe(Layer.merge(Logger.minimumLogLevel(minimum)))
