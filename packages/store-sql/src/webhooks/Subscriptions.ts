/**
 * `SubscriptionStore` on SQL: the table `sendline_webhook_subscriptions`, its events a JSON array,
 * the replaced secret in `previous_secret` and `secret_replaced_at` (`0014`). An insert counts the
 * account's live subscriptions under its row's lock, so that their limit holds. A change is one
 * `UPDATE … RETURNING`, so that the secret it replaces is the one stored at that moment, and a
 * status set meanwhile by a delivery is kept unless the change reactivates. A deletion sets
 * `deleted_at` and blanks the secrets, and skips the subscription's pending deliveries in the same
 * transaction; every read leaves deleted rows out. The statements that `Deliveries` runs in its
 * own transactions (the signers of claimed deliveries, a disable) are here too.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Event, Subscription, SubscriptionStore } from "@sendline/core"
import type { Pagination } from "@sendline/core"
import type { Context } from "effect"
import { Array as Arr, Effect, Option, Schema } from "effect"
import * as Accounts from "../accounts/Accounts.js"
import * as Database from "../Database.js"
import * as Rows from "../Rows.js"

/** A row of `sendline_webhook_subscriptions`, but `deleted_at`, which no read returns. */
const SubscriptionRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  url: Schema.String,
  events: Schema.parseJson(Schema.Array(Event.EventType)),
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String),
  secret_replaced_at: Schema.NullOr(Rows.Int8),
  status: Subscription.SubscriptionStatus,
  created_at: Rows.Int8
})

/** `sendline_webhook_subscriptions`: a subscription per row. @since 0.1.0 @category tables */
export const subscriptions = Rows.table<Subscription.Subscription>()(
  "sendline_webhook_subscriptions",
  Schema.transform(SubscriptionRow, Schema.typeSchema(Subscription.Subscription), {
    strict: true,
    decode: (row) => ({
      id: row.id,
      accountId: row.account_id,
      url: row.url,
      events: row.events,
      secret: row.secret,
      ...(row.previous_secret === null || row.secret_replaced_at === null
        ? {}
        : { previous: { secret: row.previous_secret, replacedAt: row.secret_replaced_at } }),
      status: row.status,
      createdAt: row.created_at
    }),
    encode: (s) => ({
      id: s.id,
      account_id: s.accountId,
      url: s.url,
      events: s.events,
      secret: s.secret,
      previous_secret: s.previous?.secret ?? null,
      secret_replaced_at: s.previous?.replacedAt ?? null,
      status: s.status,
      created_at: s.createdAt
    })
  })
)

const columns = "id, account_id, url, events, secret, previous_secret, secret_replaced_at, status, created_at"

/**
 * The subscriptions `ids` not deleted, active or disabled, in no set order (none: nothing), in
 * statements of `Database.batchLimit` ids.
 *
 * @since 0.1.0
 * @category statements
 */
