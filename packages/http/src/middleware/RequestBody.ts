/**
 * What a request body may be (CONTRACT §1): JSON in UTF-8 (RFC 8259), at most 64 KiB (a batch 1 MiB, §13), nested no
 * deeper than the decoder can walk safely, its strings well-formed; what a body that is not is
 * told; and the body read and checked once (`read`, run by `CheckBody` after the key and its
 * permission pass), provided as `CheckedBody`, which the routes see as the request's JSON
 * (`withCheckedBody`): HttpApi decodes each endpoint's declared payload from it.
 *
 * @since 0.1.0
 */
import { Headers, HttpIncomingMessage, type HttpServerError, HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { maxBatchBytes } from "@sendline/api/messaging/BatchesJson"
import { type Checked, CheckedBody } from "@sendline/api/middleware/Pipeline"
import { maxImportBytes } from "@sendline/api/optOuts/OptOutsJson"
import { Errors } from "@sendline/core"
import { Effect, Option, Stream } from "effect"
import { IncomingMessage } from "node:http"
import { Refusal } from "../envelope/ApiError.js"
import * as ExpectContinue from "./ExpectContinue.js"

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
export const decodeUtf8 = (bytes: ArrayBuffer | Uint8Array): string | undefined => {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** 413 for a body over `maxBytes`. @since 0.1.0 @category refusals */
export const tooLarge = new Refusal({
  code: "payload_too_large",
  message: `The request body exceeds ${maxBytes / 1024} KiB.`
})

/**
 * The route whose JSON body may be larger: CONTRACT §13's batch, up to `maxBatchBytes` (1 MiB),
 * the other exception to §1's 64 KiB.
 *
 * @since 0.3.0
 * @category checks
 */
export const isBatchRoute = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.method === "POST" && request.url.split("?")[0] === "/v1/messaging/batches"

/** 413 for a batch over `maxBatchBytes`. @since 0.3.0 @category refusals */
export const batchTooLarge = new Refusal({
  code: "payload_too_large",
  message: `A batch's request body exceeds ${maxBatchBytes / 1024 / 1024} MiB.`
})

/** The largest JSON body `request`'s route accepts, and the refusal of a larger one. @since 0.3.0 @category checks */
export const limitOf = (
  request: HttpServerRequest.HttpServerRequest
): { readonly bytes: number; readonly refusal: Refusal } =>
  isBatchRoute(request) ? { bytes: maxBatchBytes, refusal: batchTooLarge } : { bytes: maxBytes, refusal: tooLarge }

/** 415 for a body that is not JSON. @since 0.1.0 @category refusals */
export const notJson = new Refusal({
  code: "unsupported_media_type",
  message: "Request bodies must be JSON, sent with Content-Type: application/json."
})

/** A 400 `invalid_request` for a body, saying `message`. */
const invalid = (message: string) => new Errors.InvalidRequest({ code: "invalid_request", message })

/**
 * The routes whose body is CSV, read as it streams by their handler (`csvStream`), not by
 * `CheckBody`: CONTRACT §12's import, with its own limit (`maxCsvBytes`) and type (`text/csv`).
 *
 * @since 0.2.0
 * @category checks
 */
export const isCsvRoute = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.method === "POST" && request.url.split("?")[0] === "/v1/opt-outs/import"

/** The largest CSV body accepted, 10 MiB (CONTRACT §12). @since 0.2.0 @category constants */
export const maxCsvBytes = maxImportBytes

const csvType = /^text\/csv\s*(?:;|$)/i

/** Whether a `Content-Type` is CSV (`text/csv`, with or without parameters). @since 0.2.0 @category checks */
export const isCsvType = (contentType: string): boolean => csvType.test(contentType)

/** 413 for a CSV body over `maxCsvBytes`. @since 0.2.0 @category refusals */
export const csvTooLarge = new Refusal({
  code: "payload_too_large",
  message: `The CSV file exceeds ${maxCsvBytes / 1024 / 1024} MiB.`
})

/** 415 for an import whose body is not CSV. @since 0.2.0 @category refusals */
export const notCsv = new Refusal({
  code: "unsupported_media_type",
  message: "An import's body must be CSV, sent with Content-Type: text/csv."
})

/**
 * What the request line and headers alone refuse of a CSV route, before its key is checked: a body
 * said to be too large. Its type is checked with the body (`read`), once the key and its
 * permission passed.
 *
 * @since 0.2.0
 * @category checks
 */
export const csvPrecheck = (request: HttpServerRequest.HttpServerRequest): Refusal | undefined =>
  Number(request.headers["content-length"] ?? 0) > maxCsvBytes ? csvTooLarge : undefined

/**
 * The CSV body of `request` as text, read as it arrives (a client waiting for `100 Continue` is
 * sent it first): never one string. It is read off the connection as fast as the client sends it,
 * its bytes kept until their rows are taken (at most `maxCsvBytes`), so that the server's deadline
 * for a whole request measures the client and not the pace the rows are written at. Past
 * `maxCsvBytes` it dies with the 413 refusal (the connection is closed, the rest unread); a client
 * that went away interrupts it.
 *
 * @since 0.2.0
 * @category reading
 */
export const csvStream = (request: HttpServerRequest.HttpServerRequest): Stream.Stream<string> =>
  Stream.suspend(() => {
    let size = 0
    return Stream.concat(
      Stream.execute(ExpectContinue.release(request)),
      request.stream.pipe(
        Stream.catchAll((error) => isGone(error.cause) ? Stream.fromEffect(Effect.interrupt) : Stream.die(malformed)),
        Stream.mapChunksEffect((chunk) => {
          for (const bytes of chunk) size += bytes.byteLength
          return size > maxCsvBytes ? Effect.die(csvTooLarge) : Effect.succeed(chunk)
        }),
        Stream.buffer({ capacity: "unbounded" }),
        // the refusal as soon as the body is found too large, not after the rows read before it
        Stream.mapChunksEffect((chunk) => size > maxCsvBytes ? Effect.die(csvTooLarge) : Effect.succeed(chunk)),
        Stream.decodeText()
      )
    )
  })

/** 400 for a body that is not UTF-8. @since 0.1.0 @category refusals */
export const notUtf8 = invalid("The request body is not valid UTF-8.")

/** 400 for a body that does not parse as JSON. @since 0.1.0 @category refusals */
export const malformed = invalid("The request body is not valid JSON.")

/** 400 for a string escaping half of a surrogate pair. @since 0.1.0 @category refusals */
export const loneSurrogate = invalid(
  "The request body escapes half of a surrogate pair (e.g. \\ud83d alone); strings must be well-formed Unicode."
)

// CONTRACT §1: a NUL anywhere in a request is 400; no store sees one (PostgreSQL's text cannot hold it).
const nulMessage = "The request contains a NUL character (U+0000), which no field may hold."

/** 400 for a JSON string escaping a NUL (`"\u0000"`). @since 0.1.0 @category refusals */
export const nul = invalid(nulMessage)

/** 400 for a NUL in the path or query (`%00`), refused before the route is even matched. @since 0.1.0 @category refusals */
export const nulInUrl = new Refusal({ code: "invalid_request", message: nulMessage })

/** Whether the request's path or query holds an escaped NUL (`%00`). @since 0.1.0 @category checks */
export const urlHasNul = (url: string): boolean => url.includes("%00")

/** 400 for a body nested deeper than `maxDepth`. @since 0.1.0 @category refusals */
export const tooDeep = invalid(`The request body nests arrays and objects more than ${maxDepth} deep.`)

/** The UTF-16 unit of the four hex digits at `at`, or NaN. */
const hexUnit = (text: string, at: number): number => Number("0x" + text.slice(at, at + 4))

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * What is wrong with the JSON `text` before it is parsed, if anything a parser would let through:
 * arrays and objects nested deeper than `maxDepth` (the decoder walks them recursively), a string
 * escaping half of a surrogate pair (`"\ud83d"`), which no UTF-8 can carry and would be stored as
 * replacement characters, or one escaping a NUL (`"\u0000"`). Syntax is left to the parser.
 *
 * @since 0.1.0
 * @category checks
 */
export const problemOf = (text: string): Errors.InvalidRequest | undefined => {
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
            const escapesLow = text.charCodeAt(i + 6) === 0x5c && text.charCodeAt(i + 7) === 0x75 &&
              isLow(hexUnit(text, i + 8))
            if (!escapesLow) return loneSurrogate
            i += 11
          } else if (isLow(unit)) return loneSurrogate
          else if (unit === 0) return nul
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

/** The checks on `bytes`: strict UTF-8, then `problemOf`, then JSON syntax. */
const check = (bytes: ArrayBuffer | Uint8Array): Effect.Effect<Checked, Errors.InvalidRequest> => {
  const text = decodeUtf8(bytes)
  if (text === undefined) return Effect.fail(notUtf8)
  const problem = problemOf(text)
  if (problem !== undefined) return Effect.fail(problem)
  try {
    return Effect.succeed({ text, json: JSON.parse(text) })
  } catch {
    return Effect.fail(malformed)
  }
}

/** Whether `request` says it has a body (a length above 0, or chunks). @since 0.1.0 @category checks */
export const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const length = request.headers["content-length"]
  return length === undefined ? request.headers["transfer-encoding"] !== undefined : Number(length) > 0
}

/**
 * Whether `request` has a body not read to its end: one refused before it was read (401, 403, 413,
 * 415…), or cut short. Its answer closes the connection (`Connection: close`), so that the rest of
 * that body is never read: keeping the connection would mean reading it all to find the next
 * request, as much as the client cares to send.
 *
 * @since 0.1.0
 * @category checks
 */
export const isUnread = (request: HttpServerRequest.HttpServerRequest): boolean =>
  hasBody(request) && !NodeHttpServerRequest.toIncomingMessage(request).readableEnded

/**
 * The current request's body, read and checked (what `CheckBody` provides): `null` JSON when it has
 * none; a client waiting for `100 Continue` is sent it first (`ExpectContinue`). A refused body fails `invalid_request`; one too large without `Content-Length` (read up to
 * 16 times `maxBytes`, past that the connection is dropped) dies with the 413 refusal, which
 * `ErrorResponse` renders; one whose client went away is interrupted: no one is left to answer.
 *
 * @since 0.1.0
 * @category reading
 */
export const read: Effect.Effect<Checked, Errors.InvalidRequest, HttpServerRequest.HttpServerRequest> = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request) => {
    // a CSV route's body is its handler's to read as it streams (`csvStream`): only its type here
    // (an empty one is shown without it, and imports nothing)
    if (isCsvRoute(request)) {
      return !hasBody(request) || isCsvType(request.headers["content-type"] ?? "")
        ? Effect.succeed({ text: "", json: null })
        : Effect.die(notCsv)
    }
    if (!hasBody(request)) return Effect.succeed({ text: "", json: null })
    const limit = limitOf(request)
    const chunked = request.headers["content-length"] === undefined
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    // a chunked body is read up to 16 times the limit of 64 KiB (past that the connection is dropped)
    const readLimit = chunked ? Math.max(16 * maxBytes, limit.bytes) : limit.bytes
    const bytes: Effect.Effect<ArrayBuffer | Uint8Array, Errors.InvalidRequest> = incoming instanceof IncomingMessage
      ? readIncoming(incoming, readLimit, limit.refusal)
      : (chunked
        ? HttpIncomingMessage.withMaxBodySize(request.arrayBuffer, Option.some(readLimit))
        : request.arrayBuffer)
        .pipe(
          Effect.catchAll((error) =>
            isGone(error.cause)
              ? Effect.interrupt
              : isTooLarge(error)
              ? Effect.die(limit.refusal)
              : Effect.fail(malformed)
          )
        )
    return Effect.zipRight(ExpectContinue.release(request), bytes).pipe(
      Effect.flatMap((buffer) => chunked && buffer.byteLength > limit.bytes ? Effect.die(limit.refusal) : check(buffer))
    )
  }
)

