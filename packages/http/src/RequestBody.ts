/**
 * What a request body may be (CONTRACT §1): JSON in UTF-8 (RFC 8259), at most 64 KiB, and nested no
 * deeper than the decoder can walk safely; and what a body that is not is told.
 *
 * @since 0.1.0
 */
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

/** Whether the JSON `text` nests arrays and objects deeper than `max` (brackets in strings don't count). @since 0.1.0 @category checks */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
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

/** 400 for a body that is not UTF-8. @since 0.1.0 @category refusals */
export const notUtf8: ApiError = {
  status: 400,
  code: "invalid_request",
  message: "The request body is not valid UTF-8."
}

/** 400 for a body nested deeper than `maxDepth`. @since 0.1.0 @category refusals */
export const tooDeep: ApiError = {
  status: 400,
  code: "invalid_request",
  message: `The request body nests arrays and objects more than ${maxDepth} deep.`
}
