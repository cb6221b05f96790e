/**
 * Checks of the text fields a request carries, shared by the use cases that take them, and the
 * one rule of the characters free text may hold: no control character (C0, DEL, C1: CR, LF, BEL,
 * tab…), no bidi control (embeddings, overrides, isolates, marks) and no zero-width character.
 * Such text is read elsewhere, by a person (an e-mail, an operator's screen, a log), where these
 * characters break lines, add header fields or show one thing while holding another.
 */
import { invalidParameter, type InvalidRequest, rule, type RuleCode, type RuleViolation } from "@sendline/api/Errors"
import { Effect, Either } from "effect"

/** The characters of `text` as code points: a surrogate pair is one, a lone surrogate too. */
export const codePoints = (text: string): number => {
  let n = 0
  for (const _ of text) n++
  return n
}

/** Whether `text` has a lone surrogate, which no UTF-8 (and so no store, no phone) can carry. */
export const loneSurrogate = /\p{Surrogate}/u

/** `field` refused for a lone surrogate. */
export const notWellFormed = (field: string): InvalidRequest =>
  invalidParameter(field, `${field} must be well-formed Unicode: it has half of a surrogate pair.`)

/** Controls, C0 (CR, LF, BEL, tab…), DEL and C1 (NEL…), and the line and paragraph separators. */
const breakingClass = "\\p{Cc}\\u2028\\u2029"
/** Bidi embeddings, overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C). */
const bidiClass = "\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c"
/** Zero-width characters (U+200B–U+200D, U+2060, U+FEFF). */
const zeroWidthClass = "\\u200b-\\u200d\\u2060\\ufeff"

const breaking = new RegExp(`[${breakingClass}]`, "gu")
const bidi = new RegExp(`[${bidiClass}]`, "u")
const zeroWidth = new RegExp(`[${zeroWidthClass}]`, "u")
const invisible = new RegExp(`[${bidiClass}${zeroWidthClass}]`, "gu")
const refused = new RegExp(`[${breakingClass}${bidiClass}${zeroWidthClass}]`, "u")

/** A character free text may not hold: its code point (`U+202E`) and what it is. */
export interface UnsafeCharacter {
  readonly codePoint: string
  readonly kind: "a control character" | "a bidi control" | "a zero-width character"
}

/** The first character of `text` that free text may not hold, if any. */
export const unsafeCharacter = (text: string): UnsafeCharacter | undefined => {
  const found = refused.exec(text)?.[0]
  if (found === undefined) return undefined
  const codePoint = `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`
  return {
    codePoint,
    kind: bidi.test(found)
      ? "a bidi control"
      : zeroWidth.test(found)
      ? "a zero-width character"
      : "a control character"
  }
}

/**
 * `text` when it holds no character free text may not (`unsafeCharacter`), else `code` naming
 * `field` and the character: the one check of every field that takes free text.
 */
export const checkCharacters = (field: string, text: string, code: RuleCode): Either.Either<string, RuleViolation> => {
  const found = unsafeCharacter(text)
  return found === undefined ? Either.right(text) : Either.left(rule(
    code,
    field,
    `${field} holds ${found.kind} (${found.codePoint}); control, bidi and zero-width characters are not accepted.`
  ))
}

/**
 * `text` when it is not blank (400), at most `max` UTF-16 units long (400), and holds no control,
 * bidi or zero-width character (422 `invalid_characters`), each naming `field`.
 */
export const requiredText = (
  field: string,
  text: string,
  max: number
): Effect.Effect<string, InvalidRequest | RuleViolation> =>
  text.trim() === ""
    ? Effect.fail(invalidParameter(field, `${field} must not be blank.`))
    : text.length > max
    ? Effect.fail(invalidParameter(field, `${field} must be at most ${max} characters.`))
    : checkCharacters(field, text, "invalid_characters")

/**
 * `text` on one line, for a mail's header or a line of its body quoting what someone else wrote:
 * each control character and line separator a space, bidi and zero-width characters removed.
 */
export const oneLine = (text: string): string => text.replace(breaking, " ").replace(invisible, "")
