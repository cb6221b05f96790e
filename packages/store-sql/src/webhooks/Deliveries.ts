/**
 * `DeliveryStore` on SQL: the table `sendline_webhook_deliveries` (`0015`), a delivery attempt per
 * row, and the outbox it is fanned out of, the events whose `fanned_out_at` is not set yet.
 *
 * A fan-out marks its events and inserts their deliveries in one transaction, the mark an
 * `UPDATE … WHERE fanned_out_at IS NULL`, so that of two processes fanning out one event only the
 * one whose mark took inserts its deliveries. A claim is one statement (the dialect's), capped per
 * destination and per account; a settlement of many attempts one transaction of batched statements.
 * A redelivery, and the count of an account's redelivery requests (`sendline_redelivery_requests`,
 * `0017`), run under the account's row lock, so that neither is passed by requests at once.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Delivery, DeliveryStore, Event } from "@sendline/core"
import type { Pagination, Subscription } from "@sendline/core"
import type { Context } from "effect"
import { Array as Arr, Effect, Option, Schema } from "effect"
import * as Accounts from "../accounts/Accounts.js"
import * as Database from "../Database.js"
import * as Events from "../Events.js"
import * as Mails from "../mail/Mails.js"
import * as Rows from "../Rows.js"
import * as Subscriptions from "./Subscriptions.js"

/**
 * A receiver's answer as stored: PostgreSQL's TEXT cannot hold a NUL character, which a receiver
 * may well send; it is written as U+FFFD in both stores, so that they read back alike.
 */
const ResponseBody = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: (body) => body,
  encode: (body) => body.replaceAll("\u0000", "\uFFFD")
})

/**
 * `sendline_webhook_deliveries`: a delivery per row. `destination` (the subscription's id, else the
 * callback URL: the key of the cap per destination) and `claimed_until` (the claim's lease, 0 for
 * none), the store's own, are never read into a delivery: `insert` and `claim` set them.
 *
 * @since 0.1.0
 * @category tables
 */
export const deliveries = Rows.table<Delivery.Delivery>()(
  "sendline_webhook_deliveries",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    eventId: Rows.column("event_id", Schema.String),
    eventType: Rows.column("event_type", Event.EventType),
    subscriptionId: Rows.nullable(Schema.String).pipe(Schema.fromKey("subscription_id")),
    callbackUrl: Rows.nullable(Schema.String).pipe(Schema.fromKey("callback_url")),
    attempt: Schema.Number,
    state: Delivery.DeliveryState,
    dueAt: Rows.column("due_at", Rows.Int8),
    createdAt: Rows.column("created_at", Rows.Int8),
    failingSince: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("failing_since")),
    attemptedAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("attempted_at")),
    url: Rows.nullable(Schema.String),
    statusCode: Rows.nullable(Schema.Number).pipe(Schema.fromKey("status_code")),
    error: Rows.nullable(Schema.String),
    durationMillis: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("duration_ms")),
    responseBody: Rows.nullable(ResponseBody).pipe(Schema.fromKey("response_body")),
    nextAttemptAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("next_attempt_at"))
  })
)

/**
 * Inserts the deliveries (none: nothing), each with its `destination`, in multi-row statements of
 * `Database.batchLimit` rows, on the caller's connection (run it in a transaction).
 *
 * @since 0.1.0
 * @category statements
 */
export const insert = (
  sql: SqlClient.SqlClient,
  inserted: ReadonlyArray<Delivery.Delivery>
): Effect.Effect<void, SqlError> =>
  Effect.forEach(
    Arr.chunksOf(inserted, Database.batchLimit),
    (chunk) =>
      sql`INSERT INTO sendline_webhook_deliveries ${
        sql.insert(chunk.map((delivery) => ({ ...deliveries.encode(delivery), destination: destinationOf(delivery) })))
      }`,
    { discard: true }
  )

/** The key of a delivery's cap per destination: its subscription's id, else its callback URL. */
const destinationOf = (delivery: Delivery.Delivery): string => delivery.subscriptionId ?? delivery.callbackUrl ?? ""

