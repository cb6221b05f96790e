/**
 * Every failure leaves as CONTRACT §1's error envelope with CONTRACT §8's status and code: domain
 * errors, schema decode failures, unknown routes, unreadable bodies and defects alike.
 *
 * @since 0.1.0
 */
import { HttpApiError, HttpServerError, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Errors } from "@sendline/core"
import { Cause, Effect, Option } from "effect"
import { Api } from "./Api.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestContext from "./RequestContext.js"
import * as Respond from "./Respond.js"
import * as WireErrors from "./WireErrors.js"

/** What goes into `error`. @since 0.1.0 @category models */
export interface ApiError {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly field?: string | undefined
  readonly details?: ReadonlyArray<{ readonly field: string; readonly issue: string }> | undefined
  readonly headers?: Record<string, string> | undefined
}

/** The error envelope of `error`, serialised. @since 0.1.0 @category responses */
export const envelope = (error: ApiError): Effect.Effect<Respond.Body> =>
  Effect.map(RequestContext.meta, (meta) => ({
    status: error.status,
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
  Effect.map(envelope(error), (body) => Respond.toResponse(body, error.headers))

// Every failure with a known status: core's tagged errors and the platform's, by class (the
// platform has errors of the same tag names, e.g. its own `NotFound`).
const knownFailures = [
  Errors.RuleViolation,
  Errors.InvalidRequest,
  Errors.Unauthenticated,
  Errors.PermissionDenied,
  Errors.NotFound,
  Errors.Conflict,
  Errors.RateLimited,
  Errors.StoreUnavailable,
  HttpApiError.HttpApiDecodeError,
  HttpServerError.RouteNotFound
] as const

type KnownFailure = InstanceType<typeof knownFailures[number]>

const isKnown = (u: unknown): u is KnownFailure => knownFailures.some((known) => u instanceof known)

const field = (path: ReadonlyArray<PropertyKey>) => path.map(String).join(".")

// The decoder's messages quote the value they refused: at most this much of it is sent back.
const maxIssueLength = 160

/** One issue for a person: no schema names for a body that is not an object, no long quotes. */
const describeIssue = (path: string, message: string, inQuery: boolean): string => {
  if (path === "") return inQuery ? "The query is malformed." : "Expected a JSON object."
  return message.length <= maxIssueLength ? message : `${message.slice(0, maxIssueLength - 1)}…`
}

const decodeError = (error: HttpApiError.HttpApiDecodeError, method: string): ApiError => {
  const inQuery = method === "GET" || method === "DELETE"
  // One issue per field: a nullable optional field that fails reports each union member, keep the first.
  const details = error.issues.map((issue) => {
    const at = field(issue.path)
    return { field: at, issue: describeIssue(at, issue.message, inQuery) }
  })
    .filter((detail, i, all) => all.findIndex((d) => d.field === detail.field) === i)
  const first = details[0]
  return {
    status: 400,
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

const routes = Object.values(Api.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({
    method: endpoint.method,
    pattern: new RegExp("^" + endpoint.path.replace(/:[^/]+/g, "[^/]+") + "/?$")
  }))
)

/** The methods that `path` answers, for 405 and `Allow`. */
const allowedMethods = (path: string): ReadonlyArray<string> =>
  routes.filter((r) => r.pattern.test(path)).map((r) => r.method)

// No route matched: 405 with `Allow` when the path exists for other methods only, else 404 (the
// router also refuses a path of a known shape whose id it cannot take: too long, badly escaped).
const noRoute = (request: HttpServerRequest.HttpServerRequest): ApiError => {
  const allowed = allowedMethods(request.url.split("?")[0]!)
  const method = request.method === "HEAD" ? "GET" : request.method
  return allowed.length === 0 || allowed.includes(method)
    ? { status: 404, code: WireErrors.codes.NotFound, message: `No route ${request.method} ${request.url}.` }
    : {
      status: 405,
      code: "method_not_allowed",
      message: `${request.method} is not allowed here; use ${allowed.join(" or ")}.`,
      headers: { allow: allowed.join(", ") }
    }
}

/** Maps a known failure to its status and code; none for anything unexpected. @since 0.1.0 @category mapping */
export const fromFailure = (error: unknown, request: HttpServerRequest.HttpServerRequest): Option.Option<ApiError> => {
  if (!isKnown(error)) return Option.none()
  if (error._tag === "HttpApiDecodeError") return Option.some(decodeError(error, request.method))
  if (error._tag === "RouteNotFound") return Option.some(noRoute(request))
  const status = WireErrors.statuses[error._tag]
  switch (error._tag) {
    case "RuleViolation":
      return Option.some({ status, code: error.code, message: error.message, field: error.field })
    case "InvalidRequest":
      return Option.some({
        status,
        code: error.code,
        message: error.message,
        field: error.field,
        details: error.details
      })
    case "Unauthenticated":
      return Option.some({
        status,
        code: WireErrors.codes.Unauthenticated,
        message: error.message,
        headers: { "www-authenticate": "Bearer" }
      })
    case "PermissionDenied":
      return Option.some({ status, code: error.code, message: error.message })
    case "NotFound":
      return Option.some({ status, code: WireErrors.codes.NotFound, message: error.message })
    case "Conflict":
      return Option.some({ status, code: error.code, message: error.message })
    case "RateLimited":
      return Option.some({
        status,
        code: WireErrors.codes.RateLimited,
        message: error.message,
        headers: { "retry-after": String(error.retryAfterSeconds) }
      })
    case "StoreUnavailable":
      return Option.some({
        status,
        code: WireErrors.codes.StoreUnavailable,
        message: "The service is temporarily unavailable; retry shortly.",
        headers: { "retry-after": "1" }
      })
  }
}

const internalError: ApiError = {
  status: 500,
  code: "internal_error",
  message: "Something went wrong on our side; it has been logged."
}

/** Maps a defect: unreadable bodies are the client's fault, anything else is ours. */
const fromDefect = (defect: unknown): ApiError => {
  if (HttpServerError.isServerError(defect) && defect._tag === "RequestError") {
    const text = String((defect.cause as { message?: unknown } | undefined)?.message ?? defect.description ?? "")
    if (/too large|max.*size|exceed/i.test(text)) return RequestBody.tooLarge
    return RequestBody.malformed
  }
  return internalError
}

/** Whether `error` is the body read failing because the client closed the connection mid-body. */
const isAbortedBody = (error: unknown): boolean => {
  if (!HttpServerError.isServerError(error) || error._tag !== "RequestError") return false
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  return cause?.code === "ECONNRESET" || cause?.message === "aborted"
}

/**
 * The response for any cause, logging what is unexpected. A request only interrupted (its client
 * went away, or the server is stopping), or whose body stopped because its client closed the
 * connection, is noted at debug level: no one is left to answer.
 *
 * @since 0.1.0
 * @category responses
 */
export const fromCause = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const failure = Cause.failureOption(cause)
  const defect = Option.isSome(failure) ? failure.value : Option.getOrUndefined(Cause.dieOption(cause))
  if (Cause.isInterruptedOnly(cause) || isAbortedBody(defect)) {
    return Effect.zipRight(
      Effect.logDebug("Request ended before its answer: the client went away, or the server is stopping"),
      render(internalError)
    )
  }
  if (Option.isSome(failure)) {
    const known = fromFailure(failure.value, request)
    if (Option.isSome(known)) return render(known.value)
  }
  const error = fromDefect(defect)
  return error.status === 500
    ? Effect.zipRight(Effect.logError("Request failed", cause), render(error))
    : render(error)
}
