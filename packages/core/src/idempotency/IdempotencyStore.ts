/**
 * Storage port for idempotency keys (CONTRACT §1): a unique (account, key) row reserved before the
 * request runs, holding the response once it is done.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"

/**
 * The `meta` of an answer (CONTRACT §1): the id of the request it answered, and when it was made
 * (epoch milliseconds).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AnswerMeta = Schema.Struct({ requestId: Schema.String, answeredAt: Schema.Number })
/** The `meta` of an answer. @since 0.1.0 @category models */
export type AnswerMeta = typeof AnswerMeta.Type

/** A response kept whole, for replay byte for byte. @since 0.1.0 @category schemas */
export const KeptBody = Schema.TaggedStruct("Body", { status: Schema.Number, body: Schema.String })
/** A response kept whole. @since 0.1.0 @category models */
export type KeptBody = typeof KeptBody.Type

/**
 * A response too large to keep, of an endpoint without effect: its status, its `meta` and a
 * digest (SHA-256, hex) of its body, from which the endpoint computes the same bytes again.
 *
 * @since 0.1.0
 * @category schemas
 */
export const KeptRecompute = Schema.TaggedStruct("Recompute", {
  status: Schema.Number,
  ...AnswerMeta.fields,
  digest: Schema.String
})
/** A response kept as what recomputes it. @since 0.1.0 @category models */
export type KeptRecompute = typeof KeptRecompute.Type

/**
 * A response kept for replay: whole, or as what recomputes it (`Idempotency.maxKeptBytes` decides).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredResponse = Schema.Union(KeptBody, KeptRecompute)
/** A response kept for replay. @since 0.1.0 @category models */
export type StoredResponse = typeof StoredResponse.Type

/**
 * A key as held by one request: its account, the key, and when it was reserved, which tells it
 * from a later holder of the same key (one that took it over).
 *
 * @since 0.1.0
 * @category models
 */
export interface Reservation {
  readonly accountId: string
  readonly key: string
  readonly createdAt: number
}

/** One idempotency key of one account. @since 0.1.0 @category models */
export interface IdempotencyRecord extends Reservation {
  /** A digest of method, path and body: the same key with another request is a conflict. */
  readonly fingerprint: string
  readonly response: Option.Option<StoredResponse>
}

/**
 * When a held key may be taken over (epoch milliseconds): any row created before `expired`; an
 * in-progress row of the same request created before `abandoned`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReserveCutoffs {
  readonly expired: number
  readonly abandoned: number
}

/** Idempotency keys. @since 0.1.0 @category ports */
export class IdempotencyStore extends Context.Tag("@sendline/core/IdempotencyStore")<IdempotencyStore, {
  /**
   * Atomically reserves `record`'s key unless a live row holds it: none when reserved, else the
   * row that holds it. A row is replaced when it was created before `cutoffs.expired`, or when it
   * is still in progress, was created before `cutoffs.abandoned` and has `record`'s fingerprint
   * (the same request again, after the process that ran it died).
   */
  readonly reserve: (
    record: IdempotencyRecord,
    cutoffs: ReserveCutoffs
  ) => Effect.Effect<Option.Option<IdempotencyRecord>, StoreUnavailable>
  /** Keeps the response for replay, while `reservation` still holds the key (else does nothing). */
  readonly complete: (reservation: Reservation, response: StoredResponse) => Effect.Effect<void, StoreUnavailable>
  /** Forgets `reservation`, if it still holds the key, so that the key may be retried. */
  readonly release: (reservation: Reservation) => Effect.Effect<void, StoreUnavailable>
  /** Deletes up to `limit` records created before `before` (epoch ms), oldest first; how many it deleted. */
  readonly purge: (before: number, limit: number) => Effect.Effect<number, StoreUnavailable>
}>() {}