/**
 * How many due deliveries a claim ranks per delivery it may take: the oldest `limit ×` this, of the
 * destinations below their cap (ranking costs ~1 µs a row on SQLite: a claim of a few slots, as a
 * busy deliverer makes between passes, ranks a few dozen). A destination at its cap is
 * left out before the bound, so a receiver that holds its share (one that never answers) hides no
 * one's deliveries; a backlog of one below its cap may fill the bound for a pass, until it is.
 */
const candidatesPerSlot = 4

/**
 * The ids of up to `limit` pending deliveries due at `now` whose lease, if any, has ended, the
 * longest due first, such that those taken and those other claims hold at `now` are at most
 * `perDestination` per destination and at most `perAccount` per account. Ranking needs windows and
 * aggregates: all in CTEs, so that the last level is a plain SELECT of the table that PostgreSQL's
 * claim can lock (`FOR UPDATE SKIP LOCKED`), and which repeats the conditions of a claimable row:
 * PostgreSQL checks them again on a row another claim changed since the CTEs read it. A
 * destination or an account at its cap is left out before the bound of candidates, so that one
 * that holds its share hides no one's deliveries.
 *
 * @since 0.1.0
 * @category statements
 */
export const due = (
  sql: SqlClient.SqlClient,
  now: number,
  limit: number,
  perDestination: number,
  perAccount: number
): Statement.Statement<{ readonly id: string }> =>
  sql`WITH in_flight AS (
      SELECT account_id, destination, COUNT(*) AS held FROM sendline_webhook_deliveries
      WHERE state = 'pending' AND claimed_until > ${now}
      GROUP BY account_id, destination
    ), by_destination AS (
      SELECT destination, SUM(held) AS held FROM in_flight GROUP BY destination
    ), by_account AS (
      SELECT account_id, SUM(held) AS held FROM in_flight GROUP BY account_id
    ), candidates AS (
      SELECT id, account_id, destination, due_at FROM sendline_webhook_deliveries
      WHERE state = 'pending' AND due_at <= ${now} AND claimed_until <= ${now}
        AND destination NOT IN (SELECT destination FROM by_destination WHERE held >= ${perDestination})
        AND account_id NOT IN (SELECT account_id FROM by_account WHERE held >= ${perAccount})
      ORDER BY due_at, id
      LIMIT ${limit * candidatesPerSlot}
    ), per_destination AS (
      SELECT c.id, c.account_id, c.due_at,
        COALESCE(f.held, 0) + ROW_NUMBER() OVER (PARTITION BY c.destination ORDER BY c.due_at, c.id) AS slot
      FROM candidates c LEFT JOIN by_destination f ON f.destination = c.destination
    ), ranked AS (
      SELECT p.id, COALESCE(a.held, 0) + ROW_NUMBER() OVER (PARTITION BY p.account_id ORDER BY p.due_at, p.id) AS slot
      FROM per_destination p LEFT JOIN by_account a ON a.account_id = p.account_id
      WHERE p.slot <= ${perDestination}
    )
    SELECT d.id FROM ranked r CROSS JOIN sendline_webhook_deliveries d
    WHERE d.id = r.id AND r.slot <= ${perAccount}
      AND d.state = 'pending' AND d.due_at <= ${now} AND d.claimed_until <= ${now}
    ORDER BY d.due_at, d.id
    LIMIT ${limit}`

/** The order in which deliveries are claimed, as `due` picks them. @since 0.1.0 @category ordering */
export const claimOrder = (a: Delivery.Delivery, b: Delivery.Delivery): number =>
  a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

// What an attempt sets from its settlement's delivery: its result, the columns `attempted` changes.
const settled = [
  "state",
  "attempted_at",
  "url",
  "status_code",
  "error",
  "duration_ms",
  "response_body",
  "next_attempt_at",
  "failing_since"
] as const

// How each settled column is set from the `VALUES` of `update`: as in `Messages.update`, PostgreSQL
// types those parameters text, so the numeric columns cast theirs (to SQLite, a conversion to integer).
const numeric: ReadonlySet<string> = new Set([
  "attempted_at",
  "status_code",
  "duration_ms",
  "next_attempt_at",
  "failing_since"
])
const setFromAttempted = settled.map((column) =>
  numeric.has(column) ? `${column} = CAST(attempted.${column} AS BIGINT)` : `${column} = attempted.${column}`
).join(", ")

