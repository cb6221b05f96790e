/**
 * The store suite's `TableReader` on PostgreSQL: this test's own SELECTs, never the store's
 * queries, on a pool of its own (it sees what the store committed, as another process would).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { TableReader } from "@sendline/core/testing"
import { Effect, Layer, Option, Redacted } from "effect"

type Row = Readonly<Record<string, unknown>>

// node-postgres answers a BIGINT as text: the times and leases are numbers again here.
const int8 = (value: unknown) => value === null ? null : Number(value)

/** The reader on its own pool to `url` (the suite's schema in its search path). */
export const layer = (url: string): Layer.Layer<TableReader.TableReader> =>
  Layer.effect(
    TableReader.TableReader,
    Effect.map(SqlClient.SqlClient, (sql) =>
      TableReader.TableReader.of({
        message: (id) =>
          sql<Row>`SELECT id, account_id, status, recipient, body, created_at, sent_at, claimed_until
            FROM sendline_messages WHERE id = ${id}`.pipe(
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => ({
                id: row.id as string,
                accountId: row.account_id as string,
                status: row.status as string,
                recipient: row.recipient as string,
                body: row.body as string,
                createdAt: Number(row.created_at),
                sentAt: int8(row.sent_at),
                claimedUntil: int8(row.claimed_until)
              }))
            ),
            Effect.orDie
          ),
        events: (subjectId) =>
          sql<Row>`SELECT id, account_id, subject_id, type, created_at, data
            FROM sendline_events WHERE subject_id = ${subjectId} ORDER BY created_at, id`.pipe(
            Effect.map((rows) =>
              rows.map((row) => ({
                id: row.id as string,
                accountId: row.account_id as string,
                subjectId: row.subject_id as string,
                type: row.type as string,
                createdAt: Number(row.created_at),
                data: JSON.parse(row.data as string) as unknown
              }))
            ),
            Effect.orDie
          ),
        delivery: (id) =>
          sql<Row>`SELECT id, event_id, state, attempt, due_at, claimed_until
            FROM sendline_webhook_deliveries WHERE id = ${id}`.pipe(
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => ({
                id: row.id as string,
                eventId: row.event_id as string,
                state: row.state as string,
                attempt: Number(row.attempt),
                dueAt: Number(row.due_at),
                claimedUntil: Number(row.claimed_until)
              }))
            ),
            Effect.orDie
          )
      }))
  ).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Layer.orDie)
