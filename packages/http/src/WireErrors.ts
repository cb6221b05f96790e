/**
 * Core's tagged errors as they travel: CONTRACT §1's error envelope, decoded into the tagged error,
 * so that a client derived from `Api` (`HttpApiClient`) fails with `RuleViolation`, `NotFound`… The
 * server never encodes through these: `Middleware` renders every error itself (with its request id
 * and headers, see `ErrorResponse`), and encoding one here is refused.
 *
 * The body does not carry `Retry-After`: a decoded `RateLimited` says 1 second, the least the
 * server asks; the response's header says how long exactly.
 *
 * @since 0.1.0
 */
import { HttpApiSchema } from "@effect/platform"
import { Errors } from "@sendline/core"
import { ParseResult, Schema } from "effect"
import * as Json from "./Json.js"

/**
 * The envelope's `code` of each error that carries none of its own (CONTRACT §8), named once for
 * the server that renders it (`ErrorResponse`) and the client that decodes it (below).
 *
 * @since 0.1.0
 * @category codes
 */
export const codes = {
  Unauthenticated: "unauthenticated",
  NotFound: "not_found",
  RateLimited: "rate_limited",
  StoreUnavailable: "unavailable"
} as const

/**
 * The HTTP status of each core error (CONTRACT §8), named once for the server that answers with it
 * (`ErrorResponse`) and the API that declares it (each schema below carries its status).
 *
 * @since 0.1.0
 * @category statuses
 */
export const statuses = {
  InvalidRequest: 400,
  Unauthenticated: 401,
  PermissionDenied: 403,
  NotFound: 404,
  Conflict: 409,
  RuleViolation: 422,
  RateLimited: 429,
  StoreUnavailable: 503
} as const

type Body<Code extends string> = Schema.Schema.Type<ReturnType<typeof Json.errorEnvelope<Code>>>["error"]

/** The envelope of `code` decoded into `error` by `make`, declared with the error's status. */
const wire = <A, I, Tag extends keyof typeof statuses, Code extends string>(
  error: Schema.Schema<A, I> & { readonly _tag: Tag },
  code: Schema.Schema<Code>,
  make: (body: Body<Code>) => A
) =>
  Schema.transformOrFail(Json.errorEnvelope(code), Schema.typeSchema(error), {
    strict: true,
    decode: (body) => ParseResult.succeed(make(body.error)),
    encode: (value, _, ast) =>
      ParseResult.fail(new ParseResult.Forbidden(ast, value, "errors leave through the envelope middleware"))
  }).annotations(HttpApiSchema.annotations({ status: statuses[error._tag] }))

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: V }

/** 422. @since 0.1.0 @category errors */
export const RuleViolation = wire(Errors.RuleViolation, Errors.RuleCode, (e) =>
  new Errors.RuleViolation({ code: e.code, message: e.message, ...optional("field", e.field) }))

/** 400. @since 0.1.0 @category errors */
export const InvalidRequest = wire(Errors.InvalidRequest, Errors.InvalidRequest.fields.code, (e) =>
  new Errors.InvalidRequest({
    code: e.code,
    message: e.message,
    ...optional("field", e.field),
    ...optional("details", e.details)
  }))

/** 401. @since 0.1.0 @category errors */
export const Unauthenticated = wire(Errors.Unauthenticated, Schema.Literal(codes.Unauthenticated), (e) =>
  new Errors.Unauthenticated({ message: e.message }))

/** 403. @since 0.1.0 @category errors */
export const PermissionDenied = wire(Errors.PermissionDenied, Errors.PermissionDenied.fields.code, (e) =>
  new Errors.PermissionDenied({ code: e.code, message: e.message }))

/** 404. @since 0.1.0 @category errors */
export const NotFound = wire(Errors.NotFound, Schema.Literal(codes.NotFound), (e) => new Errors.NotFound({ message: e.message }))

/** 409. @since 0.1.0 @category errors */
export const Conflict = wire(Errors.Conflict, Errors.Conflict.fields.code, (e) =>
  new Errors.Conflict({ code: e.code, message: e.message }))

/** 429. @since 0.1.0 @category errors */
export const RateLimited = wire(Errors.RateLimited, Schema.Literal(codes.RateLimited), (e) =>
  new Errors.RateLimited({ message: e.message, retryAfterSeconds: 1 }))

/** 503. @since 0.1.0 @category errors */
export const StoreUnavailable = wire(Errors.StoreUnavailable, Schema.Literal(codes.StoreUnavailable), (e) =>
  new Errors.StoreUnavailable({ message: e.message }))