/**
 * Writes each attempt's result over its delivery while it is still pending, and ends its claim,
 * returning the ids of those written, in one statement (`UPDATE … FROM` a CTE of `VALUES`, as
 * `Messages.update`). Delivery ids must be distinct.
 *
 * @since 0.1.0
 * @category statements
 */
export const update = (
  sql: SqlClient.SqlClient,
  attempted: ReadonlyArray<Delivery.Delivery>
): Statement.Statement<{ readonly id: string }> => {
  const values = attempted.map((delivery) => {
    const row = deliveries.encode(delivery)
    return sql`${sql.in([row.id, ...settled.map((column) => row[column])])}`
  })
  return sql`WITH attempted (id, ${sql.literal(settled.join(", "))}) AS (VALUES ${sql.csv(values)})
    UPDATE sendline_webhook_deliveries SET ${sql.literal(setFromAttempted)}, claimed_until = 0
    FROM attempted
    WHERE sendline_webhook_deliveries.id = attempted.id AND sendline_webhook_deliveries.state = 'pending'
    RETURNING sendline_webhook_deliveries.id AS id`
}

/** `Database.batchLimit` ids at a time, through `select`, their rows together. */
const inChunks = <A>(
  ids: ReadonlyArray<string>,
  select: (chunk: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<A>, SqlError>
): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.map(Effect.forEach(Arr.chunksOf(Arr.dedupe(ids), Database.batchLimit), select), (chunks) => chunks.flat())

/**
 * Each claimed delivery with its event and its signer: the events in one statement, the
 * subscriptions of the subscriptions' deliveries in one, the signers of the callbacks' in one.
 */
const withEvents = (
  sql: SqlClient.SqlClient,
  claimed: ReadonlyArray<Delivery.Delivery>
): Effect.Effect<ReadonlyArray<DeliveryStore.Claimed>, SqlError> =>
  Effect.gen(function*() {
    const callbacks = claimed.filter((d) => d.subscriptionId === undefined)
    const subscribed = claimed.flatMap((d) => d.subscriptionId === undefined ? [] : [d.subscriptionId])
    const events = yield* inChunks(
      claimed.map((d) => d.eventId),
      (chunk) => Effect.flatMap(sql`SELECT * FROM sendline_events WHERE id IN ${sql.in(chunk)}`, Events.events.decode)
    )
    const subscriptions = subscribed.length === 0 ? [] : yield* Subscriptions.findLive(sql, subscribed)
    const oldestActive = callbacks.length === 0
      ? new Map<string, Subscription.Subscription>()
      : yield* Subscriptions.oldestActiveOf(sql, callbacks.map((d) => d.accountId))
    const eventsById = new Map(events.map((event) => [event.id, event]))
    const subscriptionsById = new Map(subscriptions.map((subscription) => [subscription.id, subscription]))
    return yield* Effect.forEach(claimed, (delivery) => {
      const event = eventsById.get(delivery.eventId)
      // the foreign key keeps every delivery's event: a missing one is a database not as migrated
      if (event === undefined) {
        return Effect.die(
          new Rows.UnreadableRow({ table: deliveries.name, column: "column event_id", problem: "no such event" })
        )
      }
      const signer = delivery.subscriptionId === undefined
        ? oldestActive.get(delivery.accountId)
        : subscriptionsById.get(delivery.subscriptionId)
      return Effect.succeed<DeliveryStore.Claimed>({ delivery, event, signer: Option.fromNullable(signer) })
    })
  })

/**
 * Whether each settlement was recorded, on the caller's connection (run it in a transaction): the
 * attempts over their pending deliveries, then the retries of those written, then each disable of
 * one written (its subscription, its pending deliveries and its mail only if the subscription was
 * still active): two statements per `batchLimit` settlements, and up to three per disable.
 */
const settle = (
  sql: SqlClient.SqlClient,
  settlements: ReadonlyArray<DeliveryStore.Settlement>
): Effect.Effect<ReadonlyArray<boolean>, SqlError> =>
  Effect.gen(function*() {
    const written = new Set<string>()
    for (const chunk of Arr.chunksOf(settlements, Database.batchLimit)) {
      for (const row of yield* update(sql, chunk.map((s) => s.attempted))) written.add(row.id)
    }
    const results = settlements.map(({ attempted }) => written.has(attempted.id))
    const recorded = settlements.filter((_, i) => results[i])
    yield* insert(sql, recorded.flatMap(({ retry }) => Option.isSome(retry) ? [retry.value] : []))
    for (const { attempted, disable } of recorded) {
      if (Option.isNone(disable) || attempted.subscriptionId === undefined) continue
      if (!(yield* Subscriptions.disable(sql, attempted.subscriptionId))) continue
      yield* Subscriptions.skipPending(sql, attempted.subscriptionId)
      yield* Mails.insert(sql, [disable.value])
    }
    return results
  })

/**
 * `DeliveryStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { dialect, read, sql, transaction, write }: Database.Database
): Effect.Effect<Context.Tag.Service<DeliveryStore.DeliveryStore>> => {
  // In one transaction: the mark of each event not fanned out yet, then the deliveries of those
  // marked here; two statements per `batchLimit` events (and per `batchLimit` deliveries).
  const fanOut = (fanOuts: ReadonlyArray<DeliveryStore.FanOut>, at: number) =>
    Effect.gen(function*() {
      const marked = new Set<string>()
      for (const chunk of Arr.chunksOf(Arr.dedupe(fanOuts.map((f) => f.eventId)), Database.batchLimit)) {
        const rows = yield* sql<{ readonly id: string }>`UPDATE sendline_events SET fanned_out_at = ${at}
          WHERE id IN ${sql.in(chunk)} AND fanned_out_at IS NULL RETURNING id`
        for (const row of rows) marked.add(row.id)
      }
      // an event given twice is fanned out by its first fan-out only
      const results = fanOuts.map(({ eventId }) => marked.delete(eventId))
      yield* insert(sql, fanOuts.flatMap((f, i) => results[i] ? f.deliveries : []))
      return results
    })

  // In one transaction, the accounts' rows held (in order: two redeliveries never wait on each
  // other's), so that redeliveries of an account are one at a time: the deliveries pending of the
  // events (their index), then the given ones to a destination none is pending to.
  const redeliver = (redelivered: ReadonlyArray<Delivery.Delivery>) =>
    Effect.gen(function*() {
      for (const accountId of Arr.dedupe(redelivered.map((d) => d.accountId)).sort()) {
        yield* Accounts.lock(sql, accountId)
      }
      const key = (d: Delivery.Delivery) => `${d.eventId} ${destinationOf(d)}`
      const underWay = new Map<string, Delivery.Delivery>()
      const pending = yield* inChunks(
        redelivered.map((d) => d.eventId),
        (chunk) =>
          Effect.flatMap(
            sql`SELECT * FROM sendline_webhook_deliveries WHERE state = 'pending' AND event_id IN ${sql.in(chunk)}`,
            deliveries.decode
          )
      )
      for (const delivery of pending) underWay.set(key(delivery), delivery)
      const inserted = redelivered.filter((delivery) => {
        if (underWay.has(key(delivery))) return false
        underWay.set(key(delivery), delivery)
        return true
      })
      yield* insert(sql, inserted)
      return redelivered.map((delivery) => underWay.get(key(delivery))!)
    })

  // In one transaction, the account's row held: its requests that no longer count forgotten, those
  // that do counted, then this one recorded if it fits.
  const admitRedelivery = (accountId: string, at: number, since: number, max: number) =>
    Effect.gen(function*() {
      yield* Accounts.lock(sql, accountId)
      yield* sql`DELETE FROM sendline_redelivery_requests WHERE account_id = ${accountId} AND requested_at <= ${since}`
      const [counted] = yield* sql<{ readonly n: number | string; readonly oldest: number | string | null }>`
        SELECT COUNT(*) AS n, MIN(requested_at) AS oldest FROM sendline_redelivery_requests
        WHERE account_id = ${accountId} AND requested_at > ${since}`
      if (counted !== undefined && Number(counted.n) >= max) return Option.some(Number(counted.oldest))
      yield* sql`INSERT INTO sendline_redelivery_requests ${sql.insert({ account_id: accountId, requested_at: at })}`
      return Option.none()
    })

  // Keyset pagination, never OFFSET: each filter has an index that ends in (created_at, id) (`0015`).
  const list = (
    subscriptionId: string,
    filter: DeliveryStore.DeliveryFilter,
    after: Option.Option<Pagination.Keyset>,
    limit: number
  ) => {
    const where = [sql`subscription_id = ${subscriptionId}`]
    if (filter.eventType !== undefined) where.push(sql`event_type = ${filter.eventType}`)
    if (filter.state !== undefined) where.push(sql`state = ${filter.state}`)
    if (Option.isSome(after)) where.push(sql`(created_at, id) < (${after.value.createdAt}, ${after.value.id})`)
    return read(Effect.flatMap(
      sql`SELECT * FROM sendline_webhook_deliveries WHERE ${sql.and(where)}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      deliveries.decode
    ))
  }

  return Effect.succeed(DeliveryStore.DeliveryStore.of({
    // The outbox's partial index, in order; a message's event with its message's callback URL.
    pendingEvents: (limit) =>
      read(Effect.flatMap(
        sql<{ readonly callback_url: string | null }>`SELECT e.*, m.callback_url FROM sendline_events e
          LEFT JOIN sendline_messages m ON m.id = e.subject_id AND e.type LIKE 'message.%'
          WHERE e.fanned_out_at IS NULL
          ORDER BY e.created_at, e.id
          LIMIT ${limit}`,
        (rows) =>
          Effect.map(Events.events.decode(rows), (events) =>
            events.map((event, i) => {
              const callbackUrl = rows[i]!.callback_url
              return callbackUrl === null ? { event } : { event, callbackUrl }
            }))
      )),
    fanOut: (fanOuts, at) => fanOuts.length === 0 ? Effect.succeed([]) : transaction(fanOut(fanOuts, at)),
    insert: (inserted) => inserted.length === 0 ? Effect.void : transaction(insert(sql, inserted)),
    redeliver: (redelivered) => redelivered.length === 0 ? Effect.succeed([]) : transaction(redeliver(redelivered)),
    admitRedelivery: (accountId, at, since, max) => transaction(admitRedelivery(accountId, at, since, max)),
    claim: (now, limit, leaseUntil, perDestination, perAccount) =>
      Effect.flatMap(
        write(Effect.flatMap(
          dialect.claim(deliveries.name, due(sql, now, limit, perDestination, perAccount), leaseUntil),
          deliveries.decode
        )),
        // An UPDATE returns its rows in no set order: the longest due first again, as they were picked.
        (claimed) => claimed.length === 0 ? Effect.succeed([]) : read(withEvents(sql, [...claimed].sort(claimOrder)))
      ),
    settle: (settlements) => settlements.length === 0 ? Effect.succeed([]) : transaction(settle(sql, settlements)),
    findById: (accountId, id) =>
      read(Effect.flatMap(
        sql`SELECT * FROM sendline_webhook_deliveries WHERE id = ${id} AND account_id = ${accountId}`,
        deliveries.decodeFirst
      )),
    list,
    // The events of the subscription's failed or skipped deliveries since `since` (its state
    // index), less those with a delivery to it pending or succeeded (its event index), oldest first.
    redeliverable: (subscriptionId, since, limit) =>
      read(Effect.flatMap(
        sql`SELECT e.* FROM sendline_events e
          WHERE e.id IN (
            SELECT event_id FROM sendline_webhook_deliveries
            WHERE subscription_id = ${subscriptionId} AND state IN ('failed', 'skipped') AND created_at >= ${since}
          ) AND NOT EXISTS (
            SELECT 1 FROM sendline_webhook_deliveries later
            WHERE later.subscription_id = ${subscriptionId} AND later.event_id = e.id
              AND later.state IN ('pending', 'succeeded')
          )
          ORDER BY e.created_at, e.id
          LIMIT ${limit}`,
        Events.events.decode
      ))
  }))
}
