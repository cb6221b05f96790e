/**
 * `QueueDepths` on the tables the workers claim from: one statement for every queue, each part
 * walking the partial index its worker claims through (`0002_claims`, `0008_mails`,
 * `0012_sender_id_registrations`, `0015_webhook_deliveries`) from its longest due item, and
 * stopping after `limit` items. A scrape costs the same with ten items due or ten million.
 *
 * The status of each partial index is written as a literal, never a parameter, so that both
 * databases' planners match the index's own `WHERE`.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { QueueDepths } from "@sendline/core"
import { Effect, Schema } from "effect"
import type * as Database from "./Database.js"
import * as Rows from "./Rows.js"

/** A queue: its table, the partial index's condition, and the column its items fall due by. */
interface Source {
  readonly queue: QueueDepths.StoredQueue
  readonly table: string
  /** The condition of the partial index, as written in its migration. */
  readonly pending: string
  /** The column whose time an item falls due at: the partial index's first column. */
  readonly dueAt: string
  /** Whether an item is due only once that time has come (a queued message is due at once). */
  readonly timed: boolean
}

const sources: ReadonlyArray<Source> = [
  { queue: "dispatch", table: "sendline_messages", pending: "status = 'queued'", dueAt: "created_at", timed: false },
  {
    queue: "scheduled",
    table: "sendline_messages",
    pending: "status = 'scheduled'",
    dueAt: "scheduled_at",
    timed: true
  },
  { queue: "mail", table: "sendline_mails", pending: "status = 'pending'", dueAt: "next_attempt_at", timed: true },
  {
    queue: "webhook_deliveries",
    table: "sendline_webhook_deliveries",
    pending: "state = 'pending'",
    dueAt: "due_at",
    timed: true
  },
  { queue: "expiry", table: "sendline_sender_ids", pending: "watch_at IS NOT NULL", dueAt: "watch_at", timed: true }
]

const decodeRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  queue: QueueDepths.StoredQueue,
  due: Rows.Int8,
  oldest: Schema.NullOr(Rows.Int8)
})))

/**
 * The depths of every stored queue at `now`, each counted up to `limit`, in one statement: per
 * queue, the first `limit` due items in index order, counted, and the first one's due time.
 *
 * @since 0.1.0
 * @category statements
 */
export const depths = (sql: SqlClient.SqlClient, now: number, limit: number): Statement.Statement<object> => {
  const parts = sources.map(({ dueAt, pending, queue, table, timed }) =>
    sql`SELECT ${sql.literal(`'${queue}'`)} AS queue, COUNT(*) AS due, MIN(at) AS oldest FROM (
      SELECT ${sql.literal(dueAt)} AS at FROM ${sql.literal(table)}
      WHERE ${sql.literal(pending)}${timed ? sql` AND ${sql.literal(dueAt)} <= ${now}` : sql``}
      ORDER BY ${sql.literal(dueAt)} LIMIT ${limit}
    ) ${sql.literal(`${queue}_due`)}`
  )
  return sql`${sql.join(" UNION ALL ", false)(parts)}`
}

/**
 * `QueueDepths` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = ({ read, sql }: Database.Database): Effect.Effect<QueueDepths.QueueDepths["Type"]> =>
  Effect.succeed(QueueDepths.QueueDepths.of({
    read: (now, limit) =>
      read(depths(sql, now, limit)).pipe(
        // a row that does not decode is a defect of this module, never the database's failure
        Effect.flatMap((rows) => Effect.orDie(decodeRows(rows))),
        Effect.map((rows) => {
          const byQueue = new Map(rows.map((row) => [row.queue, row]))
          return QueueDepths.StoredQueue.literals.map((queue) => {
            const row = byQueue.get(queue)
            return { queue, due: row?.due ?? 0, oldestDueAt: row?.oldest ?? undefined }
          })
        })
      )
  }))
