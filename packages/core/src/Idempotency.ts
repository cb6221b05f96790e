/**
 * Idempotency keys of CONTRACT §1: scoped to the account, kept 24 hours; the same key with the
 * same request replays the first response, with another request it conflicts. A key left in
 * progress past `abandonedAfterMillis` (its process died before answering) is taken over by the
 * same request; `Messaging.send` then finds the message the first attempt created.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { Conflict, type StoreUnavailable } from "./Errors.js"
import { IdempotencyStore, type Reservation, type StoredResponse } from "./IdempotencyStore.js"
import * as UseCase from "./internal/useCase.js"

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

/** What `begin` found: the key reserved for this request, or the first response to replay. @since 0.1.0 @category models */
export type Begun =
  | { readonly _tag: "Reserved"; readonly reservation: Reservation }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }

/** Reserves, completes and replays idempotency keys. @since 0.1.0 @category services */
export class Idempotency extends Context.Tag("@sendline/core/Idempotency")<Idempotency, {
  /** Reserves the key for this request, or answers the first response to replay. */
  readonly begin: (accountId: string, key: string, fingerprint: string) => Effect.Effect<Begun, Conflict | StoreUnavailable>
  /** Keeps the response for replay, unless another request has taken the key over meanwhile. */
  readonly complete: (reservation: Reservation, response: StoredResponse) => Effect.Effect<void, StoreUnavailable>
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
  return Idempotency.of({ begin, complete: store.complete, release: store.release })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Idempotency, never, IdempotencyStore> = Layer.effect(Idempotency, make)
