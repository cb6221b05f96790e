/**
 * The outermost middleware of `/v1`: gives each request its `req_…` id, refuses bodies that say
 * they are too large (413) or not JSON (415) before anything is read, and turns every failure into
 * the error envelope (`ErrorResponse`, which also answers unknown routes: 404, or 405 with
 * `Allow`), with `X-Request-Id`, `X-Content-Type-Options: nosniff` (and on `/v1`, `Cache-Control:
 * no-store`) on every response, and a log line for each at debug level (a 5xx at warning level).
 * An answer to a request whose body was not read closes its connection (`RequestBody.isUnread`).
 * The rest of the pipeline each group declares (`Pipeline`).
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Ids } from "@sendline/core"
import { Cause, Clock, Effect, FiberRef, LogLevel } from "effect"
import type * as ErrorCodes from "../envelope/ErrorCodes.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"
import * as RequestContext from "../envelope/RequestContext.js"
import * as Docs from "../server/Docs.js"
import * as RequestBody from "./RequestBody.js"

/** What the headers alone tell against the body: too large, or not JSON. */
const precheck = (request: HttpServerRequest.HttpServerRequest): ErrorCodes.Refusal | undefined => {
  if (Number(request.headers["content-length"] ?? 0) > RequestBody.maxBytes) return RequestBody.tooLarge
  if (RequestBody.hasBody(request) && !RequestBody.isJsonType(request.headers["content-type"] ?? "")) return RequestBody.notJson
  return undefined
}

const noSniff = { "x-content-type-options": "nosniff" }
const noStore = { ...noSniff, "cache-control": "no-store" }

/**
 * Headers every answer carries: `nosniff`, so that no browser reads a body as anything but its
 * type; and for `/v1`, whose answers hold phone numbers and bodies, `no-store`, so that no cache
 * keeps them.
 */
const safeHeaders = (request: HttpServerRequest.HttpServerRequest): Readonly<Record<string, string>> =>
  request.url.startsWith("/v1/") ? noStore : noSniff

const close = { connection: "close" }

/** A request as log lines name it: its method and path, never its query (where a key or a reference may be). */
const describe = (request: HttpServerRequest.HttpServerRequest): string => `${request.method} ${request.url.split("?")[0]}`

/**
 * A line about an answer: at warning level for a 5xx (a 500's cause is logged where it is
 * rendered), else debug. A request that ended before its answer (its client went away, or the
 * server is stopping) is no failure of ours: a debug line that says so.
 */
const logAnswer = (request: HttpServerRequest.HttpServerRequest, status: number, gone: boolean, took: string, requestId: string) => {
  const line = gone ? `${describe(request)} ended before its answer${took}` : `${describe(request)} ${status}${took}`
  return Effect.annotateLogs(status >= 500 && !gone ? Effect.logWarning(line) : Effect.logDebug(line), "request_id", requestId)
}

/** How a request is answered and whether it ended before its answer. */
type Answered<E, R> = Effect.Effect<readonly [HttpServerResponse.HttpServerResponse, gone: boolean], E, R>

/** Logs every answer with its time: "POST /v1/messaging/messages 201 in 3 ms". */
const logEvery = <E, R>(request: HttpServerRequest.HttpServerRequest, requestId: string, answer: Answered<E, R>) =>
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.tap(answer, ([response, gone]) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        logAnswer(request, response.status, gone, ` in ${now - start} ms`, requestId))))

/** Logs a 5xx answer only, and costs nothing otherwise. */
const logFailures = <E, R>(request: HttpServerRequest.HttpServerRequest, requestId: string, answer: Answered<E, R>) =>
  Effect.tap(answer, ([response, gone]) =>
    response.status >= 500 && !gone ? logAnswer(request, response.status, gone, "", requestId) : Effect.void)

/** The request id, header checks and error envelope around every request. @since 0.1.0 @category layers */
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
          let gone = false
          const handled = refused !== undefined
            ? ErrorResponse.render(refused)
            : Effect.catchAllCause(app, (cause) => {
              gone = Cause.isInterruptedOnly(cause)
              return ErrorResponse.fromCause(cause, request)
            })
          // An idempotent replay already carries the request id of the response it replays.
          const answer = Effect.map(handled, (response) =>
            [
              HttpServerResponse.setHeaders(Docs.serve(request, response), {
                ...(response.headers["x-request-id"] === undefined ? { "x-request-id": requestId } : {}),
                ...safeHeaders(request),
                ...(RequestBody.isUnread(request) ? close : {})
              }),
              gone
            ] as const)
          return Effect.locally(
            Effect.map(withLog(request, requestId, answer), ([response]) => response),
            RequestContext.current,
            { requestId }
          )
        }))
  })
)
