/**
 * Batches (CONTRACT §13): the record `bat_…` of one request that sent many messages, what each
 * message of it came to, and what a store is given to write one.
 *
 * @since 0.3.0
 */
import type { Option } from "effect"
import { Schema } from "effect"
import type { Event } from "../Event.js"
import type { Message } from "./Message.js"
import { MessageStatus } from "./Message.js"
import type { Charge, SpendingLimitReached } from "./SpendingStore.js"

/** Why one message of a batch was refused: its rule's code, a sentence, and the field at fault. @since 0.3.0 @category models */
export const BatchError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  field: Schema.optional(Schema.String)
})
/** Why one message of a batch was refused. @since 0.3.0 @category models */
export type BatchError = typeof BatchError.Type

/** What one message of a batch came to, by its `index` in the request (from 0): a message, or its refusal. @since 0.3.0 @category models */
export const BatchResult = Schema.Union(
  Schema.Struct({ index: Schema.Number, id: Schema.String, status: MessageStatus }),
  Schema.Struct({ index: Schema.Number, error: BatchError })
)
/** What one message of a batch came to. @since 0.3.0 @category models */
export type BatchResult = typeof BatchResult.Type

/**
 * A batch `bat_…`: how many of its messages were accepted and rejected, and what each came to, in
 * request order (the answer to the request, kept for an idempotent retry); `createdAt` in epoch ms.
 *
 * @since 0.3.0
 * @category models
 */
export interface Batch {
  readonly id: string
  readonly accountId: string
  readonly accepted: number
  readonly rejected: number
  readonly createdAt: number
  readonly results: ReadonlyArray<BatchResult>
  /** The `Idempotency-Key` it was sent with: a retry of that request finds it instead of sending again. */
  readonly idempotencyKey?: string | undefined
  /** A digest of the request: a retry with its key must ask the same. */
  readonly requestDigest?: string | undefined
}

/** The count of a batch's messages in each status, every status named. @since 0.3.0 @category models */
export type StatusCounts = { readonly [S in MessageStatus]: number }

/** One message of a new batch that passed its checks: written with its event and charge unless the limit refuses it. @since 0.3.0 @category models */
export interface Valid {
  readonly _tag: "Valid"
  readonly index: number
  readonly message: Message
  readonly event: Option.Option<Event>
  readonly charge: Charge
}

/** One message of a new batch that broke a rule: never written. @since 0.3.0 @category models */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly index: number
  readonly error: BatchError
}

/**
 * A batch to write (`MessageStore.insertBatch`): its record's fields, its entries in request order,
 * and the refusal a valid message gets when the spending limit refuses it.
 *
 * @since 0.3.0
 * @category models
 */
export interface NewBatch {
  readonly id: string
  readonly accountId: string
  readonly createdAt: number
  readonly idempotencyKey?: string | undefined
  readonly requestDigest?: string | undefined
  readonly entries: ReadonlyArray<Valid | Invalid>
  readonly refused: (refusal: SpendingLimitReached, message: Message) => BatchError
}

/**
 * The record of `batch` once its spending refusals are known (`refused`, by entry index): its
 * results in request order, and the counts.
 *
 * @since 0.3.0
 * @category constructors
 */
export const recordOf = (batch: NewBatch, refused: ReadonlyMap<number, SpendingLimitReached>): Batch => {
  const results = batch.entries.map((entry): BatchResult => {
    if (entry._tag === "Invalid") return { index: entry.index, error: entry.error }
    const refusal = refused.get(entry.index)
    return refusal === undefined
      ? { index: entry.index, id: entry.message.id, status: entry.message.status }
      : { index: entry.index, error: batch.refused(refusal, entry.message) }
  })
  const accepted = results.filter((result) => "id" in result).length
  return {
    id: batch.id,
    accountId: batch.accountId,
    accepted,
    rejected: results.length - accepted,
    createdAt: batch.createdAt,
    results,
    ...(batch.idempotencyKey === undefined ? {} : { idempotencyKey: batch.idempotencyKey }),
    ...(batch.requestDigest === undefined ? {} : { requestDigest: batch.requestDigest })
  }
}
