/**
 * The store suite's `TableReader` on SQLite: this test's own SELECTs, never the store's queries, on
 * the client it is given (for a file, a read-only connection of its own; for `:memory:`, which no
 * other connection can open, the store's).
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { TableReader } from "@sendline/core/testing"
import { Effect, Layer, Option } from "effect"

/** The one row a read by primary key finds, if any; a failure of the database fails the test. */
const first = <A>(rows: Effect.Effect<ReadonlyArray<A>, SqlError>) =>
  Effect.orDie(Effect.map(rows, (found) => Option.fromNullable(found[0])))

/** The reader on the `SqlClient` given. */
export const layer: Layer.Layer<TableReader.TableReader, never, SqlClient.SqlClient> = Layer.effect(
  TableReader.TableReader,
  Effect.map(SqlClient.SqlClient, (sql) =>
    TableReader.TableReader.of({
      message: (id) =>
        first(sql<TableReader.MessageRow>`SELECT id, account_id AS "accountId", status, recipient, body,
            created_at AS "createdAt", sent_at AS "sentAt", claimed_until AS "claimedUntil"
          FROM sendline_messages WHERE id = ${id}`),
      events: (subjectId) =>
        sql<Omit<TableReader.EventRow, "data"> & { readonly data: string }>`SELECT id, account_id AS "accountId",
            subject_id AS "subjectId", type, created_at AS "createdAt", data
          FROM sendline_events WHERE subject_id = ${subjectId} ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map((row) => ({ ...row, data: JSON.parse(row.data) as unknown }))),
          Effect.orDie
        ),
      delivery: (id) =>
        first(sql<TableReader.DeliveryRow>`SELECT id, event_id AS "eventId", state, attempt, due_at AS "dueAt",
            claimed_until AS "claimedUntil"
          FROM sendline_webhook_deliveries WHERE id = ${id}`)
    }))
)

/** The reader on a read-only connection of its own to the database file `filename`. */
export const layerFile = (filename: string): Layer.Layer<TableReader.TableReader> =>
  layer.pipe(Layer.provide(SqliteClient.layer({ filename, readonly: true, disableWAL: true })), Layer.orDie)
