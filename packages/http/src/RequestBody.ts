/**
 * What a request body may be (CONTRACT §1): JSON in UTF-8 (RFC 8259), at most 64 KiB, nested no
 * deeper than the decoder can walk safely, its strings well-formed; what a body that is not is
 * told; and the request that reads and checks its body once, when the authentication asks (after
 * the key and its permission) or the route decodes it.
 *
 * @since 0.1.0
 */
import { HttpIncomingMessage, HttpServerError, type HttpServerRequest } from "@effect/platform"
import { Effect, type Exit, Option } from "effect"
import type { ApiError } from "./ErrorResponse.js"

/** The largest request body accepted, 64 KiB. @since 0.1.0 @category constants */
export const maxBytes = 64 * 1024

/** The deepest nesting of arrays and objects a body may have; deeper is refused before decoding. @since 0.1.0 @category constants */
export const maxDepth = 32

const jsonType = /^application\/json\s*(?:;|$)/i

/** Whether a `Content-Type` is JSON (`application/json`, with or without parameters). @since 0.1.0 @category checks */
export const isJsonType = (contentType: string): boolean => jsonType.test(contentType)

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The text of `bytes` if they are well-formed UTF-8 (a byte order mark is dropped), else
 * `undefined`: a body is never read with replacement characters, which would reach a phone.
 *
 * @since 0.1.0
 * @category checks
 */
export const decodeUtf8 = (bytes: ArrayBuffer): string | undefined => {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** The UTF-16 unit of the four hex digits at `at`, or NaN. */
const hexUnit = (text: string, at: number): number => Number("0x" + text.slice(at, at + 4))

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * What is wrong with the JSON `text` before it is parsed, if anything a parser would let through:
 * arrays and objects nested deeper than `maxDepth` (the decoder walks them recursively), or a string
 * escaping half of a surrogate pair (`"\ud83d"`), which no UTF-8 can carry and would be stored as
 * replacement characters. Syntax is left to the parser.
 *
 * @since 0.1.0
 * @category checks
 */
export const problemOf = (text: string): ApiError | undefined => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x22) inString = false
      else if (c === 0x5c) {
        if (text.charCodeAt(i + 1) !== 0x75) i++ // an escape other than \u: skip its character
        else {
          const unit = hexUnit(text, i + 2)
          if (isHigh(unit)) {
            const escapesLow = text.charCodeAt(i + 6) === 0x5c && text.charCodeAt(i + 7) === 0x75 && isLow(hexUnit(text, i + 8))
            if (!escapesLow) return loneSurrogate
            i += 11
          } else if (isLow(unit)) return loneSurrogate
          else i += 5
        }
      }
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return tooDeep
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return undefined
}

/** 413 for a body over `maxBytes`. @since 0.1.0 @category refusals */
export const tooLarge: ApiError = {
  status: 413,
  code: "payload_too_large",
  message: `The request body exceeds ${maxBytes / 1024} KiB.`
}

/** 415 for a body that is not JSON. @since 0.1.0 @category refusals */
export const notJson: ApiError = {
  status: 415,
  code: "unsupported_media_type",
  message: "Request bodies must be JSON, sent with Content-Type: application/json."
}

/** A 400 `invalid_request` saying `message`. */
const invalidRequest = (message: string): ApiError => ({ status: 400, code: "invalid_request", message })

/** 400 for a body that is not UTF-8. @since 0.1.0 @category refusals */
export const notUtf8: ApiError = invalidRequest("The request body is not valid UTF-8.")

/** 400 for a body that does not parse as JSON. @since 0.1.0 @category refusals */
export const malformed: ApiError = invalidRequest("The request body is not valid JSON.")

/** 400 for a string escaping half of a surrogate pair. @since 0.1.0 @category refusals */
export const loneSurrogate: ApiError = invalidRequest("The request body escapes half of a surrogate pair (e.g. \\ud83d alone); strings must be well-formed Unicode.")

/** 400 for a body nested deeper than `maxDepth`. @since 0.1.0 @category refusals */
export const tooDeep: ApiError = invalidRequest(`The request body nests arrays and objects more than ${maxDepth} deep.`)

/** A body read and checked: its text, parsed once as JSON; or why it is refused. */
type Verdict = { readonly text: string; readonly json: unknown } | ApiError

/** The verdict on `bytes`: strict UTF-8, then `problemOf`, then JSON syntax. */
const verdictOn = (bytes: ArrayBuffer): Verdict => {
  const text = decodeUtf8(bytes)
  if (text === undefined) return notUtf8
  const problem = problemOf(text)
  if (problem !== undefined) return problem
  try {
    return { text, json: JSON.parse(text) }
  } catch {
    return malformed
  }
}

const verdict = Symbol.for("@sendline/http/RequestBody/verdict")

/**
 * `request`, its body read and checked once, when first needed: by `refusalOf` once the key and
 * its permission pass, or by the route's decoding. Until then nothing is read, so a request refused
 * for its key never has its body buffered. A body without `Content-Length` is read up to 16 times
 * `maxBytes` (past that the connection is dropped) and refused over `maxBytes`, as too large. The
 * checked body reads as its `text`, parsed once as `json`; a refused one fails to read.
 *
 * @since 0.1.0
 * @category requests
 */
export const checkedOnRead = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  const chunked = request.headers["content-length"] === undefined
  const read = Effect.flatMap(request.arrayBuffer, (bytes) =>
    chunked && bytes.byteLength > maxBytes
      ? Effect.fail(new HttpServerError.RequestError({ request, reason: "Decode", description: tooLarge.message }))
      : Effect.succeed(verdictOn(bytes)))
  const bounded = chunked ? HttpIncomingMessage.withMaxBodySize(read, Option.some(16 * maxBytes)) : read
  // Read at most once. Its readers take turns (the authentication, then the route's decoding), so a
  // plain memo of the outcome does: `Effect.cached` cost ~15 µs a request.
  let outcome: Exit.Exit<Verdict, HttpServerError.RequestError> | undefined
  const once = Effect.suspend(() =>
    outcome ?? Effect.onExit(bounded, (exit) => Effect.sync(() => void (outcome = exit)))
  )
  const body = Effect.flatMap(once, (checked) =>
    "text" in checked
      ? Effect.succeed(checked)
      : Effect.fail(new HttpServerError.RequestError({ request, reason: "Decode", description: checked.message })))
  return Object.create(request, {
    text: { value: Effect.map(body, (checked) => checked.text) },
    json: { value: Effect.map(body, (checked) => checked.json) },
    [verdict]: { value: once }
  })
}

/**
 * Why the body of a `checkedOnRead` request is refused, if it is, reading it now if nothing has. A
 * body that could not be read (too large without `Content-Length`, cut off) is a defect, which the
 * envelope maps (`ErrorResponse`).
 *
 * @since 0.1.0
 * @category requests
 */
export const refusalOf = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<ApiError | undefined> => {
  const once = (request as unknown as { readonly [verdict]?: Effect.Effect<Verdict, HttpServerError.RequestError> })[verdict]
  if (once === undefined) return Effect.succeed(undefined)
  return Effect.orDie(Effect.map(once, (checked) => ("text" in checked ? undefined : checked)))
}
