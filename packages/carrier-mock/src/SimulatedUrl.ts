/**
 * The simulated carrier as a URL, as a routes file names it (CONTRACT §11): `simulated:`, its
 * settings as query parameters (`simulated:?report_delay_ms=2000&max_per_second=50`), read into
 * `CarrierMock.Options`.
 *
 * @since 0.2.0
 */
import { Either } from "effect"
import type { Options } from "./CarrierMock.js"

/** The scheme of the simulated carrier's URL. @since 0.2.0 @category constants */
export const scheme = "simulated:"

/** The query parameters `parse` reads, each an option of `CarrierMock.Options`; any other is refused. @since 0.2.0 @category constants */
export const parameters = [
  "submit_latency_ms",
  "report_delay_ms",
  "max_per_second",
  "retain_ms",
  "journal_path"
] as const

const millis = (name: string, text: string): Either.Either<number, string> =>
  /^\d+$/.test(text) && Number.isSafeInteger(Number(text))
    ? Either.right(Number(text))
    : Either.left(`${name} must be a whole number of milliseconds, 0 or more`)

/** Reads one parameter into its option. */
const option = (name: (typeof parameters)[number], text: string): Either.Either<Options, string> => {
  switch (name) {
    case "submit_latency_ms":
      return Either.map(millis(name, text), (submitLatency) => ({ submitLatency }))
    case "report_delay_ms":
      return Either.map(millis(name, text), (reportDelay) => ({ reportDelay }))
    case "retain_ms":
      return Either.map(millis(name, text), (retain) => ({ retain }))
    case "max_per_second": {
      const rate = Number(text)
      return text.trim() !== "" && Number.isFinite(rate) && rate > 0
        ? Either.right({ maxPerSecond: rate })
        : Either.left("max_per_second must be a number of submissions a second above 0")
    }
    case "journal_path":
      return text === "" ? Either.left("journal_path must name a file") : Either.right({ journalPath: text })
  }
}

/**
 * Reads `url` (`simulated:`, with settings as query parameters) into the mock's options, only
 * those it names; a problem is answered as one phrase naming it ("has an unknown parameter rate").
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (url: string): Either.Either<Options, string> => {
  const text = url.trim()
  if (!text.startsWith(scheme)) return Either.left(`must start ${scheme}`)
  const rest = text.slice(scheme.length)
  if (rest !== "" && !rest.startsWith("?")) return Either.left(`takes only query parameters after ${scheme}`)
  let options: Options = {}
  for (const [name, value] of new URLSearchParams(rest.slice(1))) {
    if (!(parameters as ReadonlyArray<string>).includes(name)) {
      return Either.left(`has an unknown parameter ${name} (known: ${parameters.join(", ")})`)
    }
    const read = option(name as (typeof parameters)[number], value)
    if (Either.isLeft(read)) return read
    options = { ...options, ...read.right }
  }
  return Either.right(options)
}
