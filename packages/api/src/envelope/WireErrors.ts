/**
 * The errors (`Errors`) as they travel: the error envelope decoded into the tagged error, so that a
 * client derived from `Api` (`HttpApiClient`) fails with `RuleViolation`, `NotFound`… Each is
 * declared with the status `ErrorCodes` gives its codes. The server never encodes through these:
 * its `Middleware` renders every error itself (with its request id and headers, see its
 * `ErrorResponse`), and encoding one here is refused.
 *
 * The body does not carry `Retry-After`: a decoded `RateLimited` says 1 second, the least the
 * server asks; the response's header says how long exactly.
 *
 * @since 0.1.0
 */
import { HttpApiSchema } from "@effect/platform"
import { ParseResult, Schema } from "effect"
import type * as AST from "effect/SchemaAST"
import * as Errors from "../Errors.js"
import * as Envelope from "./Envelope.js"
import * as ErrorCodes from "./ErrorCodes.js"

/** An error class of `Errors`: its schema, whose `code` field (a literal, or a literal given by the constructor) lists its codes. */
interface ErrorClass<A> extends Schema.Schema<A, any> {
  readonly fields: { readonly code: { readonly ast: AST.AST | Schema.PropertySignature.AST } }
  new(props: any): A
}

/** The codes an error class carries, from its `code` field's literals. */
const codesOf = (error: ErrorClass<any>): ReadonlyArray<ErrorCodes.Code> => {
  const field = error.fields.code.ast
  const ast: AST.AST = field._tag === "PropertySignatureDeclaration" ? field.type : field as AST.AST
  const literals: ReadonlyArray<AST.AST> = ast._tag === "Union" ? ast.types : [ast]
  return literals.map((literal) => {
    if (literal._tag !== "Literal") throw new Error(`${String(error)}: code is not a literal`)
    return literal.literal as ErrorCodes.Code
  })
}

/** The envelope of `error`'s codes decoded into `error`, declared with their one status. */
const wire = <A>(error: ErrorClass<A>, extra: Record<string, unknown> = {}) => {
  const codes = codesOf(error)
  const status = ErrorCodes.status(codes[0]!)
  if (codes.some((code) => ErrorCodes.status(code) !== status)) throw new Error(`${codes.join(", ")} differ in status`)
  const fields = Object.keys(error.fields)
  return Schema.transformOrFail(Envelope.errorEnvelope(Schema.Literal(...codes)), Schema.typeSchema(error), {
    strict: true,
    decode: (body) =>
      ParseResult.succeed(
        new error({
          ...Object.fromEntries(Object.entries(body.error).filter(([key]) => fields.includes(key))),
          ...extra
        })
      ),
    encode: (value, _, ast) =>
      ParseResult.fail(new ParseResult.Forbidden(ast, value, "errors leave through the envelope middleware"))
  }).annotations(HttpApiSchema.annotations({ status }))
}

/** 422. @since 0.1.0 @category errors */
export const RuleViolation = wire(Errors.RuleViolation)

/** 400. @since 0.1.0 @category errors */
export const InvalidRequest = wire(Errors.InvalidRequest)

/** 401. @since 0.1.0 @category errors */
export const Unauthenticated = wire(Errors.Unauthenticated)

/** 403. @since 0.1.0 @category errors */
export const PermissionDenied = wire(Errors.PermissionDenied)

/** 404. @since 0.1.0 @category errors */
export const NotFound = wire(Errors.NotFound)

/** 409. @since 0.1.0 @category errors */
export const Conflict = wire(Errors.Conflict)

/** 429. @since 0.1.0 @category errors */
export const RateLimited = wire(Errors.RateLimited, { retryAfterSeconds: 1 })

/** 503. @since 0.1.0 @category errors */
export const StoreUnavailable = wire(Errors.StoreUnavailable)
