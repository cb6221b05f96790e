/**
 * `Idempotency-Key` on POST (CONTRACT §1): the first response is kept and replayed byte for byte,
 * a refusal (4xx) as much as a success. What did not run to an answer is not kept, and the key may
 * be retried: a request refused before its handler (400 for a body that does not decode, 401, 429),
 * and one that failed on our side (503, 500).
 *
 * @since 0.1.0
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { type Account, Errors, Idempotency } from "@sendline/core"
import { Effect, Exit, Option } from "effect"
import { createHash } from "node:crypto"
import * as ErrorResponse from "./ErrorResponse.js"
import * as RawHeaders from "./RawHeaders.js"
import * as Respond from "./Respond.js"

// A replay is the first response whole: its `X-Request-Id` is the first request's, as in its `meta`.
const replayed = (stored: Respond.Body): HttpServerResponse.HttpServerResponse => {
  const requestId = (JSON.parse(stored.body) as { meta?: { request_id?: unknown } }).meta?.request_id
  return Respond.toResponse(stored, {
    "idempotent-replayed": "true",
    ...(typeof requestId === "string" ? { "x-request-id": requestId } : {})
  })
}

/**
 * Runs `body` under the request's `Idempotency-Key`, if it has one (`body` is given it, or
 * undefined), and answers with its response.
 *
 * @since 0.1.0
 * @category combinators
 */
export const run = <E, R>(
  principal: Account.Principal,
  body: (idempotencyKey: string | undefined) => Effect.Effect<Respond.Body, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  E | Errors.InvalidRequest | Errors.Conflict | Errors.StoreUnavailable,
  R | Idempotency.Idempotency | HttpServerRequest.HttpServerRequest
> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = request.headers["idempotency-key"]
    if (key === undefined) return Respond.toResponse(yield* body(undefined))
    if (RawHeaders.count(request, "idempotency-key") > 1) {
      return yield* new Errors.InvalidRequest({
        code: "invalid_request",
        field: "Idempotency-Key",
        message: "Send one Idempotency-Key header, not several."
      })
    }
    if (!Idempotency.isValidKey(key)) {
      return yield* new Errors.InvalidRequest({
        code: "invalid_request",
        field: "Idempotency-Key",
        message: "Idempotency-Key must be 1–255 printable characters."
      })
    }
    const idempotency = yield* Idempotency.Idempotency
    const text = yield* Effect.orElseSucceed(request.text, () => "")
    const url = request.url.split("?")[0]
    const fingerprint = createHash("sha256").update(`${request.method} ${url}\n${text}`).digest("hex")
    const begun = yield* idempotency.begin(principal.accountId, key, fingerprint)
    if (begun._tag === "Replay") return replayed(begun.response)
    const result = yield* body(key).pipe(
      Effect.map((done) => ({ done, headers: undefined })),
      Effect.catchAll((error) => {
        const refusal = Option.filter(ErrorResponse.fromFailure(error, request), (refused) => refused.status < 500)
        return Option.match(refusal, {
          onNone: () => Effect.fail(error),
          onSome: (refused) => Effect.map(ErrorResponse.envelope(refused), (done) => ({ done, headers: refused.headers }))
        })
      }),
      Effect.tap(({ done }) => idempotency.complete(begun.reservation, done)),
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.ignore(idempotency.release(begun.reservation)))
    )
    return Respond.toResponse(result.done, result.headers)
  })
