/**
 * Idempotency keys of CONTRACT §1: scoped to the account, kept 24 hours; the same key with the
 * same request replays the first response, with another request it conflicts. A key left in
 * progress past `abandonedAfterMillis` (its process died before answering) is taken over by the
 * same request; `Messaging.send` then finds the message the first attempt created (`Brands.create`
 * its brand). A key keeps at
 * most `maxKeptBytes` of its response: a larger answer is kept as what recomputes it, which only an
 * endpoint without effect may ask for.
 *
 * @since 0.1.0
 */
import { Conflict, type StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { Buffer } from "node:buffer"
import { createHash } from "node:crypto"
import * as UseCase from "../internal/useCase.js"
import {
  type AnswerMeta,
  IdempotencyStore,
  type KeptRecompute,
  type Reservation,
  type StoredResponse
} from "./IdempotencyStore.js"

/** How long a key is kept. @since 0.1.0 @category constants */
export const retentionMillis = 24 * 3_600_000

/**
 * How long a key may stay "in progress": past this, the same request may take it over (no request
 * runs this long, so its process died before it could answer).
 *
 * @since 0.1.0
 * @category constants
 */
export const abandonedAfterMillis = 60_000

/**
 * The most bytes (UTF-8) of a response that a key keeps whole. A larger answer is kept as its
 * status, `meta` and digest (`KeptRecompute`), and computed again on replay: only an endpoint
 * without effect may answer that much (an endpoint with effects answering more is a defect).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxKeptBytes = 16 * 1024

/**
 * An answer to keep for replay: its status and body and, from an endpoint without effect (the same
 * request, given the same `meta`, answers the same bytes), the `meta` it was made with, so that an
 * answer over `maxKeptBytes` may be kept as what recomputes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  readonly status: number
  readonly body: string
  readonly recompute?: AnswerMeta | undefined
  /**
   * The most bytes this endpoint's answer is kept whole up to, over `maxKeptBytes` (since 0.3.0): a
   * batch's answer, which names each of up to 1,000 messages, is kept whole and replayed byte for byte.
   */
  readonly maxKeptBytes?: number | undefined
}

const digest = (body: string): string => createHash("sha256").update(body).digest("hex")

/** Whether `answer` is, byte for byte, the answer `kept` was made from. @since 0.1.0 @category replay */
export const isRecomputed = (
  kept: KeptRecompute,
  answer: { readonly status: number; readonly body: string }
): boolean => answer.status === kept.status && digest(answer.body) === kept.digest

/** What a key keeps of `answer`: at most `maxKeptBytes`, the one place that bound is applied. */
const keep = (answer: Answer): Effect.Effect<StoredResponse> => {
  const bytes = Buffer.byteLength(answer.body)
  if (bytes <= Math.max(maxKeptBytes, answer.maxKeptBytes ?? 0)) {
    return Effect.succeed({ _tag: "Body", status: answer.status, body: answer.body })
  }
  if (answer.recompute === undefined) {
    return Effect.dieMessage(
      `An answer of ${bytes} bytes from an endpoint with effects cannot be kept for replay (at most ${maxKeptBytes}).`
    )
  }
  const { answeredAt, requestId } = answer.recompute
  return Effect.succeed({
    _tag: "Recompute",
    status: answer.status,
    requestId,
    answeredAt,
    digest: digest(answer.body)
  })
}

/**
 * An idempotency key: 1–255 printable ASCII characters. Checked once, where it comes in (the HTTP
 * header, an embedder's input); a `Key` is valid wherever it goes.
 *
 * @since 0.1.0
 * @category models
 */
export const Key = Schema.String.pipe(
  Schema.pattern(/^[\x20-\x7e]{1,255}$/, { message: () => "must be 1–255 printable ASCII characters" }),
  Schema.brand("@sendline/core/Idempotency/Key")
).annotations({ identifier: "IdempotencyKey" })
/** An idempotency key, checked. @since 0.1.0 @category models */
export type Key = typeof Key.Type

/** Whether `key` is 1–255 printable ASCII characters. @since 0.1.0 @category checks */
export const isValidKey: (key: string) => key is Key = Schema.is(Key)

/**
 * A store wrote nothing: the record's idempotency key is held by another record of its account (a
 * message of the account, a brand relationship of the provider), unique in the store across
 * processes. An expected outcome, not a failure of the store: the use case looks the holder up to
 * answer it, or releases an expired key (`internal/findOrInsert`).
 *
 * @since 0.1.0
 * @category errors
 */
export class IdempotencyKeyTaken extends Schema.TaggedError<IdempotencyKeyTaken>("@sendline/core/IdempotencyKeyTaken")(
  "IdempotencyKeyTaken",
  { accountId: Schema.String, key: Schema.String }
) {}

/**
 * What `begin` found: the key reserved for this request, or the first response to replay (whole, or
 * as what recomputes it).
 *
 * @since 0.1.0
 * @category models
 */
export type Begun =
  | { readonly _tag: "Reserved"; readonly reservation: Reservation }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }

/** Reserves, completes and replays idempotency keys. @since 0.1.0 @category services */
export class Idempotency extends Context.Tag("@sendline/core/Idempotency")<Idempotency, {
  /** Reserves the key for this request, or answers the first response to replay. */
  readonly begin: (
    accountId: string,
    key: string,
    fingerprint: string
  ) => Effect.Effect<Begun, Conflict | StoreUnavailable>
  /**
   * Keeps the answer for replay (whole up to `maxKeptBytes`, else as what recomputes it: an answer
   * over it without `recompute` is a defect), unless another request has taken the key over meanwhile.
   */
  readonly complete: (reservation: Reservation, answer: Answer) => Effect.Effect<void, StoreUnavailable>
  /** Frees the key of a request that failed unexpectedly, unless another request has taken it over. */
  readonly release: (reservation: Reservation) => Effect.Effect<void, StoreUnavailable>
}>() {}

/** Builds the idempotency use case on the idempotency store. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const store = yield* IdempotencyStore
  const begin = fn("Idempotency.begin")(
    function*(accountId: string, key: string, fingerprint: string) {
      const now = yield* Clock.currentTimeMillis
      const reservation: Reservation = { accountId, key, createdAt: now }
      const held = yield* store.reserve(
        { ...reservation, fingerprint, response: Option.none() },
        { expired: now - retentionMillis, abandoned: now - abandonedAfterMillis }
      )
      if (Option.isNone(held)) return { _tag: "Reserved", reservation } satisfies Begun
      if (held.value.fingerprint !== fingerprint) {
        return yield* new Conflict({
          code: "idempotency_conflict",
          message: "This Idempotency-Key was already used with a different request."
        })
      }
      if (Option.isNone(held.value.response)) {
        return yield* new Conflict({
          code: "idempotency_in_progress",
          message: "A request with this Idempotency-Key is still in progress."
        })
      }
      return { _tag: "Replay", response: held.value.response.value } satisfies Begun
    }
  )
  const complete = (reservation: Reservation, answer: Answer) =>
    Effect.flatMap(keep(answer), (kept) => store.complete(reservation, kept))
  return Idempotency.of({ begin, complete, release: store.release })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Idempotency, never, IdempotencyStore> = Layer.effect(Idempotency, make)
