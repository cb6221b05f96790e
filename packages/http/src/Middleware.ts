/**
 * The outermost middleware of `/v1`: gives each request its `req_…` id, refuses bodies that are
 * too large (413), not JSON (415) or nested too deep (400), and turns every failure into the error
 * envelope (`ErrorResponse`, which also answers unknown routes: 404, or 405 with `Allow`), with
 * `X-Request-Id` on every response.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Ids } from "@sendline/core"
import { Effect, Option } from "effect"
import * as ErrorResponse from "./ErrorResponse.js"
import * as RequestContext from "./RequestContext.js"

/** The largest request body accepted, 64 KiB. @since 0.1.0 @category constants */
export const maxBodyBytes = 64 * 1024

// Only `application/json` (with parameters): the API parses no other type as JSON.
const jsonType = /^application\/json\s*(?:;|$)/i

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return length === undefined ? request.headers["transfer-encoding"] !== undefined : Number(length) > 0
}

const precheck = (request: HttpServerRequest.HttpServerRequest): ErrorResponse.ApiError | undefined => {
  if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return ErrorResponse.payloadTooLarge
  if (hasBody(request) && !jsonType.test(request.headers["content-type"] ?? "")) return ErrorResponse.unsupportedMediaType
  return undefined
}

/** The deepest nesting of arrays and objects a body may have; deeper is refused before decoding. @since 0.1.0 @category constants */
export const maxBodyDepth = 32

/** Whether the JSON `text` nests arrays and objects deeper than `max` (strings are skipped). */
const nestsDeeperThan = (text: string, max: number): boolean => {
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

const tooDeep: ErrorResponse.ApiError = {
  status: 400,
  code: "invalid_request",
  message: `The request body nests arrays and objects more than ${maxBodyDepth} deep.`
}

// A body is read (cached for the handler) and checked before the route decodes it: its size when
// it came without Content-Length (read up to 1 MiB; past that the connection is dropped), and its
// depth, which the decoder would otherwise walk recursively.
const guardBody = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => {
  const chunked = request.headers["content-length"] === undefined
  const read = Effect.flatMap(request.text, (text) =>
    chunked && Buffer.byteLength(text) > maxBodyBytes
      ? ErrorResponse.render(ErrorResponse.payloadTooLarge)
      : nestsDeeperThan(text, maxBodyDepth)
      ? ErrorResponse.render(tooDeep)
      : app)
  return chunked ? HttpIncomingMessage.withMaxBodySize(read, Option.some(16 * maxBodyBytes)) : read
}

/** The request id, body checks and error envelope around every request. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.middleware(
  Effect.map(Ids.IdGenerator, (ids) => (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(ids.make("req"), (requestId) => {
        const refused = precheck(request)
        const handled = refused !== undefined
          ? ErrorResponse.render(refused)
          : Effect.catchAllCause(hasBody(request) ? guardBody(request, app) : app, (cause) => ErrorResponse.fromCause(cause, request))
        return handled.pipe(
          // An idempotent replay already carries the request id of the response it replays.
          Effect.map((response) =>
            response.headers["x-request-id"] === undefined
              ? HttpServerResponse.setHeader(response, "x-request-id", requestId)
              : response
          ),
          Effect.locally(RequestContext.current, { requestId })
        )
      })
    )
  )
)
