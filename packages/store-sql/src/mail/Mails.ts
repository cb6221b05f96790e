/**
 * `MailStore` on SQL: the table `sendline_mails`, the mail outbox.
 *
 * Another store write includes its mails by running `insert(sql, mails)` in its own transaction,
 * beside its other statements, so that the mails are written if and only if it commits:
 *
 * ```ts
 * // in a port module's make({ sql, transaction }: Database.Database)
 * insertRelationship: (relationship, event, mails) =>
 *   transaction(Effect.all([
 *     sql`INSERT INTO sendline_brand_relationships ${sql.insert(relationships.encode(relationship))}`,
 *     Events.insert(sql, [event]),
 *     Mails.insert(sql, mails)
 *   ], { discard: true }))
 * ```
 *
 * `Database.transaction`, not `write`: on PostgreSQL `write` runs its statements outside a
 * transaction. The MailSender worker sends them from there (`MailStore.claim` and `record`).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Mail, MailStore } from "@sendline/core"
import type { Context } from "effect"
import { Array as Arr, Effect, Schema } from "effect"
import * as Database from "../Database.js"
import * as Rows from "../Rows.js"

/**
 * `sendline_mails`: a mail per row. `claimed_until`, the store's own, is never read into a mail:
 * `claim` and `record` set it themselves.
 *
 * @since 0.1.0
 * @category tables
 */
export const mails = Rows.table<Mail.Mail>()(
  "sendline_mails",
  Schema.Struct({
    id: Schema.String,
    to: Rows.column("recipient", Schema.String),
    subject: Schema.String,
    text: Rows.column("body", Schema.String),
    status: Mail.MailStatus,
    attempts: Schema.Number,
    nextAttemptAt: Rows.column("next_attempt_at", Rows.Int8),
    sentAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("sent_at")),
    lastError: Rows.nullable(Schema.String).pipe(Schema.fromKey("last_error")),
    createdAt: Rows.column("created_at", Rows.Int8)
  })
)

/**
 * Inserts the mails (none: nothing), in multi-row statements, on the connection of the caller's
 * transaction: run inside another write's transaction, they commit or roll back with it.
 *
 * @since 0.1.0
 * @category statements
 */
export const insert = (sql: SqlClient.SqlClient, written: ReadonlyArray<Mail.Mail>): Effect.Effect<void, SqlError> =>
  Effect.forEach(
    Arr.chunksOf(written, Database.batchLimit),
    (chunk) => sql`INSERT INTO sendline_mails ${sql.insert(chunk.map(mails.encode))}`,
    { discard: true }
  )

/**
 * The ids of up to `limit` pending mails due at `now` whose lease, if any, has ended, the longest
 * due first (the partial index of `0008_mails`).
 *
 * @since 0.1.0
 * @category statements
 */
export const due = (
  sql: SqlClient.SqlClient,
  now: number,
  limit: number
): Statement.Statement<{ readonly id: string }> =>
  sql`SELECT id FROM sendline_mails
    WHERE status = 'pending' AND next_attempt_at <= ${now}
      AND (claimed_until IS NULL OR claimed_until <= ${now})
    ORDER BY next_attempt_at, id
    LIMIT ${limit}`

/** The order in which mails are claimed, as `due` picks them. @since 0.1.0 @category ordering */
export const claimOrder = (a: Mail.Mail, b: Mail.Mail): number =>
  a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * Writes an attempt's bookkeeping over the mail's while it is still pending, and ends its claim;
 * the id when it did.
 *
 * @since 0.1.0
 * @category statements
 */
export const update = (
  sql: SqlClient.SqlClient,
  attempted: Mail.Mail
): Statement.Statement<{ readonly id: string }> => {
  const row = mails.encode(attempted)
  return sql`UPDATE sendline_mails SET status = ${row.status}, attempts = ${row.attempts},
      next_attempt_at = ${row.next_attempt_at}, sent_at = ${row.sent_at}, last_error = ${row.last_error},
      claimed_until = NULL
    WHERE id = ${row.id} AND status = 'pending'
    RETURNING id`
}

/**
 * `MailStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { dialect, read, sql, transaction, write }: Database.Database
): Effect.Effect<Context.Tag.Service<MailStore.MailStore>> =>
  Effect.succeed(MailStore.MailStore.of({
    insert: (written) => written.length === 0 ? Effect.void : transaction(insert(sql, written)),
    findById: (id) => read(Effect.flatMap(sql`SELECT * FROM sendline_mails WHERE id = ${id}`, mails.decodeFirst)),
    claim: (now, limit, leaseUntil) =>
      write(Effect.map(
        Effect.flatMap(dialect.claim(mails.name, due(sql, now, limit), leaseUntil), mails.decode),
        // An UPDATE returns its rows in no set order: the longest due first again, as they were picked.
        (claimed) => [...claimed].sort(claimOrder)
      )),
    record: (attempted) =>
      attempted.length === 0
        ? Effect.succeed([])
        : transaction(Effect.forEach(attempted, (mail) => Effect.map(update(sql, mail), (rows) => rows.length > 0)))
  }))
