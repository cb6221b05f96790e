/**
 * The outermost middleware of `/v1`: gives each request its `req_…` id, refuses bodies that are
 * too large (413) or not JSON (415), caps the body size, and turns every failure into the error
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

const precheck = (request: HttpServerRequest.HttpServerRequest): ErrorResponse.ApiError | undefined => {
  const length = request.headers["content-length"]
  const declared = length === undefined ? 0 : Number(length)
  if (declared > maxBodyBytes) return ErrorResponse.payloadTooLarge
  const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined
  if (hasBody && !jsonType.test(request.headers["content-type"] ?? "")) return ErrorResponse.unsupportedMediaType
  return undefined
}

/** A chunked body is over the limit only once read; past 1 MiB the connection is dropped. */
const isChunked = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-length"] === undefined && request.headers["transfer-encoding"] !== undefined

// A body without Content-Length is read (up to 1 MiB, cached for the handler) and measured first;
// one with Content-Length was measured by `precheck`, and Node reads no more than it declares.
const guardChunked = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  request.text.pipe(
    Effect.flatMap((text) =>
      Buffer.byteLength(text) > maxBodyBytes ? ErrorResponse.render(ErrorResponse.payloadTooLarge) : app
    ),
    HttpIncomingMessage.withMaxBodySize(Option.some(16 * maxBodyBytes))
  )

/** The request id, body checks and error envelope around every request. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.middleware(
  Effect.map(Ids.IdGenerator, (ids) => (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(ids.make("req"), (requestId) => {
        const refused = precheck(request)
        const handled = refused !== undefined
          ? ErrorResponse.render(refused)
          : Effect.catchAllCause(isChunked(request) ? guardChunked(request, app) : app, (cause) => ErrorResponse.fromCause(cause, request))
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
