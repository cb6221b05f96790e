/**
 * The batches of `MessageStore` on SQL (CONTRACT §13): the table `sendline_batches` (`0022_batches`)
 * and a batch's write, in one transaction: the valid messages and their events, their charges in
 * request order, the refused ones taken out again, then the batch's record. A crash at any point
 * leaves all of it or none. A batch's counts by status are read from the index
 * `sendline_messages_batch_status`.
 *
 * @since 0.3.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Batch, Message, MessageMetrics, MessageStore, type SpendingStore } from "@sendline/core"
import type { Context } from "effect"
import { Array as Arr, Effect, Option, Schema } from "effect"
import * as Database from "../Database.js"
import * as Events from "../Events.js"
import * as Migrations from "../Migrations.js"
import * as Rows from "../Rows.js"
import * as KeyedWrites from "./KeyedWrites.js"
import * as Spending from "./Spending.js"

/**
 * `sendline_batches`: a batch per row, what each of its messages came to as JSON.
 *
 * @since 0.3.0
 * @category tables
 */
export const batches = Rows.table<Batch.Batch>()(
  "sendline_batches",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    accepted: Schema.Number,
    rejected: Schema.Number,
    results: Schema.parseJson(Schema.Array(Batch.BatchResult)),
    idempotencyKey: Rows.nullable(Schema.String).pipe(Schema.fromKey("idempotency_key")),
    requestDigest: Rows.nullable(Schema.String).pipe(Schema.fromKey("request_digest")),
    createdAt: Rows.column("created_at", Rows.Int8)
  })
)

type BatchPorts = Pick<
  Context.Tag.Service<MessageStore.MessageStore>,
  "insertBatch" | "findBatch" | "findBatchByIdempotencyKey" | "releaseBatchIdempotencyKey" | "countBatch"
>

const zero: Batch.StatusCounts = {
  scheduled: 0,
  queued: 0,
  sent: 0,
  delivered: 0,
  undelivered: 0,
  failed: 0,
  cancelled: 0
}

/**
 * The batch ports of `MessageStore` on `db`, writing messages with `insertMessages` (`Messages.insert`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  db: Database.Database,
  writes: {
    readonly insert: (messages: ReadonlyArray<Message.Message>) => Statement.Statement<object>
    readonly remove: (accountId: string, ids: ReadonlyArray<string>) => Effect.Effect<void, SqlError>
  }
): BatchPorts => {
  const { dialect, read, sql, unavailable } = db
  const keyed = KeyedWrites.make(db, batches)
  /** Each valid entry's charge, in request order: the refused ones, by index. */
  const charge = (valid: ReadonlyArray<Batch.Valid>) =>
    Effect.map(Spending.chargeAll(sql, valid.map((entry) => entry.charge)), (refusals) => {
      const refused = new Map<number, SpendingStore.SpendingLimitReached>()
      refusals.forEach((refusal, i) => refusal !== undefined && refused.set(valid[i]!.index, refusal))
      return refused
    })

  // The messages first and their charges last: the month's spend row, which every batch of an
  // account charges, is then locked only from the charge to the commit, not while the messages are
  // written (on PostgreSQL, an account's concurrent batches waited on each other: 7,319 messages/s
  // against 12,098 with no charge at all). Those the limit refuses are taken out again.
  const insert = (batch: Batch.NewBatch): Effect.Effect<Batch.Batch, SqlError> =>
    Effect.gen(function*() {
      const valid = batch.entries.filter((entry): entry is Batch.Valid => entry._tag === "Valid")
      for (const chunk of Arr.chunksOf(valid, Database.batchLimit)) {
        yield* writes.insert(chunk.map((entry) => entry.message))
        const events = chunk.flatMap((entry) => Option.toArray(entry.event))
        if (events.length > 0) yield* Events.insert(sql, events)
      }
      const refused = yield* charge(valid)
      if (refused.size > 0) {
        yield* writes.remove(
          batch.accountId,
          valid.filter((entry) => refused.has(entry.index)).map((entry) => entry.message.id)
        )
      }
      const record = Batch.recordOf(batch, refused)
      if (record.accepted === 0) return record
      yield* sql`INSERT INTO sendline_batches ${sql.insert(batches.encode(record))}`
      return record
    })

  return {
    insertBatch: (batch) =>
      sql.withTransaction(insert(batch)).pipe(
        Effect.mapError((error) =>
          batch.idempotencyKey !== undefined && dialect.isUniqueViolation(error, Migrations.batchIdempotencyKeys)
            ? new MessageStore.IdempotencyKeyTaken({ accountId: batch.accountId, key: batch.idempotencyKey })
            : unavailable(error)
        ),
        // Every status a message enters is counted once committed.
        Effect.tap((record) =>
          Effect.sync(() =>
            record.results.forEach((result) => "status" in result && MessageMetrics.messageEntered(result.status))
          )
        )
      ),
    findBatch: (accountId, id) =>
      read(Effect.flatMap(
        sql`SELECT * FROM sendline_batches WHERE id = ${id} AND account_id = ${accountId}`,
        batches.decodeFirst
      )),
    findBatchByIdempotencyKey: keyed.find,
    releaseBatchIdempotencyKey: keyed.release,
    countBatch: (batchId) =>
      read(Effect.map(
        sql<{ readonly status: string; readonly n: number | string }>`SELECT status, COUNT(*) AS n
          FROM sendline_messages WHERE batch_id = ${batchId} GROUP BY status`,
        (rows) => {
          const counts: Record<string, number> = { ...zero }
          for (const row of rows) {
            if (Schema.is(Message.MessageStatus)(row.status)) counts[row.status] = Number(row.n)
          }
          return counts as Batch.StatusCounts
        }
      ))
  }
}
