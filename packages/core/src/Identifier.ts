/**
 * The legal identifiers of CONTRACT §5 and their checks: whether an `identifier_value` is one of
 * its `identifier_type`, and whether a market takes that type (CONTRACT §3). Plain functions, used
 * alike by the brand endpoints and by `Admin.createAccount` for a Brand Owner's identifiers.
 *
 * - ABN, Australian Business Number: 11 digits, the first two check digits (mod 89, ABR).
 * - ACN, Australian Company Number: 9 digits, the last the complement of a mod 10 sum (ASIC).
 * - NZBN, New Zealand Business Number: 13 digits, the last a GS1 check digit.
 * - UEN, Singapore Unique Entity Number: 8 digits and a check letter (businesses); 9 digits, the
 *   first four a year, and a check letter (local companies); R, S or T (18, 19, 20), two digits of
 *   the year, two letters of the entity type, 4 digits and a check letter (other entities).
 * - CRN, Companies House company number: 8 digits, or a Companies House prefix and 6 digits; it
 *   has no check digit, so only its form is checked.
 *
 * A value is normalised first: whitespace removed, letters upper-cased ("51 824 753 556" is
 * "51824753556", "sc 123456" is "SC123456"). The normalised value is the one stored and compared.
 * A degenerate value is refused after its check digits: one whose digits that number the entity
 * (check digits, letters and a UEN's year aside) are all zero, as ABN 10000000000 or ACN 000000000.
 * `docs/decisions.md` ("Legal identifiers") gives the sources of the algorithms and examples.
 *
 * @since 0.1.0
 */
import { rule, type RuleViolation } from "@sendline/api/Errors"
import { Either, Schema } from "effect"
import type { Market } from "./Markets.js"

/** The identifier types Sendline checks. @since 0.1.0 @category models */
export const IdentifierType = Schema.Literal("ABN", "ACN", "NZBN", "UEN", "CRN")
/** An identifier type Sendline checks. @since 0.1.0 @category models */
export type IdentifierType = typeof IdentifierType.Type

/** `value` without whitespace, its letters upper-cased: the form stored and compared. @since 0.1.0 @category checks */
export const normalise = (value: string): string => value.replace(/\s+/g, "").toUpperCase()

/** The digits of `value` (all digits) as numbers. */
const digitsOf = (value: string): ReadonlyArray<number> => Array.from(value, Number)

/** The sum of `values`, each times the weight in its place. */
const weightedSum = (values: ReadonlyArray<number>, weights: ReadonlyArray<number>): number =>
  weights.reduce((sum, weight, i) => sum + weight * values[i]!, 0)

/** ABR: one off the first digit, the digits weighted 10, 1, 3, 5 … 19: a multiple of 89. */
const abnChecks = (abn: string): boolean => {
  const [first = 0, ...rest] = digitsOf(abn)
  return first > 0 && weightedSum([first - 1, ...rest], [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]) % 89 === 0
}

/** ASIC: the first 8 digits weighted 8 to 1; the last digit is 10 less the sum's remainder mod 10 (10 is 0). */
const acnChecks = (acn: string): boolean => {
  const digits = digitsOf(acn)
  return (10 - weightedSum(digits, [8, 7, 6, 5, 4, 3, 2, 1]) % 10) % 10 === digits[8]
}

/** GS1: from the digit before the check digit leftwards, weights 3, 1, 3 …; the check digit makes a multiple of 10. */
const gs1Checks = (value: string): boolean => {
  const digits = digitsOf(value)
  const sum = digits.slice(0, -1).reverse().reduce((total, digit, i) => total + digit * (i % 2 === 0 ? 3 : 1), 0)
  return (10 - sum % 10) % 10 === digits[digits.length - 1]
}

const businessUen = /^\d{8}[A-Z]$/
const localCompanyUen = /^\d{9}[A-Z]$/
// The letters of the entity type are among those the check letter is computed over (no I, O, Y, Z:
// none of ACRA's entity types has them), so that a new entity type is accepted without a release.
const otherUen = /^[RST]\d{2}[A-HJ-NP-X]{2}\d{4}[A-Z]$/
/** The characters of an other entity's UEN, numbered for its check letter. */
const uenCharacters = "ABCDEFGHJKLMNPQRSTUVWX0123456789"

/** The check letter a UEN of one of the three forms ends with. */
const uenCheckLetter = (uen: string): string | undefined => {
  if (businessUen.test(uen)) {
    return "XMKECAWLJDB"[weightedSum(digitsOf(uen.slice(0, 8)), [10, 4, 9, 3, 8, 2, 7, 1]) % 11]
  }
  if (localCompanyUen.test(uen)) {
    return "ZKCMDNERGWH"[weightedSum(digitsOf(uen.slice(0, 9)), [10, 8, 6, 4, 9, 7, 5, 3, 1]) % 11]
  }
  const sum = weightedSum(Array.from(uen.slice(0, 9), (c) => uenCharacters.indexOf(c)), [4, 3, 5, 3, 10, 2, 2, 5, 7])
  return uenCharacters[(sum + 6) % 11] // (sum − 5) mod 11, never negative
}

/**
 * Companies House's prefixes: its URI customer guide's list (companies, LLPs, limited partnerships,
 * overseas, assurance, unregistered, EEIG and SE companies of each jurisdiction; industrial and
 * provident societies, ICVCs, royal charters), with CE and CS (charitable incorporated
 * organisations), SG (Scottish qualifying partnerships) and OE (overseas entities, since 2022).
 */
