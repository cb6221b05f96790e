/**
 * The outermost middleware of `/v1`: gives each request its `req_…` id, refuses bodies that say
 * they are too large (413) or not JSON (415), has the others checked when read (`RequestBody`,
 * reported by `Authentication`), and turns every failure into the error
 * envelope (`ErrorResponse`, which also answers unknown routes: 404, or 405 with `Allow`), with
 * `X-Request-Id` on every response and a log line for each (debug level; warning for a 5xx).
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Ids } from "@sendline/core"
import { Clock, Effect } from "effect"
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

// A request with a body reaches the route as one that reads and checks it once, when first needed
// (`RequestBody.checkedOnRead`): the route's `Authentication` asks once the key and its permission
// pass, whether or not the route has a payload, and reports a refused body (401 and 403 come
// first, and a request refused for its key never has its body read); the route decodes the text
// already parsed.
const guardBody = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(
    RequestBody.checkedOnRead(request),
    (checked) => Effect.provideService(app, HttpServerRequest.HttpServerRequest, checked)
  )

/**
 * One line per answer, at debug level ("POST /v1/messaging/messages 201 in 3 ms"), and at warning
 * level for a 5xx (a 500's cause is logged where it is rendered), with the request id.
 */
const logAnswer = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  start: number,
  requestId: string
) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const line = `${request.method} ${request.url} ${response.status} in ${now - start} ms`
    return (response.status >= 500 ? Effect.logWarning(line) : Effect.logDebug(line)).pipe(
      Effect.annotateLogs("request_id", requestId)
    )
  })

/** The request id, body checks and error envelope around every request. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.middleware(
  Effect.map(Ids.IdGenerator, (ids) => (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(Effect.zip(ids.make("req"), Clock.currentTimeMillis), ([requestId, start]) => {
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
          Effect.tap((response) => logAnswer(request, response, start, requestId)),
          Effect.locally(RequestContext.current, { requestId })
        )
      })
    )
  )
)
