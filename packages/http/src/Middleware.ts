/**
 * The outermost middleware of `/v1`: gives each request its `req_…` id, refuses bodies that say
 * they are too large (413) or not JSON (415), has the others checked when read (`RequestBody`,
 * reported by `Authentication`), and turns every failure into the error
 * envelope (`ErrorResponse`, which also answers unknown routes: 404, or 405 with `Allow`), with
 * `X-Request-Id` on every response, and a log line for each at debug level (a 5xx at warning level).
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Ids } from "@sendline/core"
import { Clock, Effect, FiberRef, LogLevel } from "effect"
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
  Effect.provideService(app, HttpServerRequest.HttpServerRequest, RequestBody.checkedOnRead(request))

/** A line about an answer, at warning level for a 5xx (a 500's cause is logged where it is rendered), else debug. */
const logAnswer = (status: number, line: string, requestId: string) =>
  Effect.annotateLogs(status >= 500 ? Effect.logWarning(line) : Effect.logDebug(line), "request_id", requestId)

/** Logs every answer with its time: "POST /v1/messaging/messages 201 in 3 ms". */
const logEvery = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.tap(answer, (response) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        logAnswer(response.status, `${request.method} ${request.url} ${response.status} in ${now - start} ms`, requestId))))

/** Logs a 5xx answer only, and costs nothing otherwise. */
const logFailures = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.tap(answer, (response) =>
    response.status >= 500
      ? logAnswer(response.status, `${request.method} ${request.url} ${response.status}`, requestId)
      : Effect.void)

/** The request id, body checks and error envelope around every request. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const ids = yield* Ids.IdGenerator
    // Every answer is logged when debug lines are kept, as the level is when the server is built;
    // otherwise only a 5xx, and an answer costs no clock reads.
    const verbose = LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Debug)
    const withLog = verbose ? logEvery : logFailures
    return (app) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.flatMap(ids.make("req"), (requestId) => {
          const refused = precheck(request)
          const handled = refused !== undefined
            ? ErrorResponse.render(refused)
            : Effect.catchAllCause(hasBody(request) ? guardBody(request, app) : app, (cause) => ErrorResponse.fromCause(cause, request))
          // An idempotent replay already carries the request id of the response it replays.
          const answer = Effect.map(handled, (response) =>
            response.headers["x-request-id"] === undefined
              ? HttpServerResponse.setHeader(response, "x-request-id", requestId)
              : response)
          return Effect.locally(withLog(request, requestId, answer), RequestContext.current, { requestId })
        }))
  })
)