const crnPrefixes = [
  "AC",
  "CE",
  "CS",
  "EN",
  "ES",
  "FC",
  "GE",
  "GN",
  "GS",
  "IC",
  "IP",
  "LP",
  "NA",
  "NC",
  "NF",
  "NI",
  "NL",
  "NO",
  "NP",
  "NR",
  "NV",
  "NZ",
  "OC",
  "OE",
  "R0",
  "RC",
  "SA",
  "SC",
  "SE",
  "SF",
  "SG",
  "SI",
  "SL",
  "SO",
  "SP",
  "SR",
  "SZ",
  "ZC"
]
const crn = new RegExp(`^(?:\\d{8}|(?:${crnPrefixes.join("|")})\\d{6})$`)

/** Whether `digits` are all zero. */
const allZero = (digits: string): boolean => /^0+$/.test(digits)

/** The digits of a UEN that number its entity: a business's 8, a local company's 5 after its year, another entity's last 4. */
const uenSerial = (uen: string): string =>
  businessUen.test(uen) ? uen.slice(0, 8) : localCompanyUen.test(uen) ? uen.slice(4, 9) : uen.slice(5, 9)

/** How a type is checked: its form (on the normalised value), and its check digits or letter if it has any. */
interface Rule {
  /** The form, as a sentence for the message. */
  readonly form: string
  readonly hasForm: (value: string) => boolean
  /**
   * Whether a value of the form is degenerate: the digits that number the entity (check digits,
   * letters and years aside) all zero, which passes a weighted-sum check and numbers no entity.
   */
  readonly degenerate: (value: string) => boolean
  readonly check?: {
    readonly name: "check digits" | "check digit" | "check letter"
    readonly passes: (value: string) => boolean
  }
}

const rules: { readonly [T in IdentifierType]: Rule } = {
  ABN: {
    form: "An ABN is 11 digits",
    hasForm: (v) => /^\d{11}$/.test(v),
    degenerate: (v) => allZero(v.slice(2)),
    check: { name: "check digits", passes: abnChecks }
  },
  ACN: {
    form: "An ACN is 9 digits",
    hasForm: (v) => /^\d{9}$/.test(v),
    degenerate: (v) => allZero(v.slice(0, 8)),
    check: { name: "check digit", passes: acnChecks }
  },
  NZBN: {
    form: "An NZBN is 13 digits",
    hasForm: (v) => /^\d{13}$/.test(v),
    degenerate: (v) => allZero(v.slice(0, 12)),
    check: { name: "check digit", passes: gs1Checks }
  },
  UEN: {
    form: "A UEN is 8 or 9 digits and a letter, or R, S or T, 2 digits, 2 letters, 4 digits and a letter",
    hasForm: (v) => businessUen.test(v) || localCompanyUen.test(v) || otherUen.test(v),
    degenerate: (v) => allZero(uenSerial(v)),
    check: { name: "check letter", passes: (v) => uenCheckLetter(v) === v[v.length - 1] }
  },
  CRN: {
    form: "A CRN is 8 digits, or a Companies House prefix (SC, NI, OC, LP …) and 6 digits",
    hasForm: (v) => crn.test(v),
    degenerate: (v) => allZero(v.slice(2))
  }
}

const isIdentifierType = Schema.is(IdentifierType)

/**
 * The normalised `value` when it is an identifier of `type` (its form, and its check digits or
 * letter where the type has them); otherwise `invalid_identifier`, naming `identifier_type` (a type
 * Sendline does not know) or `identifier_value`.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (type: string, value: string): Either.Either<string, RuleViolation> => {
  if (!isIdentifierType(type)) {
    return Either.left(rule(
      "invalid_identifier",
      "identifier_type",
      `Unknown identifier type ${type}: Sendline checks ${IdentifierType.literals.join(", ")}.`
    ))
  }
  const { check: digits, degenerate, form, hasForm } = rules[type]
  const normalised = normalise(value)
  if (!hasForm(normalised)) {
    return Either.left(rule("invalid_identifier", "identifier_value", `${form} (spaces are ignored).`))
  }
  if (digits !== undefined && !digits.passes(normalised)) {
    return Either.left(
      rule("invalid_identifier", "identifier_value", `${type} ${normalised} fails its ${digits.name}.`)
    )
  }
  if (degenerate(normalised)) {
    return Either.left(rule(
      "invalid_identifier",
      "identifier_value",
      `${type} ${normalised} is not one a registry issues: the digits that number the entity are all zero.`
    ))
  }
  return Either.right(normalised)
}

/** Whether brands of `market` may use identifiers of `type`: the market's configured `identifierTypes`. @since 0.1.0 @category checks */
export const allowedIn = (market: Market, type: string): boolean => market.identifierTypes.includes(type)

/**
 * `check` for a brand of `market`: first that `market` takes `type` (else `invalid_identifier`
 * naming `identifier_type` and the types it takes), then the value.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkIn = (market: Market, type: string, value: string): Either.Either<string, RuleViolation> =>
  allowedIn(market, type)
    ? check(type, value)
    : Either.left(rule(
      "invalid_identifier",
      "identifier_type",
      `${market.code} does not take ${type} identifiers: it takes ${market.identifierTypes.join(", ")}.`
    ))
