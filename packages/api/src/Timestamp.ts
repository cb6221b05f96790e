/**
 * Timestamps of CONTRACT §1: epoch milliseconds inside, RFC 3339 with `+00:00` and milliseconds out.
 *
 * @since 0.1.0
 */
import { Option, ParseResult, Schema } from "effect"

const pad2 = (n: number) => (n < 10 ? "0" + n : String(n))
const pad3 = (n: number) => (n < 10 ? "00" + n : n < 100 ? "0" + n : String(n))

/** Formats epoch milliseconds as `2026-11-22T07:00:00.000+00:00`. @since 0.1.0 @category formatting */
export const format = (millis: number): string => {
  const d = new Date(millis)
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${
    pad2(d.getUTCMinutes())
  }:${pad2(d.getUTCSeconds())}.${pad3(d.getUTCMilliseconds())}+00:00`
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
const plainDate = /^(\d{4})-(\d{2})-(\d{2})$/

const validDate = (y: number, m: number, d: number) => {
  const t = Date.UTC(y, m - 1, d)
  const date = new Date(t)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

// Epoch milliseconds of an RFC 3339 date-time; digits past the millisecond are dropped, or, with
// `roundUp`, count as one more millisecond when any is not zero.
const parseMillis = (input: string, roundUp: boolean): Option.Option<number> => {
  const m = rfc3339.exec(input)
  if (m === null) return Option.none()
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || s > 60) return Option.none()
  const digits = m[7] === undefined ? "" : m[7].slice(1)
  const fraction = Number(digits.slice(0, 3).padEnd(3, "0")) + (roundUp && /[1-9]/.test(digits.slice(3)) ? 1 : 0)
  const zone = m[8]!
  let offset = 0
  if (zone !== "Z" && zone !== "z") {
    const oh = Number(zone.slice(1, 3))
    const om = Number(zone.slice(4, 6))
    if (oh > 23 || om > 59) return Option.none()
    offset = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000
  }
  return Option.some(Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), fraction) - offset)
}

/** Parses any RFC 3339 date-time (`Z` or `±hh:mm`) to epoch milliseconds, dropping finer digits. @since 0.1.0 @category parsing */
export const parse = (input: string): Option.Option<number> => parseMillis(input, false)

/**
 * Parses a date filter, both ends inclusive over millisecond timestamps: an RFC 3339 date-time (a
 * start past a whole millisecond begins at the next one), or a plain `YYYY-MM-DD` meaning the
 * start of that UTC day (or, with `endOfDay`, its last millisecond).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseDateFilter = (input: string, endOfDay: boolean): Option.Option<number> => {
  const m = plainDate.exec(input)
  if (m === null) return parseMillis(input, !endOfDay)
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (!validDate(y, mo, d)) return Option.none()
  const start = Date.UTC(y, mo - 1, d)
  return Option.some(endOfDay ? start + 86_400_000 - 1 : start)
}

/**
 * Parses an exclusive end filter (`submitted_before`: what came before it): an RFC 3339 date-time
 * (a time past a whole millisecond ends at the next one, so that nothing before it is left out),
 * or a plain `YYYY-MM-DD` meaning the end of that UTC day, that is the start of the next
 * (CONTRACT §1: a plain date in an end filter means the end of that day).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseBeforeFilter = (input: string): Option.Option<number> =>
  Option.map(parseDateFilter(input, false), (start) => plainDate.test(input) ? start + 86_400_000 : start)

/** An RFC 3339 date-time string decoded to epoch milliseconds (and encoded in the `+00:00` form). @since 0.1.0 @category schemas */
export const FromString = Schema.transformOrFail(
  Schema.String.annotations({ jsonSchema: { format: "date-time", examples: ["2026-11-22T07:00:00.000+00:00"] } }),
  Schema.Number,
  {
    strict: true,
    decode: (input, _, ast) =>
      Option.match(parse(input), {
        onNone: () => ParseResult.fail(new ParseResult.Type(ast, input, "Expected an RFC 3339 date-time")),
        onSome: ParseResult.succeed
      }),
    encode: (millis) => ParseResult.succeed(format(millis))
  }
).annotations({ identifier: "Timestamp", description: "RFC 3339 date-time" })

/** A timestamp out (CONTRACT §1): RFC 3339, `+00:00`, milliseconds. @since 0.1.0 @category schemas */
export const TimestampJson = Schema.String.annotations({
  jsonSchema: { format: "date-time" },
  examples: ["2026-11-22T07:00:00.000+00:00"]
})
