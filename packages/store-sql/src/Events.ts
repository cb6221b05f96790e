/**
 * `EventStore` on SQL: the table `sendline_events`, which every write of a change fills in the
 * same transaction (the outbox: see `Messages`), and whose `fanned_out_at` the webhook deliveries
 * set once they are decided (`Deliveries`).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { Event, EventStore } from "@sendline/core"
import type { Context } from "effect"
import { Effect, Option, Schema } from "effect"
import type * as Database from "./Database.js"
import * as Rows from "./Rows.js"

/**
 * `sendline_events`: an event per row, its data as JSON. `fanned_out_at`, the store's own, is never
 * read into an event: an inserted event has none (not fanned out yet), and `Deliveries` sets it.
 *
 * @since 0.1.0
 * @category tables
 */
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
      )),
    findById: (accountId, id) =>
      read(Effect.flatMap(
        sql`SELECT * FROM sendline_events WHERE id = ${id} AND account_id = ${accountId}`,
        events.decodeFirst
      )),
    // Keyset pagination, never OFFSET: each filter has an index that ends in (created_at, id) (`0015`).
    list: (accountId, filter, after, limit) => {
      const where = [sql`account_id = ${accountId}`]
      if (filter.type !== undefined) where.push(sql`type = ${filter.type}`)
      if (filter.createdAfter !== undefined) where.push(sql`created_at >= ${filter.createdAfter}`)
      if (Option.isSome(after)) where.push(sql`(created_at, id) < (${after.value.createdAt}, ${after.value.id})`)
      return read(Effect.flatMap(
        sql`SELECT * FROM sendline_events WHERE ${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        events.decode
      ))
    }
  }))
