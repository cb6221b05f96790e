/**
 * Checks of the text fields a request carries, shared by the use cases that take them.
 */
import { Effect } from "effect"
import { type InvalidRequest, invalidParameter } from "../Errors.js"

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

/** `text` when it is not blank and at most `max` UTF-16 units long, else `invalid_parameter` on `field`. */
export const requiredText = (field: string, text: string, max: number): Effect.Effect<string, InvalidRequest> =>
  text.trim() === ""
    ? Effect.fail(invalidParameter(field, `${field} must not be blank.`))
    : text.length > max
    ? Effect.fail(invalidParameter(field, `${field} must be at most ${max} characters.`))
    : Effect.succeed(text)
