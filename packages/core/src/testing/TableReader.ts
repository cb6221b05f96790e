/**
 * What the store suite reads of a store's tables without the store: each store's test implements
 * it in its own SQL on its own client, so that the suite checks what a store wrote (the outbox, the
 * transitions, the claims) as the tables hold it, and a store cannot pass by agreeing with itself
 * (as Auth.js's adapter tests read the database). Core knows no SQL: only the rows' shape is here.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"

/**
 * A row of `sendline_messages`: `id`, `account_id`, `status`, `recipient`, `body`, `created_at`,
 * `sent_at` and `claimed_until` (null: no claim), as stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageRow {
  readonly id: string
  readonly accountId: string
  readonly status: string
  readonly recipient: string
  readonly body: string
  readonly createdAt: number
  readonly sentAt: number | null
  readonly claimedUntil: number | null
}

/**
 * A row of `sendline_events`: `id`, `account_id`, `subject_id`, `type`, `created_at` and `data`
 * (its JSON text parsed).
 *
 * @since 0.1.0
 * @category models
 */
export interface EventRow {
  readonly id: string
  readonly accountId: string
  readonly subjectId: string
  readonly type: string
  readonly createdAt: number
  readonly data: unknown
}

/**
 * A row of `sendline_webhook_deliveries`: `id`, `event_id`, `state`, `attempt`, `due_at` and
 * `claimed_until` (0: no claim), as stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeliveryRow {
  readonly id: string
  readonly eventId: string
  readonly state: string
  readonly attempt: number
  readonly dueAt: number
  readonly claimedUntil: number
}

/** A store's tables read by its test's own queries, on the suite's database. @since 0.1.0 @category services */
export class TableReader extends Context.Tag("@sendline/core/testing/TableReader")<TableReader, {
  /** The row of the message `id`, if any, whatever its account. */
  readonly message: (id: string) => Effect.Effect<Option.Option<MessageRow>>
  /** The rows of the events whose `subject_id` is `subjectId`, by `created_at`, then `id`. */
  readonly events: (subjectId: string) => Effect.Effect<ReadonlyArray<EventRow>>
  /** The row of the delivery `id`, if any, whatever its account. */
  readonly delivery: (id: string) => Effect.Effect<Option.Option<DeliveryRow>>
}>() {}
