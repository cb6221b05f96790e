/**
 * A preview and a batch as the messages group answers them, built without a schema pass; their
 * schemas, and the group's request payloads and query, are `@sendline/api`'s `MessagesJson` (re-exported
 * here) and `BatchesJson`.
 *
 * @since 0.1.0
 */
import type { BatchJson, BatchStatusJson } from "@sendline/api/messaging/BatchesJson"
import type { PreviewResult } from "@sendline/api/messaging/MessagesJson"
import * as Timestamp from "@sendline/api/Timestamp"
import { type Batch, type Batches, type Messaging, Spending } from "@sendline/core"
import { Option } from "effect"

export * from "@sendline/api/messaging/MessagesJson"

/** A preview as JSON. @since 0.1.0 @category encoding */
export const preview = (p: Messaging.Preview): typeof PreviewResult.Encoded => ({
  encoding: p.encoding,
  segments: p.segments,
  characters: p.characters,
  units_per_segment: p.unitsPerSegment,
  ucs2_characters: p.ucs2Characters,
  ...(Option.isSome(p.price) ? { price: p.price.value } : {}),
  ...(Option.isSome(p.spend)
    ? {
      spend: {
        amount: Spending.fromUnits(p.spend.value.amount),
        limit: Option.match(p.spend.value.limit, { onNone: () => null, onSome: Spending.fromUnits }),
        remaining: Option.match(p.spend.value.remaining, { onNone: () => null, onSome: Spending.fromUnits })
      }
    }
    : {})
})

/** A batch as sending it answers: each message's id and status, or its error, in request order. @since 0.3.0 @category encoding */
export const batch = (b: Batch.Batch): BatchJson => ({
  id: b.id,
  accepted: b.accepted,
  rejected: b.rejected,
  created_at: Timestamp.format(b.createdAt),
  messages: b.results.map((result) =>
    "error" in result
      ? { index: result.index, error: result.error }
      : { index: result.index, id: result.id, status: result.status === "scheduled" ? "scheduled" : "queued" }
  )
})

/** A batch as read back, with its messages counted by status. @since 0.3.0 @category encoding */
export const batchStatus = ({ batch: b, statuses }: Batches.BatchStatus): BatchStatusJson => ({
  id: b.id,
  accepted: b.accepted,
  rejected: b.rejected,
  created_at: Timestamp.format(b.createdAt),
  statuses
})