export const findLive = (
  sql: SqlClient.SqlClient,
  ids: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Subscription.Subscription>, SqlError> => liveWhereIn(sql, "id", ids)

/**
 * The live subscriptions (active or disabled) of the accounts `accountIds`, in no set order.
 *
 * @since 0.1.0
 * @category statements
 */
export const forAccounts = (
  sql: SqlClient.SqlClient,
  accountIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Subscription.Subscription>, SqlError> => liveWhereIn(sql, "account_id", accountIds)

/** The live subscriptions whose `column` is one of `values`, a statement per `batchLimit` of them. */
const liveWhereIn = (sql: SqlClient.SqlClient, column: "id" | "account_id", values: ReadonlyArray<string>) =>
  Effect.map(
    Effect.forEach(Arr.chunksOf(Arr.dedupe(values), Database.batchLimit), (chunk) =>
      Effect.flatMap(
        sql`SELECT ${sql.literal(columns)} FROM sendline_webhook_subscriptions
          WHERE ${sql(column)} IN ${sql.in(chunk)} AND deleted_at IS NULL`,
        subscriptions.decode
      )),
    (chunks) => chunks.flat()
  )

/**
 * The oldest active subscription (createdAt, then id) of each of the accounts `accountIds` that
 * has one, by account: whose secrets sign their `callback_url` deliveries.
 *
 * @since 0.1.0
 * @category statements
 */
export const oldestActiveOf = (
  sql: SqlClient.SqlClient,
  accountIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, Subscription.Subscription>, SqlError> =>
  Effect.map(liveWhereIn(sql, "account_id", accountIds), (live) => {
    const oldest = new Map<string, Subscription.Subscription>()
    for (const subscription of live) {
      const held = oldest.get(subscription.accountId)
      const older = held === undefined ||
        subscription.createdAt < held.createdAt ||
        (subscription.createdAt === held.createdAt && subscription.id < held.id)
      if (subscription.status === "active" && older) oldest.set(subscription.accountId, subscription)
    }
    return oldest
  })

/**
 * Sets the subscription `id` `disabled` if it is active (and not deleted); whether it did. Two
 * concurrent disables of one subscription: the second waits for the first's row lock, then finds
 * it no longer active (PostgreSQL; SQLite has one writer).
 *
 * @since 0.1.0
 * @category statements
 */
export const disable = (sql: SqlClient.SqlClient, id: string): Effect.Effect<boolean, SqlError> =>
  Effect.map(
    sql`UPDATE sendline_webhook_subscriptions SET status = 'disabled'
      WHERE id = ${id} AND status = 'active' AND deleted_at IS NULL RETURNING id`,
    (rows) => rows.length > 0
  )

/**
 * Skips the pending deliveries of the subscription `id` (and ends their claims): what its deletion
 * or its disabling does to them, in the same transaction.
 *
 * @since 0.1.0
 * @category statements
 */
export const skipPending = (sql: SqlClient.SqlClient, id: string): Statement.Statement<object> =>
  sql`UPDATE sendline_webhook_deliveries SET state = 'skipped', claimed_until = 0
    WHERE subscription_id = ${id} AND state = 'pending'`

/**
 * `SubscriptionStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { read, sql, transaction, write }: Database.Database
): Effect.Effect<Context.Tag.Service<SubscriptionStore.SubscriptionStore>> => {
  const live = sql`deleted_at IS NULL`
  const before = (after: Option.Option<Pagination.Keyset>) =>
    Option.match(after, {
      onNone: () => sql`1 = 1`,
      onSome: (keyset) => sql`(created_at, id) < (${keyset.createdAt}, ${keyset.id})`
    })
  const oldestActive = (accountId: string) =>
    read(Effect.flatMap(
      sql`SELECT ${sql.literal(columns)} FROM sendline_webhook_subscriptions
        WHERE account_id = ${accountId} AND status = 'active' AND ${live} ORDER BY created_at, id LIMIT 1`,
      subscriptions.decodeFirst
    ))

  return Effect.succeed(SubscriptionStore.SubscriptionStore.of({
    hasActive: (accountId) => Effect.map(oldestActive(accountId), Option.isSome),
    oldestActive,
    forAccounts: (accountIds) => accountIds.length === 0 ? Effect.succeed([]) : read(forAccounts(sql, accountIds)),
    // The account's row held, its live subscriptions counted (their list index), then the insert.
    insert: (subscription, max) =>
      transaction(Effect.gen(function*() {
        yield* Accounts.lock(sql, subscription.accountId)
        const [counted] = yield* sql<{ readonly n: number | string }>`SELECT COUNT(*) AS n
          FROM sendline_webhook_subscriptions WHERE account_id = ${subscription.accountId} AND ${live}`
        if (Number(counted?.n ?? 0) >= max) return false
        yield* sql`INSERT INTO sendline_webhook_subscriptions ${sql.insert(subscriptions.encode(subscription))}`
        return true
      })),
    findById: (id) =>
      read(Effect.flatMap(
        sql`SELECT ${sql.literal(columns)} FROM sendline_webhook_subscriptions WHERE id = ${id} AND ${live}`,
        subscriptions.decodeFirst
      )),
    list: (accountId, after, limit) =>
      read(Effect.flatMap(
        sql`SELECT ${sql.literal(columns)} FROM sendline_webhook_subscriptions
          WHERE account_id = ${accountId} AND ${live} AND ${before(after)}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        subscriptions.decode
      )),
    update: (id, change, at) => {
      const sets = [
        ...(change.url === undefined ? [] : [sql`url = ${change.url}`]),
        ...(change.events === undefined ? [] : [sql`events = ${JSON.stringify(change.events)}`]),
        // every right-hand side reads the row as it was: the secret replaced is the one stored
        ...(change.secret === undefined ? [] : [
          sql`previous_secret = CASE WHEN secret = ${change.secret} THEN previous_secret ELSE secret END`,
          sql`secret_replaced_at = CASE WHEN secret = ${change.secret} THEN secret_replaced_at ELSE ${at} END`,
          sql`secret = ${change.secret}`
        ]),
        ...(change.reactivate ? [sql`status = 'active'`] : [])
      ]
      return write(Effect.flatMap(
        sql`UPDATE sendline_webhook_subscriptions SET ${sql.csv(sets.length === 0 ? [sql`id = id`] : sets)}
          WHERE id = ${id} AND ${live} RETURNING ${sql.literal(columns)}`,
        subscriptions.decodeFirst
      ))
    },
    delete: (id, at) =>
      transaction(Effect.flatMap(
        sql`UPDATE sendline_webhook_subscriptions SET deleted_at = ${at}, secret = '', previous_secret = NULL, secret_replaced_at = NULL
          WHERE id = ${id} AND ${live} RETURNING id`,
        (rows) => rows.length === 0 ? Effect.succeed(false) : Effect.as(skipPending(sql, id), true)
      ))
  }))
}
