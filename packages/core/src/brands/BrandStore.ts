/**
 * Storage port for brands and their relationships. A brand is written with its relationship, its
 * event and its mail, if any, in one transaction (the outbox, as messages are); a status changes only from
 * the status stored, with its event in the same transaction.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"
import type { Event } from "../Event.js"
import type { IdempotencyKeyTaken } from "../idempotency/Idempotency.js"
import type { Mail } from "../mail/Mail.js"
import type { Keyset } from "../Pagination.js"
import type { Brand, BrandRelationship, BrandStatus, Linked, RelationshipStatus } from "./Brand.js"

/** Brands, their relationships and their events. @since 0.1.0 @category ports */
export class BrandStore extends Context.Tag("@sendline/core/BrandStore")<BrandStore, {
  /**
   * Inserts a new brand, its relationship, its events and its mails (the outbox), in one
   * transaction: all or nothing. A relationship's `idempotencyKey` is unique among its provider's,
   * across processes: when another relationship of the provider holds it, nothing is written and
   * the insert fails `IdempotencyKeyTaken`. With `limit`, the provider's relationships created in
   * its window are counted in the same transaction, one provider's inserts one after another
   * across processes: when they are `limit.max` already, nothing is written and the insert fails
   * `SubmissionLimitReached`, naming the oldest of them.
   */
  readonly insert: (
    brand: Brand,
    relationship: BrandRelationship,
    events: ReadonlyArray<Event>,
    mails: ReadonlyArray<Mail>,
    limit?: SubmissionLimit
  ) => Effect.Effect<void, IdempotencyKeyTaken | SubmissionLimitReached | StoreUnavailable>
  /** The brand the provider `accountId` created under this idempotency key at or after `since`, with its relationship, if any. */
  readonly findByIdempotencyKey: (
    accountId: string,
    key: string,
    since: number
  ) => Effect.Effect<Option.Option<Linked>, StoreUnavailable>
  /**
   * Takes the idempotency key `key` off the provider's relationships created before `before`, so
   * that a new brand may be created under it once its retention has passed.
   */
  readonly releaseIdempotencyKey: (
    accountId: string,
    key: string,
    before: number
  ) => Effect.Effect<void, StoreUnavailable>
  /** The brand `id` with its relationship, whoever's it is: the use case decides who may see it. */
  readonly findById: (id: string) => Effect.Effect<Option.Option<Linked>, StoreUnavailable>
  /** The relationship `id` with its brand, whoever's it is. */
  readonly findRelationship: (id: string) => Effect.Effect<Option.Option<Linked>, StoreUnavailable>
  /**
   * Replaces what a brand's provider may change (`name`, `contact`, `website`), leaving its status
   * as stored. With `reopen`, in the same transaction, its relationship goes back from `approved` to
   * `pending` (its `decidedAt` cleared) with `reopen.mails`; when the relationship is not approved
   * any more (another change reopened it meanwhile), nothing is written. Whether it wrote.
   */
  readonly update: (brand: Brand, reopen?: Reopen) => Effect.Effect<boolean, StoreUnavailable>
  /**
   * Applies the moves in order, in one transaction: each replaces its brand's status with
   * `next.status` only while the stored status is still its `from`, writing its event with it;
   * for each move, whether it did.
   */
  readonly transition: (moves: ReadonlyArray<Move>) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
  /**
   * Applies the moves in order, in one transaction: each sets its relationship's status and
   * `decidedAt` from `next` only while the stored status is still its `from`; for each, whether it did.
   */
  readonly transitionRelationships: (
    moves: ReadonlyArray<RelationshipMove>
  ) => Effect.Effect<ReadonlyArray<boolean>, StoreUnavailable>
  /**
   * The brands `accountId` may read, newest first (createdAt desc, id desc), after `after`: those
   * of its approved relationships, and those whose identifier it owns (`AccountStore.findBrandOwner`).
   */
  readonly list: (
    accountId: string,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Brand>, StoreUnavailable>
  /**
   * The relationships `accountId` may read, with their brands, newest first, after `after`: its
   * own (as the provider), and those of the brands whose identifier it owns; of `status` when given.
   */
  readonly listRelationships: (
    accountId: string,
    filter: RelationshipFilter,
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Linked>, StoreUnavailable>
}>() {}

/** One status change of a brand: `next` replaces its status while it is `from`. @since 0.1.0 @category models */
export interface Move {
  readonly next: Brand
  readonly from: BrandStatus
  /** The `brand.*` event the change emits, written only if the move happens. */
  readonly event: Option.Option<Event>
}

/** One decision on a relationship: `next` replaces its status and `decidedAt` while it is `from`. @since 0.1.0 @category models */
export interface RelationshipMove {
  readonly next: BrandRelationship
  readonly from: RelationshipStatus
}

/**
 * The most brands one provider creates in a window: at most `max` relationships of the new one's
 * provider created at or after `since`, the new one included.
 *
 * @since 0.1.0
 * @category models
 */
export interface SubmissionLimit {
  readonly max: number
  readonly since: number
}

/** A relationship set back to pending by a change of its brand, and the mails that tell its contact. @since 0.1.0 @category models */
export interface Reopen {
  readonly relationshipId: string
  readonly mails: ReadonlyArray<Mail>
}

/**
 * An insert refused by its `SubmissionLimit`: the provider has created `max` brands in the window
 * already, the oldest of them at `oldestAt`.
 *
 * @since 0.1.0
 * @category errors
 */
export class SubmissionLimitReached
  extends Schema.TaggedError<SubmissionLimitReached>("@sendline/core/SubmissionLimitReached")(
    "SubmissionLimitReached",
    { accountId: Schema.String, oldestAt: Schema.Number }
  )
{}

/** The filters of `listRelationships`. @since 0.1.0 @category models */
export interface RelationshipFilter {
  readonly status?: RelationshipStatus | undefined
}
