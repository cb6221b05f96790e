/**
 * `Idempotency-Key` on POST (CONTRACT §1): the first response is kept and replayed byte for byte,
 * a refusal (4xx) as much as a success. What did not run to an answer is not kept, and the key may
 * be retried: a request refused before its handler (400 for a body that does not decode, 401, 429),
 * and one that failed on our side (503, 500). The key is checked here, once (`Idempotency.Key`).
 *
 * @since 0.1.0
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { type Account, Errors, Idempotency } from "@sendline/core"
import { Effect, Exit, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as Envelope from "../envelope/Envelope.js"
import * as ErrorCodes from "../envelope/ErrorCodes.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"
import * as RawHeaders from "./RawHeaders.js"
import { CheckedBody } from "./RequestBody.js"

// A replay is the first response whole: its `X-Request-Id` is the first request's, as in its `meta`.
const replayed = (stored: Envelope.Body): HttpServerResponse.HttpServerResponse => {
  const requestId = (JSON.parse(stored.body) as { meta?: { request_id?: unknown } }).meta?.request_id
  return Envelope.toResponse(stored, {
    "idempotent-replayed": "true",
    ...(typeof requestId === "string" ? { "x-request-id": requestId } : {})
  })
}

const refused = (message: string) => new Errors.InvalidRequest({ code: "invalid_request", field: "Idempotency-Key", message })

/** The request's `Idempotency-Key`, checked: none when it has none. */
const keyOf = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers["idempotency-key"]
  if (header === undefined) return Effect.succeed(Option.none<Idempotency.Key>())
  if (RawHeaders.count(request, "idempotency-key") > 1) return Effect.fail(refused("Send one Idempotency-Key header, not several."))
  return Option.match(Schema.decodeOption(Idempotency.Key)(header), {
    onNone: () => Effect.fail(refused("Idempotency-Key must be 1–255 printable characters.")),
    onSome: (key) => Effect.succeed(Option.some(key))
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
  body: (idempotencyKey: Idempotency.Key | undefined) => Effect.Effect<Envelope.Body, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  E | Errors.InvalidRequest | Errors.Conflict | Errors.StoreUnavailable,
  R | Idempotency.Idempotency | HttpServerRequest.HttpServerRequest | CheckedBody
> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = yield* keyOf(request)
    if (Option.isNone(key)) return Envelope.toResponse(yield* body(undefined))
    const idempotency = yield* Idempotency.Idempotency
    const { text } = yield* CheckedBody
    const url = request.url.split("?")[0]
    const fingerprint = createHash("sha256").update(`${request.method} ${url}\n${text}`).digest("hex")
    const begun = yield* idempotency.begin(principal.accountId, key.value, fingerprint)
    if (begun._tag === "Replay") return replayed(begun.response)
    const result = yield* body(key.value).pipe(
      Effect.map((done) => ({ done, headers: undefined })),
      Effect.catchAll((error) => {
        const refusal = Option.filter(ErrorResponse.fromFailure(error, request), (refused) => ErrorCodes.status(refused.code) < 500)
        return Option.match(refusal, {
          onNone: () => Effect.fail(error),
          onSome: (refused) => Effect.map(ErrorResponse.body(refused), (done) => ({ done, headers: refused.headers }))
        })
      }),
      Effect.tap(({ done }) => idempotency.complete(begun.reservation, done)),
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.ignore(idempotency.release(begun.reservation)))
    )
    return Envelope.toResponse(result.done, result.headers)
  })
