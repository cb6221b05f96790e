/**
 * The JSON of the opt-outs group (CONTRACT §12): an opt-out as every endpoint answers it, where it
 * came from, the request payload, the list query, what a deletion and an import answer.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { DateFilter, OneOf, PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { TimestampJson } from "../Timestamp.js"

/**
 * Where an opt-out came from: `api` (`POST /v1/opt-outs`) or `import` (a CSV import, by the API
 * or the CLI).
 *
 * @since 0.2.0
 * @category models
 */
export const OptOutSource = Schema.Literal("api", "import")
/** Where an opt-out came from. @since 0.2.0 @category models */
export type OptOutSource = typeof OptOutSource.Type

/** The longest `reason` an opt-out keeps, in characters (code points). @since 0.2.0 @category constants */
export const maxReasonLength = 255

/** The most invalid lines an import reports (the first ones); the rest are only not imported. @since 0.2.0 @category constants */
export const maxInvalidReported = 100

/** The largest CSV an import takes, 10 MiB (CONTRACT §12: an exception to the 64 KiB of JSON bodies). @since 0.2.0 @category constants */
export const maxImportBytes = 10 * 1024 * 1024

const phoneField = (description: string) =>
  Fields.text({
    description: `${description} E.164 (+, country code, number); spaces and dashes are ignored.`,
    examples: ["+61412345678"]
  })

/** Body of `POST /v1/opt-outs`: `phone` required, `reason` optional. @since 0.2.0 @category requests */
export const CreateOptOut = Schema.Struct({
  phone: phoneField("The number that must not receive the account's messages."),
  reason: Schema.optional(
    Fields.text({ description: "Why, as you record it (at most 255 characters).", examples: ["replied STOP"] })
  )
}).annotations({ identifier: "CreateOptOut", parseOptions: { errors: "all" } })

/** Query of `GET /v1/opt-outs`. @since 0.2.0 @category requests */
export const ListOptOutsQuery = Schema.Struct({
  phone: Schema.optional(phoneField("Only this number.")),
  source: Schema.optional(OneOf(OptOutSource)),
  from: Schema.optional(
    DateFilter(false).annotations({
      description: "Only opt-outs created at or after this time: RFC 3339, or YYYY-MM-DD (its start, UTC)."
    })
  ),
  to: Schema.optional(
    DateFilter(true).annotations({
      description: "Only opt-outs created at or before this time: RFC 3339, or YYYY-MM-DD (its end, UTC)."
    })
  ),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** The path of `GET|DELETE /v1/opt-outs/{phone}`: the number, URL-encoded (`%2B61412345678`). @since 0.2.0 @category requests */
export const OptOutPath = Schema.Struct({ phone: phoneField("The number, URL-encoded (%2B61412345678).") })

/** An opt-out as the API answers it. @since 0.2.0 @category schemas */
export const OptOutJson = Schema.Struct({
  phone: Schema.String,
  reason: Schema.NullOr(Schema.String),
  source: OptOutSource,
  created_at: TimestampJson
}).annotations({ identifier: "OptOut" })
/** An opt-out as JSON. @since 0.2.0 @category models */
export type OptOutJson = typeof OptOutJson.Encoded

/** What `DELETE /v1/opt-outs/{phone}` answers. @since 0.2.0 @category schemas */
export const OptOutDeleted = Schema.Struct({ phone: Schema.String, deleted: Schema.Literal(true) }).annotations({
  identifier: "OptOutDeleted"
})

/** A line of an import that holds no valid number: its number (from 1, every physical line counted) and its first column. @since 0.2.0 @category schemas */
export const InvalidLine = Schema.Struct({ line: Schema.Int, value: Schema.String }).annotations({
  identifier: "OptOutImportInvalidLine"
})

/** What `POST /v1/opt-outs/import` answers. @since 0.2.0 @category schemas */
export const OptOutImport = Schema.Struct({
  imported: Schema.Int.annotations({ description: "numbers added to the list" }),
  already_listed: Schema.Int.annotations({
    description: "numbers that were listed already, or repeated in the file"
  }),
  invalid: Schema.Array(InvalidLine).annotations({
    description: `the first ${maxInvalidReported} lines whose first column is not a valid number`
  })
}).annotations({ identifier: "OptOutImport" })
