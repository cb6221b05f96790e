/**
 * `EventStore` on SQL: the table `sendline_events`, which the message writes fill in the same
 * transaction as the change (the outbox: see `Messages`).
 *
 * @since 0.1.0
 */
import { Event, EventStore } from "@sendline/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { Context } from "effect"
import { Effect, Schema } from "effect"
import type * as Database from "./Database.js"
import * as Rows from "./Rows.js"

/** `sendline_events`: an event per row, its data as JSON. @since 0.1.0 @category tables */
export const events = Rows.table<Event.Event>()(
  "sendline_events",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    type: Event.EventType,
    subjectId: Rows.column("subject_id", Schema.String),
    createdAt: Rows.column("created_at", Rows.Int8),
    data: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  })
)

/** Inserts the events, in one multi-row statement. @since 0.1.0 @category statements */
export const insert = (sql: SqlClient.SqlClient, written: ReadonlyArray<Event.Event>): Statement.Statement<object> =>
  sql`INSERT INTO sendline_events ${sql.insert(written.map(events.encode))}`

/**
 * `EventStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = ({ read, sql }: Database.Database): Effect.Effect<Context.Tag.Service<EventStore.EventStore>> =>
  Effect.succeed(EventStore.EventStore.of({
    listBySubject: (accountId, subjectId) =>
      read(Effect.flatMap(
        sql`SELECT * FROM sendline_events WHERE account_id = ${accountId} AND subject_id = ${subjectId}
          ORDER BY created_at, id`,
        events.decode
      ))
  }))
