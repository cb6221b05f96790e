/**
 * Every failure leaves as CONTRACT §1's error envelope, its status the one `ErrorCodes` gives its
 * code: core's errors, the edge's refusals, schema decode failures, unknown routes, unreadable
 * bodies and defects alike (a defect is 500 `internal_error`, logged).
 *
 * @since 0.1.0
 */
import { HttpApiError, HttpServerError, type HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { ErrorCodes } from "@sendline/api"
import { Errors } from "@sendline/core"
import { Cause, Effect, Option } from "effect"
import { type ApiError, Refusal } from "./ApiError.js"
import * as Envelope from "./Envelope.js"
import * as RequestContext from "./RequestContext.js"

/** The error envelope of `error`, serialised with its status. @since 0.1.0 @category bodies */
export const body = (error: ApiError): Effect.Effect<Envelope.Body> =>
  Effect.map(RequestContext.meta, (meta) => ({
    status: ErrorCodes.status(error.code),
    body: JSON.stringify({
      ok: false,
      error: {
        code: error.code,
        message: error.message,
        ...(error.field === undefined ? {} : { field: error.field }),
        ...(error.details === undefined ? {} : { details: error.details })
      },
      meta
    })
  }))

/** The error envelope response for `error`, with its headers. @since 0.1.0 @category responses */
export const render = (error: ApiError): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(body(error), (done) => Envelope.toResponse(done, error.headers))

/** A core error as it is answered: its own code, message and field; the headers its code calls for. */
const fromCore = (error: Errors.SendlineError): ApiError => {
  switch (error._tag) {
    case "InvalidRequest":
    case "RuleViolation":
      return { code: error.code, message: error.message, field: error.field, details: error.details }
    case "Unauthenticated":
      return { code: error.code, message: error.message, headers: { "www-authenticate": "Bearer" } }
    case "RateLimited":
      return { code: error.code, message: error.message, headers: { "retry-after": String(error.retryAfterSeconds) } }
    case "StoreUnavailable":
      // never the store's own words: they may name a host or a table
      return {
        code: error.code,
        message: "The service is temporarily unavailable; retry shortly.",
        headers: { "retry-after": "1" }
      }
    case "PermissionDenied":
    case "NotFound":
    case "Conflict":
      return { code: error.code, message: error.message }
  }
}

// The decoder's messages quote the value they refused: at most this much of it is sent back.
const maxIssueLength = 160

/** One issue for a person: no schema names for a body that is not an object, no long quotes. */
const describeIssue = (path: string, message: string, inQuery: boolean): string => {
  if (path === "") return inQuery ? "The query is malformed." : "Expected a JSON object."
  return message.length <= maxIssueLength ? message : `${message.slice(0, maxIssueLength - 1)}…`
}

/** A decoder's path as a field is named: `messages[3].to`, an array's index in brackets. */
const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (at, key) => typeof key === "number" ? `${at}[${key}]` : at === "" ? String(key) : `${at}.${String(key)}`,
    ""
  )

const decodeError = (error: HttpApiError.HttpApiDecodeError, method: string): ApiError => {
  const inQuery = method === "GET" || method === "DELETE"
  // One issue per field: a nullable optional field that fails reports each union member, keep the first.
  const details = error.issues.map((issue) => {
    const at = fieldOf(issue.path)
    return { field: at, issue: describeIssue(at, issue.message, inQuery) }
  })
    .filter((detail, i, all) => all.findIndex((d) => d.field === detail.field) === i)
  const first = details[0]
  return {
    code: inQuery ? "invalid_parameter" : "invalid_request",
    message: first === undefined
      ? "The request is malformed."
      : details.length === 1
      ? `${first.field === "" ? "The request body" : first.field}: ${first.issue}`
      : `The ${inQuery ? "query" : "request body"} has ${details.length} problems; see details.`,
    ...(details.length === 1 && first !== undefined && first.field !== "" ? { field: first.field } : {}),
    details
  }
}

/** A route of the API served: its method and path template (`:name` a path parameter). @since 0.1.0 @category models */
export interface Route {
  readonly method: string
  readonly template: string
}

/** Answers a request no route takes. @since 0.1.0 @category models */
export type NoRoute = (request: HttpServerRequest.HttpServerRequest) => ApiError

/**
 * The answer to a request no route of `routes` takes: 405 with `Allow` when its path exists for
 * other methods only, else 404 (the router also refuses a path of a known shape whose id it cannot
 * take: too long, badly escaped).
 *
 * @since 0.1.0
 * @category mapping
 */
export const noRouteOf = (routes: ReadonlyArray<Route>): NoRoute => {
  const patterns = routes.map((route) => ({
    method: route.method,
    pattern: new RegExp("^" + route.template.replace(/:[^/]+/g, "[^/]+") + "/?$")
  }))
  return (request) => {
    const path = request.url.split("?")[0]!
    const allowed = patterns.filter((r) => r.pattern.test(path)).map((r) => r.method)
    const method = request.method === "HEAD" ? "GET" : request.method
    return allowed.length === 0 || allowed.includes(method)
      ? { code: "not_found", message: `No route ${request.method} ${request.url}.` }
      : {
        code: "method_not_allowed",
        message: `${request.method} is not allowed here; use ${allowed.join(" or ")}.`,
        headers: { allow: allowed.join(", ") }
      }
  }
}

/** Knows no route: every request it is asked about is 404. */
const noRouteKnown: NoRoute = noRouteOf([])

/**
 * The error a failure is answered with; none for anything unexpected (a defect, then). An unknown
 * route is answered by `noRoute` (by default 404).
 *
 * @since 0.1.0
 * @category mapping
 */
export const fromFailure = (
  error: unknown,
  request: HttpServerRequest.HttpServerRequest,
  noRoute: NoRoute = noRouteKnown
): Option.Option<ApiError> => {
  if (Errors.isSendlineError(error)) return Option.some(fromCore(error))
  if (error instanceof Refusal) return Option.some(error)
  if (error instanceof HttpApiError.HttpApiDecodeError) return Option.some(decodeError(error, request.method))
  if (error instanceof HttpServerError.RouteNotFound) return Option.some(noRoute(request))
  return Option.none()
}

const internalError: ApiError = {
  code: "internal_error",
  message: "Something went wrong on our side; it has been logged."
}

/**
 * The response for any cause, logging what is unexpected. A request only interrupted (its client
 * went away, or the server is stopping) is noted at debug level: no one is left to answer. A
 * refusal may come as a defect, where the failure channel is not the place (a body too large).
 * An unknown route is answered by `noRoute`.
 *
 * @since 0.1.0
 * @category responses
 */
export const fromCause = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  noRoute: NoRoute = noRouteKnown
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (Cause.isInterruptedOnly(cause)) {
    return Effect.zipRight(
      Effect.logDebug("Request ended before its answer: the client went away, or the server is stopping"),
      render(internalError)
    )
  }
  const failure = Option.orElse(
    Cause.failureOption(cause),
    () => Option.filter(Cause.dieOption(cause), (defect) => defect instanceof Refusal)
  )
  const known = Option.flatMap(failure, (error) => fromFailure(error, request, noRoute))
  return Option.isSome(known)
    ? render(known.value)
    : Effect.zipRight(Effect.logError("Request failed", cause), render(internalError))
}
