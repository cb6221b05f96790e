/**
 * An error as the server answers it: what goes into the envelope's `error` (a code of the error
 * table, `@sendline/api`'s `ErrorCodes`), with the response's own headers; and the refusals the
 * edge gives itself.
 *
 * @since 0.2.0
 */
import type { ErrorCodes, Errors } from "@sendline/api"
import { Data } from "effect"

/** What goes into the envelope's `error`, with the response's own headers. @since 0.1.0 @category models */
export interface ApiError {
  readonly code: ErrorCodes.Code
  readonly message: string
  readonly field?: string | undefined
  readonly details?: ReadonlyArray<Errors.FieldIssue> | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * A refusal the edge gives itself, before any use case runs (a body that is not JSON, too large,
 * of another media type; a route that does not exist): rendered like any error.
 *
 * @since 0.1.0
 * @category errors
 */
export class Refusal extends Data.TaggedError("Refusal")<ApiError> {}
