/**
 * The documented request fields: each a plain `Schema.String` (or the schema it replaces) whose
 * description, pattern or format and example go only into the OpenAPI document, through a
 * `jsonSchema` annotation. Decoding, and so every error code and message, stays as it was: the
 * rules themselves are core's (the pattern states the same rule core checks, or a looser one).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** What the document says of one field. */
interface Documentation {
  readonly description: string
  readonly examples?: ReadonlyArray<string>
  readonly pattern?: string
  readonly format?: string
  readonly maxLength?: number
}

/** A string field documented as `doc` says; it decodes as `Schema.String` does. @since 0.1.0 @category fields */
export const text = (doc: Documentation) => Schema.String.annotations({ jsonSchema: doc })

/** The lowercase Crockford base32 of an id's 26-character ULID (CONTRACT §1, core's `Ids`). */
const ulid = "[0-9a-hjkmnp-tv-z]{26}"

/** An id of `prefix` (`msg`, `brand`, …), documented with its pattern. @since 0.1.0 @category fields */
export const id = (prefix: string, what: string) =>
  text({
    description: `The ${what}'s id.`,
    pattern: `^${prefix}_${ulid}$`,
    examples: [`${prefix}_01m810vyc01pfjhmv720etbcd0`]
  })

/** A path's `{id}` of `prefix`. @since 0.1.0 @category fields */
export const PathId = (prefix: string, what: string) => Schema.Struct({ id: id(prefix, what) })

/** A phone number in E.164 (core's `Phone` rule). @since 0.1.0 @category fields */
export const phone = (description: string) =>
  text({ description, pattern: "^\\+[1-9][0-9]{1,14}$", examples: ["+61412345678"] })

/** A market: an ISO 3166-1 alpha-2 country code. @since 0.1.0 @category fields */
export const market = (description: string) =>
  text({ description: `${description} An ISO 3166-1 alpha-2 country code.`, pattern: "^[A-Z]{2}$", examples: ["AU"] })

/** A Sender ID: 1–11 letters, digits and spaces (core's `SenderId` format). @since 0.1.0 @category fields */
export const senderId = (description: string) =>
  text({
    description: `${description} 1–11 letters, digits and spaces, with at least one letter.`,
    pattern: "^(?=[A-Za-z0-9 ]*[A-Za-z])[A-Za-z0-9](?:[A-Za-z0-9 ]{0,9}[A-Za-z0-9])?$",
    examples: ["Acme"]
  })

/** An absolute URL. @since 0.1.0 @category fields */
export const url = (description: string, example: string) => text({ description, format: "uri", examples: [example] })

/** An RFC 3339 date-time. @since 0.1.0 @category fields */
export const dateTime = (description: string) =>
  text({
    description: `${description} An RFC 3339 date-time.`,
    format: "date-time",
    examples: ["2026-11-22T07:00:00.000+00:00"]
  })

/** A list's `cursor` query parameter. @since 0.1.0 @category fields */
export const cursor = text({
  description: "The next_cursor of the previous page; opaque, and bound to the filters it was made with.",
  pattern: "^cur_[A-Za-z0-9_-]+$",
  examples: ["cur_eyJ0IjoxNzk1MzMyNDAwMDAwLCJpZCI6Im1zZ18wMSJ9"]
})
