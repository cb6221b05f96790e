/**
 * `SubscriptionStore` on SQL: the table `sendline_webhook_subscriptions`, its events a JSON array,
 * the replaced secret in `previous_secret` and `secret_replaced_at` (`0014`). A change is one
 * `UPDATE … RETURNING`, so that the secret it replaces is the one stored at that moment, and a
 * status set meanwhile by a delivery is kept unless the change reactivates. A deletion sets
 * `deleted_at` and blanks the secrets; every read leaves deleted rows out.
 *
 * @since 0.1.0
 */
import { Event, Subscription, SubscriptionStore } from "@sendline/core"
import type { Pagination } from "@sendline/core"
import type { Context } from "effect"
import { Effect, Option, Schema } from "effect"
import type * as Database from "./Database.js"
import * as Rows from "./Rows.js"

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
 * `SubscriptionStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = ({ read, sql, write }: Database.Database): Effect.Effect<Context.Tag.Service<SubscriptionStore.SubscriptionStore>> => {
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
    insert: (subscription) =>
      write(Effect.asVoid(sql`INSERT INTO sendline_webhook_subscriptions ${sql.insert(subscriptions.encode(subscription))}`)),
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
      write(Effect.map(
        sql`UPDATE sendline_webhook_subscriptions SET deleted_at = ${at}, secret = '', previous_secret = NULL, secret_replaced_at = NULL
          WHERE id = ${id} AND ${live} RETURNING id`,
        (rows) => rows.length > 0
      ))
  }))
}
