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
import * as RequestBody from "./RequestBody.js"
import * as RequestContext from "./RequestContext.js"

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return length === undefined ? request.headers["transfer-encoding"] !== undefined : Number(length) > 0
}

const precheck = (request: HttpServerRequest.HttpServerRequest): ErrorResponse.ApiError | undefined => {
  if (Number(request.headers["content-length"] ?? 0) > RequestBody.maxBytes) return RequestBody.tooLarge
  if (hasBody(request) && !RequestBody.isJsonType(request.headers["content-type"] ?? "")) return RequestBody.notJson
  return undefined
}

// A body is read and checked before the route runs, whether or not the route has a payload: its
// size when it came without Content-Length (read up to 1 MiB; past that the connection is dropped;
// over 64 KiB is 413 at once), its encoding (UTF-8, strictly), its depth (the decoder walks it
// recursively), its surrogates, and its syntax. The route's `Authentication` reports a refused body
// once the key and its permission pass (401 and 403 come first); the route reads the checked text,
// parsed once, from the request of its context.
const guardBody = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => {
  const chunked = request.headers["content-length"] === undefined
  const read = Effect.flatMap(request.arrayBuffer, (bytes) => {
    if (chunked && bytes.byteLength > RequestBody.maxBytes) return ErrorResponse.render(RequestBody.tooLarge)
    return Effect.provideService(app, HttpServerRequest.HttpServerRequest, RequestBody.checked(request, check(bytes)))
  })
  return chunked ? HttpIncomingMessage.withMaxBodySize(read, Option.some(16 * RequestBody.maxBytes)) : read
}

/** The body's text and JSON, or why it is refused. */
const check = (bytes: ArrayBuffer): { readonly text: string; readonly json: unknown } | ErrorResponse.ApiError => {
  const text = RequestBody.decodeUtf8(bytes)
  if (text === undefined) return RequestBody.notUtf8
  const problem = RequestBody.problemOf(text)
  if (problem !== undefined) return problem
  try {
    return { text, json: JSON.parse(text) }
  } catch {
    return RequestBody.malformed
  }
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
