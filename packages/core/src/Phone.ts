/**
 * Recipient checks of CONTRACT §3 with libphonenumber-js: E.164, valid for its numbering plan, a
 * mobile number where the metadata can tell, and in the market. The E.164 part alone is the check
 * of a brand contact's phone (CONTRACT §5, `brands/Contact`).
 *
 * @since 0.1.0
 */
import { parsePhoneNumberFromString } from "libphonenumber-js/max"

/** Why a recipient is refused, as a CONTRACT §3 code. @since 0.1.0 @category models */
export type PhoneProblem = "invalid_phone_number" | "not_a_mobile_number" | "phone_market_mismatch"

const e164 = /^\+[1-9]\d{1,14}$/

/** `number` parsed, when it is written in the canonical E.164 form: `+610412345678` (trunk prefix kept) parses, but is not it. */
const parseCanonical = (number: string) => {
  if (!e164.test(number)) return undefined
  const phone = parsePhoneNumberFromString(number)
  return phone?.number === number ? phone : undefined
}

/** `number` parsed, when it is E.164 exactly as written and valid for its numbering plan. */
const parseE164 = (number: string) => {
  const phone = parseCanonical(number)
  return phone?.isValid() ? phone : undefined
}

/** Whether `number` is E.164, exactly as written, and valid for its numbering plan (any country, any kind of line). @since 0.1.0 @category checks */
export const isE164 = (number: string): boolean => parseE164(number) !== undefined

/** What `normalise` takes away from a number as written: spaces, dashes, dots and brackets. */
const separators = /[\s\-.()]/g

/**
 * `number` in E.164 when, once its spaces, dashes, dots and brackets are taken away, it is E.164
 * and valid for its numbering plan as `isE164` checks a recipient: `+61 412 345 678` and
 * `+61412345678` are both `+61412345678`; else `undefined`.
 *
 * @since 0.2.0
 * @category checks
 */
export const normalise = (number: string): string | undefined => {
  if (number.length > 64) return undefined
  const compact = number.replace(separators, "")
  return parseE164(compact) === undefined ? undefined : compact
}

/** Checks `to` for sending in `market`; `undefined` when it passes. @since 0.1.0 @category checks */
export const check = (to: string, market: string): PhoneProblem | undefined => {
  const phone = parseCanonical(to)
  // With the full metadata a number is valid exactly when it has a type (libphonenumber's
  // `isValid` is `getType() !== undefined` there): one match of the plan's patterns, not two.
  const type = phone?.getType()
  if (phone === undefined || type === undefined) return "invalid_phone_number"
  if (type !== "MOBILE" && type !== "FIXED_LINE_OR_MOBILE") return "not_a_mobile_number"
  if (phone.country !== market) return "phone_market_mismatch"
  return undefined
}

/** The country whose numbering plan `to` belongs to, when the metadata knows it (e.g. `GG` for +447911…). @since 0.1.0 @category checks */
export const countryOf = (to: string): string | undefined => parsePhoneNumberFromString(to)?.country
