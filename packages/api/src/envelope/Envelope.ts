/**
 * CONTRACT §1's envelopes: their schemas (for the OpenAPI document and typed clients), paging and
 * the query parameters every list shares.
 *
 * @since 0.1.0
 */
import { Option, ParseResult, Schema } from "effect"
import * as Errors from "../Errors.js"
import * as Timestamp from "../Timestamp.js"
import * as Fields from "./Fields.js"

/** Default and largest page sizes (CONTRACT §1). @since 0.1.0 @category constants */
export const pageSizes = { default: 50, max: 100 } as const

/** `meta` of every envelope. @since 0.1.0 @category schemas */
export const Meta = Schema.Struct({ request_id: Schema.String, timestamp: Timestamp.TimestampJson })

/** `pagination` of a list envelope. @since 0.1.0 @category schemas */
export const Pagination = Schema.Struct({
  has_more: Schema.Boolean,
  next_cursor: Schema.NullOr(Schema.String),
  page_size: Schema.Int
})

// Digits only (no sign, exponent, hex or spaces), as many as sent: core's `Pagination` clamps.
const pageSizeMessage = () => ({ message: "Expected an integer of at least 1", override: true })

/** The `page_size` query parameter of every list (CONTRACT §1). @since 0.1.0 @category schemas */
export const PageSize = Schema.String.pipe(Schema.pattern(/^[0-9]+$/)).annotations({
  description: `results per page, default ${pageSizes.default}; above ${pageSizes.max} is clamped to ${pageSizes.max}`,
  message: pageSizeMessage
}).pipe(
  Schema.compose(Schema.NumberFromString),
  Schema.greaterThanOrEqualTo(1, { message: pageSizeMessage })
)

/** The query of a list that takes only paging: `cursor` and `page_size`. @since 0.1.0 @category schemas */
export const PagingQuery = Schema.Struct({
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** How the document shows a date filter: either form of CONTRACT §1. */
const dateFilterDocs = {
  anyOf: [{ format: "date-time" }, { format: "date" }],
  examples: ["2026-11-22", "2026-11-22T07:00:00Z"]
}

/** A date filter read by `parse`, documented as either form of CONTRACT §1. */
const dateFilterOf = (parse: (input: string) => Option.Option<number>) =>
  Schema.transformOrFail(Schema.String.annotations({ jsonSchema: dateFilterDocs }), Schema.Number, {
    strict: true,
    decode: (input, _, ast) =>
      Option.match(parse(input), {
        onNone: () =>
          ParseResult.fail(new ParseResult.Type(ast, input, "Expected an RFC 3339 date-time or a YYYY-MM-DD date")),
        onSome: ParseResult.succeed
      }),
    encode: (millis) => ParseResult.succeed(Timestamp.format(millis))
  })

/**
 * A date filter of a list's query, decoded to epoch milliseconds (CONTRACT §1): an RFC 3339
 * date-time, or a plain `YYYY-MM-DD` meaning the first millisecond of that UTC day (or, with
 * `endOfDay`, its last: for an inclusive end such as `to`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DateFilter = (endOfDay: boolean) => dateFilterOf((input) => Timestamp.parseDateFilter(input, endOfDay))

/**
 * An exclusive end filter of a list's query (`submitted_before`), decoded to epoch milliseconds
 * (`Timestamp.parseBeforeFilter`): a plain `YYYY-MM-DD` means the end of that UTC day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BeforeFilter = dateFilterOf(Timestamp.parseBeforeFilter)

/**
 * A query filter of one of `schema`'s literals, whose refusal names them all ("Expected one of
 * queued, sent, …") rather than the first alone.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OneOf = <L extends readonly [string, ...Array<string>]>(schema: Schema.Literal<L>) =>
  schema.annotations({ message: () => ({ message: `Expected one of ${schema.literals.join(", ")}`, override: true }) })

/** The success envelope around one resource. @since 0.1.0 @category schemas */
export const Envelope = <S extends Schema.Schema.Any>(data: S) =>
  Schema.Struct({ ok: Schema.Literal(true), data, meta: Meta })

/** The success envelope around a page of resources. @since 0.1.0 @category schemas */
export const ListEnvelope = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ ok: Schema.Literal(true), data: Schema.Array(item), pagination: Pagination, meta: Meta })

/** The error envelope with `error.code` one of `code`'s values. @since 0.1.0 @category schemas */
export const errorEnvelope = <Code extends string>(code: Schema.Schema<Code>) =>
  Schema.Struct({
    ok: Schema.Literal(false),
    error: Schema.Struct({
      code,
      message: Schema.String,
      field: Schema.optional(Schema.String),
      details: Schema.optional(Schema.Array(Errors.FieldIssue))
    }),
    meta: Meta
  })

/** The error envelope, any code. @since 0.1.0 @category schemas */
export const ErrorEnvelope = errorEnvelope(Schema.String).annotations({ identifier: "Error" })
