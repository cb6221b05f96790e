/**
 * Idempotency keys of CONTRACT §1: scoped to the account, kept 24 hours; the same key with the
 * same request replays the first response, with another request it conflicts. A key left in
 * progress past `abandonedAfterMillis` (its process died before answering) is taken over by the
 * same request; `Messaging.send` then finds the message the first attempt created.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Conflict, type StoreUnavailable } from "./Errors.js"
import { IdempotencyStore, type StoredResponse } from "./IdempotencyStore.js"

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

/** Whether `key` is 1–255 printable ASCII characters. @since 0.1.0 @category checks */
export const isValidKey = (key: string): boolean => /^[\x20-\x7e]{1,255}$/.test(key)

/** Reserves, completes and replays idempotency keys. @since 0.1.0 @category services */
export class Idempotency extends Context.Tag("@sendline/core/Idempotency")<Idempotency, {
  /** Reserves the key for this request: none to go ahead, or the first response to replay. */
  readonly begin: (
    accountId: string,
    key: string,
    fingerprint: string
  ) => Effect.Effect<Option.Option<StoredResponse>, Conflict | StoreUnavailable>
  /** Keeps the response of a reserved key for replay. */
  readonly complete: (accountId: string, key: string, response: StoredResponse) => Effect.Effect<void, StoreUnavailable>
  /** Releases a reserved key whose request failed unexpectedly. */
  readonly release: (accountId: string, key: string) => Effect.Effect<void, StoreUnavailable>
}>() {}

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const begin = (accountId: string, key: string, fingerprint: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const held = yield* store.reserve(
        { accountId, key, fingerprint, createdAt: now, response: Option.none() },
        { expired: now - retentionMillis, abandoned: now - abandonedAfterMillis }
      )
      if (Option.isNone(held)) return Option.none<StoredResponse>()
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
      return held.value.response
    })
  return Idempotency.of({ begin, complete: store.complete, release: store.release })
})

/** @since 0.1.0 @category layers */
export const layer: Layer.Layer<Idempotency, never, IdempotencyStore> = Layer.effect(Idempotency, make)
