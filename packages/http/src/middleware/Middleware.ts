/**
 * The outermost middleware of `/v1`: gives each request its `req_…` id, refuses a NUL in the path
 * or query (400) and bodies that say they are too large (413) or not JSON (415) before anything is
 * read, and turns every failure into
 * the error envelope (`ErrorResponse`, which also answers unknown routes: 404, or 405 with
 * `Allow`), with `X-Request-Id`, `X-Content-Type-Options: nosniff` (and on `/v1`, `Cache-Control:
 * no-store`) on every response, and a line for each in the request log (`RequestLog`). Every line
 * logged while a request is handled carries its `request_id`.
 * An answer to a request whose body was not read closes its connection (`RequestBody.isUnread`).
 * The rest of the pipeline each group declares (`Pipeline`).
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Ids } from "@sendline/core"
import { Cause, Effect } from "effect"
import type { Refusal } from "../envelope/ApiError.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"
import * as RequestContext from "../envelope/RequestContext.js"
import * as Docs from "./Docs.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestLog from "./RequestLog.js"
import * as RouteTemplates from "./RouteTemplates.js"

/** What the request line and headers alone refuse: a NUL in the path or query; a body too large, or not JSON. */
const precheck = (request: HttpServerRequest.HttpServerRequest): Refusal | undefined => {
  if (RequestBody.urlHasNul(request.url)) return RequestBody.nulInUrl
  if (RequestBody.isCsvRoute(request)) return RequestBody.csvPrecheck(request)
  const limit = RequestBody.limitOf(request)
  if (Number(request.headers["content-length"] ?? 0) > limit.bytes) return limit.refusal
  if (RequestBody.hasBody(request) && !RequestBody.isJsonType(request.headers["content-type"] ?? "")) {
    return RequestBody.notJson
  }
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

/** The request id, header checks and error envelope around every request to `routes`. @since 0.1.0 @category layers */
export const layer = (routes: ReadonlyArray<ErrorResponse.Route>) =>
  HttpApiBuilder.middleware(
    Effect.gen(function*() {
      const ids = yield* Ids.IdGenerator
      const logged = yield* RequestLog.make
      const find = RouteTemplates.find(routes)
      const noRoute = ErrorResponse.noRouteOf(routes)
      return (app) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.flatMap(ids.make("req"), (requestId) => {
            const refused = precheck(request)
            let gone = false
            const handled = refused !== undefined
              ? ErrorResponse.render(refused)
              : Effect.catchAllCause(
                // the routes read the body as `CheckBody` checked it, their payload decoded from it
                Effect.provideService(app, HttpServerRequest.HttpServerRequest, RequestBody.withCheckedBody(request)),
                (cause) => {
                  gone = Cause.isInterruptedOnly(cause)
                  return ErrorResponse.fromCause(cause, request, noRoute)
                }
              )
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
            return Effect.zipRight(
              RequestContext.enter(requestId),
              Effect.map(logged(request, find, answer), ([response]) => response)
            )
          }))
    })
  )
