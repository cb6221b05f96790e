/**
 * `Idempotency-Key` on POST (CONTRACT §1): the first response is kept and replayed byte for byte,
 * a refusal (4xx) as much as a success. What did not run to an answer is not kept, and the key may
 * be retried: a request refused before its handler (400 for a body that does not decode, 401, 429),
 * and one that failed on our side (503, 500). The key is checked here, once (`Idempotency.Key`).
 * An endpoint without effect (preview) may answer more than a key keeps (`Idempotency.maxKeptBytes`):
 * its answer is made with its `meta` fixed first, and a replay computes it again under that `meta`.
 *
 * @since 0.1.0
 */
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { ErrorCodes } from "@sendline/api"
import { CheckedBody } from "@sendline/api/middleware/Pipeline"
import { type Account, Errors, Idempotency, type IdempotencyStore } from "@sendline/core"
import { Clock, Effect, Exit, FiberRef, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as Envelope from "../envelope/Envelope.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"
import * as RequestContext from "../envelope/RequestContext.js"
import * as RawHeaders from "./RawHeaders.js"

/** How an endpoint may be replayed. @since 0.1.0 @category models */
export interface Options {
  /**
   * The endpoint has no effect, and the same request given the same `meta` answers the same
   * bytes (preview): an answer too large to keep is computed again on replay.
   */
  readonly withoutEffect?: boolean | undefined
  /**
   * The most bytes its answer is kept whole up to, when more than `Idempotency.maxKeptBytes` (a
   * batch's answer): replayed byte for byte as any other.
   */
  readonly maxKeptBytes?: number | undefined
}

/** An answer: its body, and the headers of a refusal. */
interface Answered {
  readonly done: Envelope.Body
  readonly headers: Record<string, string> | undefined
}

// A replay carries the first request's id, in `X-Request-Id` as in its `meta`.
const replayed = (done: Envelope.Body, requestId: string | undefined): HttpServerResponse.HttpServerResponse =>
  Envelope.toResponse(done, {
    "idempotent-replayed": "true",
    ...(requestId === undefined ? {} : { "x-request-id": requestId })
  })

/** The request id in a kept body's `meta`. */
const requestIdOf = (body: string): string | undefined => {
  const requestId = (JSON.parse(body) as { meta?: { request_id?: unknown } }).meta?.request_id
  return typeof requestId === "string" ? requestId : undefined
}

/** `handled`'s answer: a refusal (4xx) is an answer as much as a success; a failure on our side stays a failure. */
const answer = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  handled: Effect.Effect<Envelope.Body, E, R>
): Effect.Effect<Answered, E, R> =>
  handled.pipe(
    Effect.map((done) => ({ done, headers: undefined })),
    Effect.catchAll((error) => {
      const refusal = Option.filter(ErrorResponse.fromFailure(error, request), (refused) =>
        ErrorCodes.status(refused.code) < 500)
      return Option.match(refusal, {
        onNone: () =>
          Effect.fail(error),
        onSome: (refused) => Effect.map(ErrorResponse.body(refused), (done) => ({ done, headers: refused.headers }))
      })
    })
  )

/**
 * The replay of a response kept as what recomputes it: `handled` again under the first `meta`,
 * which is the first answer byte for byte unless what it depended on has changed since (a market's
 * price, this version's answer): then a fresh answer, not marked replayed.
 */
const recompute = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  kept: IdempotencyStore.KeptRecompute,
  handled: Effect.Effect<Envelope.Body, E, R>
) =>
  Effect.flatMap(
    Effect.locally(answer(request, handled), RequestContext.current, {
      requestId: kept.requestId,
      answeredAt: kept.answeredAt
    }),
    (again) =>
      Idempotency.isRecomputed(kept, again.done)
        ? Effect.succeed(replayed(again.done, kept.requestId))
        : Effect.map(answer(request, handled), ({ done, headers }) => Envelope.toResponse(done, headers))
  )

const refused = (message: string) =>
  new Errors.InvalidRequest({ code: "invalid_request", field: "Idempotency-Key", message })

/** The request's `Idempotency-Key`, checked: none when it has none. */
const keyOf = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers["idempotency-key"]
  if (header === undefined) return Effect.succeed(Option.none<Idempotency.Key>())
  if (RawHeaders.count(request, "idempotency-key") > 1) {
    return Effect.fail(refused("Send one Idempotency-Key header, not several."))
  }
  return Option.match(Schema.decodeOption(Idempotency.Key)(header), {
    onNone: () => Effect.fail(refused("Idempotency-Key must be 1–255 printable characters.")),
    onSome: (key) => Effect.succeed(Option.some(key))
  })
}

/**
 * Runs `body` under the request's `Idempotency-Key`, if it has one (`body` is given it, or
 * undefined), and answers with its response; the replay of the first response is byte for byte.
 *
 * @since 0.1.0
 * @category combinators
 */
export const run = <E, R>(
  principal: Account.Principal,
  body: (idempotencyKey: Idempotency.Key | undefined) => Effect.Effect<Envelope.Body, E, R>,
  options: Options = {}
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
    if (begun._tag === "Replay") {
      const kept = begun.response
      if (kept._tag === "Body") return replayed(kept, requestIdOf(kept.body))
      if (options.withoutEffect !== true) {
        return yield* Effect.dieMessage("A response kept as what recomputes it, for an endpoint with effects.")
      }
      return yield* recompute(request, kept, body(key.value))
    }
    // Without effect, the answer's meta is fixed first, so that a replay can make the same bytes.
    const meta = options.withoutEffect === true
      ? {
        requestId: (yield* FiberRef.get(RequestContext.current)).requestId,
        answeredAt: yield* Clock.currentTimeMillis
      }
      : undefined
    const answering = answer(request, body(key.value))
    const result = yield* (meta === undefined ? answering : Effect.locally(answering, RequestContext.current, meta))
      .pipe(
        Effect.tap(({ done }) =>
          idempotency.complete(begun.reservation, { ...done, recompute: meta, maxKeptBytes: options.maxKeptBytes })
        ),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? Effect.void : Effect.ignore(idempotency.release(begun.reservation))
        )
      )
    return Envelope.toResponse(result.done, result.headers)
  })