/** Whether a read failed because the client closed the connection mid-body. */
const isGone = (cause: unknown): boolean => {
  const error = cause as { code?: unknown; message?: unknown } | undefined
  return error?.code === "ECONNRESET" || error?.message === "aborted"
}

/**
 * A Node request's body, read with plain listeners as it arrives: `NodeHttpServer`'s
 * `arrayBuffer` reads it the same way inside a scope (to destroy the stream after), a `FiberRef`
 * read and a copy of the buffer at every chunk, a few µs more on every request with a body. Past
 * `limit` bytes the request is destroyed (its connection dropped) and dies with the 413 refusal;
 * a client that went away mid-body leaves it unanswered, as an interrupted request; any other
 * failure to read is the client's fault. The error listener stays, as the platform's does, so
 * that a late error of the stream has a listener.
 */
const readIncoming = (
  incoming: IncomingMessage,
  limit: number,
  refusal: Refusal
): Effect.Effect<Uint8Array, Errors.InvalidRequest> =>
  Effect.async((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    const finish = (result: Effect.Effect<Uint8Array, Errors.InvalidRequest>) => {
      if (done) return
      done = true
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      finish(Effect.die(refusal))
      incoming.destroy()
    }
    const onEnd = () => finish(Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    incoming.on("data", onData)
    incoming.once("end", onEnd)
    incoming.once("error", (error) => finish(isGone(error) ? Effect.interrupt : Effect.fail(malformed)))
    return Effect.sync(() => {
      done = true
      incoming.off("data", onData)
      incoming.off("end", onEnd)
    })
  })

/** Whether a read failed on the size limit. */
const isTooLarge = (error: HttpServerError.RequestError): boolean =>
  /too large|max.*size|exceed/i.test(
    String((error.cause as { message?: unknown } | undefined)?.message ?? error.description ?? "")
  )

/** The checked body's JSON once `CheckBody` has run; on a route without it, `request`'s own. */
const checkedJson = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(
    Effect.serviceOption(CheckedBody),
    (checked) => Option.isSome(checked) ? Effect.succeed(checked.value.json) : request.json
  )

type Modify = HttpServerRequest.HttpServerRequest["modify"]

/** What `withCheckedBody` changes of a request; the rest is the request's own (its prototype). */
const overrides: PropertyDescriptorMap = {
  json: {
    get(this: HttpServerRequest.HttpServerRequest) {
      return checkedJson(Object.getPrototypeOf(this))
    }
  },
  modify: {
    value(this: HttpServerRequest.HttpServerRequest, options: Parameters<Modify>[0]) {
      return withCheckedBody(Object.getPrototypeOf(this).modify(options))
    }
  }
}

/**
 * `request` as the routes see it (`Middleware` provides it): its `json` is the body `CheckBody`
 * read and checked (`CheckedBody`), so that HttpApi decodes an endpoint's declared payload from it,
 * the body is read once, and a body's refusals stay `read`'s. HttpApi chooses how to read a body
 * by its `Content-Type`: a request without a body is shown without that header, so that it is read
 * as JSON `null` whatever it says (form fields or bytes would decode otherwise, and multipart would
 * wait for parts that never come); one with a body has a JSON type, any other being refused with
 * 415 before routing.
 *
 * @since 0.1.0
 * @category reading
 */
export const withCheckedBody = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  Object.create(
    request,
    hasBody(request) || request.headers["content-type"] === undefined
      ? overrides
      : { ...overrides, headers: { value: Headers.remove(request.headers, "content-type") } }
  )
