/**
 * `SenderIdStore` on SQL: the tables `sendline_sender_ids`, `sendline_sender_id_holds` (which
 * legal entity holds a Sender ID string and its look-alikes in a market, by `SenderId.skeleton`)
 * and `sendline_operator_registrations` (`Registrations`). A record is written with its registrations and events in one transaction (the
 * outbox), and changed only over the version it was read at. Every send looks up its registered
 * Sender ID, so concurrent lookups share one `IN (VALUES …)` query (see `Batcher`).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { SenderId, SenderIdStore } from "@sendline/core"
import type { Event } from "@sendline/core"
import type { Context, Scope } from "effect"
import { Effect, Option, Schema } from "effect"
import * as Accounts from "../accounts/Accounts.js"
import * as Batcher from "../Batcher.js"
import * as Database from "../Database.js"
import * as Events from "../Events.js"
import * as Migrations from "../Migrations.js"
import * as Rows from "../Rows.js"
import * as Registrations from "./Registrations.js"

/**
 * `sendline_sender_ids`: a Sender ID record per row. `watch_at`, `skeleton` and `claimed_until`,
 * the store's own, are never read into a record: `row` writes the first two, `claimWatched` and
 * every move the third.
 *
 * @since 0.1.0
 * @category tables
 */
export const senderIds = Rows.table<SenderId.SenderIdRecord>()(
  "sendline_sender_ids",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    senderId: Rows.column("sender_id", Schema.String),
    market: Schema.String,
    brandName: Rows.column("brand_name", Schema.String),
    identifierType: Rows.column("identifier_type", Schema.String),
    identifierValue: Rows.column("identifier_value", Schema.String),
    status: SenderId.SenderIdStatus,
    createdAt: Rows.column("created_at", Rows.Int8),
    registeredAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("registered_at")),
    expiresAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("expires_at")),
    brandId: Rows.nullable(Schema.String).pipe(Schema.fromKey("brand_id")),
    useCase: Rows.nullable(Schema.String).pipe(Schema.fromKey("use_case")),
    matchType: Rows.nullable(SenderId.MatchType).pipe(Schema.fromKey("match_type")),
    matchValue: Rows.nullable(Schema.String).pipe(Schema.fromKey("match_value")),
    warnedExpiresAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("warned_expires_at")),
    version: Rows.Int8
  })
)

/**
 * The row of `record`, with `watch_at`, when the expiry watcher must look at it
 * (`SenderId.watchAt`), and its Sender ID's `skeleton`, and without `claimed_until`.
 *
 * @since 0.1.0
 * @category tables
 */
export const row = (record: SenderId.SenderIdRecord) => ({
  ...senderIds.encode(record),
  watch_at: SenderId.watchAt(record) ?? null,
  skeleton: SenderId.skeleton(record.senderId)
})

// What a move sets from `next`: every column of its row but `id`, `account_id` and `created_at`,
// which never change, and `version`, which it sets itself.
const changed = (next: SenderId.SenderIdRecord) => {
  const { account_id, created_at, id, version, ...columns } = row(next)
  return columns
}

/**
 * Moves the record to `next` while it is still at the version `next` was made from
 * (`next.version - 1`), ending its claim; its id when it did.
 *
 * @since 0.1.0
 * @category statements
 */
export const update = (
  sql: SqlClient.SqlClient,
  next: SenderId.SenderIdRecord
): Statement.Statement<{ readonly id: string }> =>
  sql`UPDATE sendline_sender_ids SET ${sql.update(changed(next))}, version = ${next.version}, claimed_until = 0
    WHERE id = ${next.id} AND version = ${next.version - 1}
    RETURNING id`

/**
 * The ids of up to `limit` records the expiry watcher must look at by `now` whose lease, if any,
 * has ended, the earliest first (the partial index of `0012`).
 *
 * @since 0.1.0
 * @category statements
 */
export const due = (
  sql: SqlClient.SqlClient,
  now: number,
  limit: number
): Statement.Statement<{ readonly id: string }> =>
  sql`SELECT id FROM sendline_sender_ids
    WHERE watch_at IS NOT NULL AND watch_at <= ${now} AND claimed_until <= ${now}
    ORDER BY watch_at, id
    LIMIT ${limit}`

