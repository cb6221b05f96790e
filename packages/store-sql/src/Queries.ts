/**
 * The statements from which each store's `Dialect` builds its outbox writes and its claim: written
 * once here, combined there in the way each database makes them atomic.
 *
 * @since 0.1.0
 */
import type { Event, Message, MessageStore } from "@sendline/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Rows from "./Rows.js"

/** Inserts the messages, in one multi-row statement. @since 0.1.0 @category statements */
export const insertMessages = (sql: SqlClient.SqlClient, messages: ReadonlyArray<Message.Message>): Statement.Statement<object> =>
  sql`INSERT INTO sendline_messages ${sql.insert(messages.map(Rows.messageRow))}`

/** Inserts the events, in one multi-row statement. @since 0.1.0 @category statements */
export const insertEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<Event.Event>): Statement.Statement<object> =>
  sql`INSERT INTO sendline_events ${sql.insert(events.map(Rows.eventRow))}`

// What a transition sets from `next`: every column `Rows.messageRow` writes but `id` and
// `account_id` (the keys), `created_at` and `idempotency_key`, which a transition never changes.
// `claimed_until`, which `messageRow` does not write, `updateMessages` clears itself.
const changed = [
  "status", "recipient", "sender_id", "body", "segments", "encoding", "market", "reference",
  "callback_url", "price", "error", "scheduled_at", "sent_at", "delivered_at"
] as const

// How each changed column is set from the `VALUES` of `updateMessages`. PostgreSQL gives those
// parameters no type of their own (text, then), so the numeric columns cast theirs; to SQLite the
// same CAST is a conversion to integer (BIGINT has INTEGER affinity).
const setFromNext = changed.map((column) =>
  column === "segments" || column.endsWith("_at") ? `${column} = CAST(next.${column} AS BIGINT)` : `${column} = next.${column}`
).join(", ")

/**
 * Replaces each message by `next` (every column but `id`, `account_id`, `created_at` and
 * `idempotency_key`) while its status is still its `from`, returning the ids of those that were
 * replaced, in one statement (`UPDATE … FROM` a CTE of `VALUES`: SQLite 3.33+ and PostgreSQL).
 * Message.Message ids must be distinct (one row per target). Clears `claimed_until`: a claim is for the
 * work of the status it was taken in, so a message that moves on (scheduled → queued) is at once
 * free for its next work.
 *
 * @since 0.1.0
 * @category statements
 */
export const updateMessages = (
  sql: SqlClient.SqlClient,
  moves: ReadonlyArray<{ readonly next: Message.Message; readonly from: Message.MessageStatus }>
): Statement.Statement<{ readonly id: string }> => {
  // each row's cells as one parenthesised list of parameters
  const values = moves.map(({ from, next }) => {
    const row = Rows.messageRow(next)
    return sql`${sql.in([row.id, row.account_id, from, ...changed.map((column) => row[column])])}`
  })
  return sql`WITH next (id, account_id, from_status, ${sql.literal(changed.join(", "))}) AS (VALUES ${sql.csv(values)})
    UPDATE sendline_messages SET ${sql.literal(setFromNext)}, claimed_until = NULL
    FROM next
    WHERE sendline_messages.id = next.id AND sendline_messages.account_id = next.account_id
      AND sendline_messages.status = next.from_status
    RETURNING sendline_messages.id AS id`
}

/**
 * The ids of up to `limit` messages due for `work` at `now` whose lease, if any, has ended, oldest
 * first: `dispatch` takes `queued` messages by `created_at`, `schedule` takes `scheduled` ones whose
 * `scheduled_at` has come, the most overdue first. Each order is a partial index of `0002_claims`.
 *
 * @since 0.1.0
 * @category statements
 */
export const dueMessages = (
  sql: SqlClient.SqlClient,
  work: MessageStore.ClaimWork,
  now: number,
  limit: number
): Statement.Statement<{ readonly id: string }> =>
  sql`SELECT id FROM sendline_messages
    WHERE ${work === "dispatch" ? sql`status = 'queued'` : sql`status = 'scheduled' AND scheduled_at <= ${now}`}
      AND (claimed_until IS NULL OR claimed_until <= ${now})
    ORDER BY ${work === "dispatch" ? sql`created_at, id` : sql`scheduled_at, id`}
    LIMIT ${limit}`

/** The order in which each kind of work is claimed, as `dueMessages` picks it. @since 0.1.0 @category ordering */
export const claimOrder = (work: MessageStore.ClaimWork) => (a: Message.Message, b: Message.Message): number => {
  const at = (m: Message.Message) => work === "schedule" ? m.scheduledAt ?? 0 : m.createdAt
  return at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}
