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

// A body is read and checked before the route decodes it: its size when it came without
// Content-Length (read up to 1 MiB; past that the connection is dropped), its encoding (UTF-8,
// strictly), and its depth, which the decoder would otherwise walk recursively. The route then
// reads the checked text from the request of its context.
const guardBody = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => {
  const chunked = request.headers["content-length"] === undefined
  const read = Effect.flatMap(request.arrayBuffer, (bytes) => {
    if (chunked && bytes.byteLength > RequestBody.maxBytes) return ErrorResponse.render(RequestBody.tooLarge)
    const text = RequestBody.decodeUtf8(bytes)
    if (text === undefined) return ErrorResponse.render(RequestBody.notUtf8)
    if (RequestBody.nestsDeeperThan(text, RequestBody.maxDepth)) return ErrorResponse.render(RequestBody.tooDeep)
    return Effect.provideService(app, HttpServerRequest.HttpServerRequest, withText(request, text))
  })
  return chunked ? HttpIncomingMessage.withMaxBodySize(read, Option.some(16 * RequestBody.maxBytes)) : read
}

/** `request`, whose body reads as `text`: the platform's `json` and `urlParamsBody` read `this.text`. */
const withText = (request: HttpServerRequest.HttpServerRequest, text: string): HttpServerRequest.HttpServerRequest =>
  Object.create(request, { text: { value: Effect.succeed(text) } })

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