/** The order in which records are claimed, as `due` picks them. @since 0.1.0 @category ordering */
export const claimOrder = (a: SenderId.SenderIdRecord, b: SenderId.SenderIdRecord): number =>
  (SenderId.watchAt(a) ?? 0) - (SenderId.watchAt(b) ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Each record with its registrations. */
const withRegistrations = (
  sql: SqlClient.SqlClient,
  records: ReadonlyArray<SenderId.SenderIdRecord>
): Effect.Effect<ReadonlyArray<SenderIdStore.WithRegistrations>, SqlError> =>
  records.length === 0
    ? Effect.succeed([])
    : Effect.map(Registrations.ofRecords(sql, records.map((record) => record.id)), (byRecord) =>
      records.map((record) => ({ record, registrations: byRecord.get(record.id) ?? [] })))

/**
 * Whether the record's entity holds its Sender ID in its market now. The hold first, taken or
 * locked by the upsert (its update changes nothing but locks the row on PostgreSQL), so that
 * inserts of one string or look-alike in one market run one after the other from there. Another
 * entity's hold is taken over when none of its records holds a look-alike now.
 */
const takeHold = (sql: SqlClient.SqlClient, record: SenderId.SenderIdRecord): Effect.Effect<boolean, SqlError> =>
  Effect.gen(function*() {
    const { createdAt, market } = record
    const skeleton = SenderId.skeleton(record.senderId)
    const holds = sql(Migrations.senderIdHolds.table)
    const entity = { identifier_type: record.identifierType, identifier_value: record.identifierValue }
    const [hold] = yield* sql<
      { readonly identifier_type: string; readonly identifier_value: string }
    >`INSERT INTO ${holds} ${
      sql.insert({ market, sender_id_key: skeleton, brand_name: record.brandName, ...entity })
    } ON CONFLICT (${sql.literal(Migrations.senderIdHolds.columns.join(", "))})
      DO UPDATE SET identifier_type = ${holds}.identifier_type RETURNING identifier_type, identifier_value`
    const holder = { identifierType: hold!.identifier_type, identifierValue: hold!.identifier_value }
    if (SenderId.sameHolder(holder, record)) return true
    const live = yield* sql`SELECT id FROM sendline_sender_ids
      WHERE market = ${market} AND skeleton = ${skeleton}
        AND identifier_type = ${holder.identifierType} AND identifier_value = ${holder.identifierValue}
        AND status NOT IN ('rejected', 'expired') AND (expires_at IS NULL OR expires_at > ${createdAt})
      LIMIT 1`
    if (live.length > 0) return false
    yield* sql`UPDATE ${holds} SET ${sql.update({ brand_name: record.brandName, ...entity })}
      WHERE market = ${market} AND sender_id_key = ${skeleton}`
    return true
  })

/**
 * Whether the account has room for one more record pending or info_requested. Its row is held
 * first (`Accounts.lock`), so that inserts of one account count one after the other, in any process.
 */
const roomForPending = (
  sql: SqlClient.SqlClient,
  accountId: string,
  limit: number
): Effect.Effect<boolean, SqlError> =>
  Effect.gen(function*() {
    yield* Accounts.lock(sql, accountId)
    const [counted] = yield* sql<
      { readonly pending: number | string }
    >`SELECT count(*) AS pending FROM sendline_sender_ids
      WHERE account_id = ${accountId} AND status IN ('pending', 'info_requested')`
    return Number(counted!.pending) < limit
  })

interface RegisteredQuery {
  readonly accountId: string
  readonly senderId: string
  readonly market: string
}

/**
 * `SenderIdStore` on `db`; its batcher of registration lookups lives as long as the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  db: Database.Database
): Effect.Effect<Context.Tag.Service<SenderIdStore.SenderIdStore>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { dialect, read, sql, transaction, write } = db
    const registered = yield* Batcher.make({
      name: "SenderIdStore.findRegistered",
      maxBatch: Database.batchLimit,
      run: (queries: ReadonlyArray<RegisteredQuery>) =>
        read(Effect.map(
          Effect.flatMap(
            sql`SELECT * FROM sendline_sender_ids
            WHERE status = 'registered' AND (account_id, sender_id, market) IN (VALUES ${
              sql.csv(queries.map((q) => sql`(${q.accountId}, ${q.senderId}, ${q.market})`))
            })
            ORDER BY created_at DESC, id DESC`,
            senderIds.decode
          ),
          (records) => {
            // newest first: keep the first record seen for each (account, Sender ID, market)
            const newest = new Map<string, SenderId.SenderIdRecord>()
            for (const record of records) {
              const key = SenderId.lookupKey(record.accountId, record.senderId, record.market)
              if (!newest.has(key)) newest.set(key, record)
            }
            return queries.map((q) =>
              Option.fromNullable(newest.get(SenderId.lookupKey(q.accountId, q.senderId, q.market)))
            )
          }
        ))
    })

    // A worker's or a decision's moves in one transaction, in order, each an UPDATE over the
    // version it was made from, then, when it moved, its registrations and its events.
    const moveAll = (moves: ReadonlyArray<SenderIdStore.Move>): Effect.Effect<ReadonlyArray<boolean>, SqlError> =>
      Effect.forEach(moves, ({ events, next, registrations }) =>
        Effect.flatMap(update(sql, next), (rows) =>
          rows.length === 0 ? Effect.succeed(false) : Effect.as(
            Effect.all([
              Effect.forEach(registrations, (registration) =>
                Registrations.replace(sql, next.id, registration), { discard: true }),
              writeEvents(events)
            ], { discard: true }),
            true
          )))

    const writeEvents = (events: ReadonlyArray<Event.Event>) =>
      events.length === 0 ? Effect.void : Events.insert(sql, events)

    const findAll = (where: Statement.Fragment) =>
      Effect.flatMap(
        Effect.flatMap(sql`SELECT * FROM sendline_sender_ids WHERE ${where}`, senderIds.decode),
        (records) =>
          withRegistrations(sql, records)
      )

    return SenderIdStore.SenderIdStore.of({
      // A transaction on both databases: the record with everything written with it, or nothing.
      // The pending limit first, so that an account at its limit learns nothing of the holds.
      insert: (record, registrations, events, pendingLimit) =>
        Effect.flatMap(
          transaction(Effect.gen(function*() {
            const counted = record.status === "pending" || record.status === "info_requested"
            if (
              pendingLimit !== undefined && counted && !(yield* roomForPending(sql, record.accountId, pendingLimit))
            ) {
              return "limit" as const
            }
            if (SenderId.holdsAt(record, record.createdAt) && !(yield* takeHold(sql, record))) {
              return "taken" as const
            }
            yield* sql`INSERT INTO sendline_sender_ids ${sql.insert(row(record))}`
            yield* Registrations.insert(sql, registrations)
            yield* writeEvents(events)
            return "inserted" as const
          })),
          (outcome): Effect.Effect<void, SenderIdStore.SenderIdTaken | SenderIdStore.PendingLimitReached> =>
            outcome === "limit"
              ? Effect.fail(
                new SenderIdStore.PendingLimitReached({ accountId: record.accountId, limit: pendingLimit! })
              )
              : outcome === "taken"
              ? Effect.fail(new SenderIdStore.SenderIdTaken({ senderId: record.senderId, market: record.market }))
              : Effect.void
        ),
      findById: (id) =>
        read(Effect.map(findAll(sql`id = ${id}`), (found) =>
          Option.fromNullable(found[0]))),
      list: (accountId, filter, after, limit) => {
        const where = [sql`account_id = ${accountId}`]
        if (filter.status !== undefined) where.push(sql`status = ${filter.status}`)
        if (filter.market !== undefined) where.push(sql`market = ${filter.market}`)
        if (Option.isSome(after)) where.push(sql`(created_at, id) < (${after.value.createdAt}, ${after.value.id})`)
        return read(findAll(sql`${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${limit}`))
      },
      findRegistered: (accountId, senderId, market) => registered.submit({ accountId, senderId, market }),
      findRegistration: (id) =>
        read(Effect.flatMap(
          sql`SELECT * FROM ${sql(Registrations.registrations.name)} WHERE id = ${id}`,
          Registrations.registrations.decodeFirst
        )),
      listRegistrations: (filter, after, limit) => read(Registrations.list(db, filter, after, limit)),
      transition: (moves) => moves.length === 0 ? Effect.succeed([]) : transaction(moveAll(moves)),
      claimWatched: (now, limit, leaseUntil) =>
        write(Effect.map(
          Effect.flatMap(dialect.claim(senderIds.name, due(sql, now, limit), leaseUntil), senderIds.decode),
          // An UPDATE returns its rows in no set order: the earliest first again, as they were picked.
          (claimed) => [...claimed].sort(claimOrder)
        ))
    })
  })
