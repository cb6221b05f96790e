/**
 * `SpendingStore` on SQL (CONTRACT §12): the tables `sendline_spending_limits` and
 * `sendline_spend` (`0021_spending`), and the statements by which `Messages` changes a month's
 * spend in the transaction of the message that causes the change.
 *
 * The spend never passes the limit, whatever runs at once: a charge is one conditional UPDATE
 * (`amount = amount + p WHERE amount + p <= limit`), never a read then a write. On PostgreSQL the
 * UPDATE locks the month's row until its transaction ends, and a concurrent one waits, then checks
 * its condition again on the committed row; on SQLite the single writer runs them one after the
 * other. The row is made first (`INSERT … ON CONFLICT DO NOTHING`), so there is always one to lock.
 *
 * @since 0.2.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Spending, SpendingStore } from "@sendline/core"
import type { Context } from "effect"
import { Effect, Option } from "effect"
import type * as Database from "../Database.js"
import * as Mails from "../mail/Mails.js"

interface SpendRow {
  readonly currency: string
  readonly month: string
  readonly amount: number | string
  readonly messages: number | string
  readonly segments: number | string
}

const toSpend = (row: SpendRow): SpendingStore.Spend => ({
  currency: row.currency,
  month: row.month,
  amount: Number(row.amount),
  messages: Number(row.messages),
  segments: Number(row.segments)
})

/**
 * Adds `charge` to its month's spend while that keeps it within the account's limit, on the
 * caller's connection (run it in a transaction, with the message's insert): the refusal, naming
 * the limit and the spend, when it would not; else none, and the charge's mails written for the
 * thresholds (80 %, 100 %) it is the first of the month to reach.
 *
 * @since 0.2.0
 * @category statements
 */
export const charge = (
  sql: SqlClient.SqlClient,
  c: SpendingStore.Charge
): Effect.Effect<Option.Option<SpendingStore.SpendingLimitReached>, SqlError> =>
  Effect.gen(function*() {
    const key = sql`account_id = ${c.accountId} AND month = ${c.month} AND currency = ${c.currency}`
    const limit = sql`(SELECT monthly FROM sendline_spending_limits
      WHERE account_id = ${c.accountId} AND currency = ${c.currency})`
    yield* sql`INSERT INTO sendline_spend (account_id, currency, month, amount, messages, segments, warned_80, warned_100)
      VALUES (${c.accountId}, ${c.currency}, ${c.month}, 0, 0, 0, 0, 0) ON CONFLICT DO NOTHING`
    const charged = yield* sql`UPDATE sendline_spend
      SET amount = amount + ${c.amount}, messages = messages + 1, segments = segments + ${c.segments}
      WHERE ${key} AND amount + ${c.amount} <= COALESCE(${limit}, amount + ${c.amount})
      RETURNING amount`
    if (charged.length === 0) {
      const [row] = yield* sql<{ readonly amount: number | string; readonly monthly: number | string | null }>`
        SELECT amount, ${limit} AS monthly FROM sendline_spend WHERE ${key}`
      return Option.some(
        new SpendingStore.SpendingLimitReached({
          currency: c.currency,
          limit: Number(row?.monthly ?? 0),
          spend: Number(row?.amount ?? 0)
        })
      )
    }
    if (c.mails !== undefined) {
      // Each flag is set once a month, by the charge that reaches its threshold: that charge's
      // transaction holds the row, so no other can set it too.
      const at80 = yield* sql`UPDATE sendline_spend SET warned_80 = 1
        WHERE ${key} AND warned_80 = 0 AND amount * 5 >= ${limit} * 4 RETURNING month`
      const at100 = yield* sql`UPDATE sendline_spend SET warned_100 = 1
        WHERE ${key} AND warned_100 = 0 AND amount >= ${limit} RETURNING month`
      yield* Mails.insert(sql, [
        ...(at80.length > 0 ? [c.mails.at80] : []),
        ...(at100.length > 0 ? [c.mails.at100] : [])
      ])
    }
    return Option.none()
  })

/**
 * Takes the price, segments and count of each message off its account's spend of the month it was
 * created in, on the caller's connection (run it in the transaction of their moves).
 *
 * @since 0.2.0
 * @category statements
 */
export const refund = (
  sql: SqlClient.SqlClient,
  refunded: ReadonlyArray<{
    readonly accountId: string
    readonly createdAt: number
    readonly price: { readonly amount: string; readonly currency: string }
    readonly segments: number
  }>
): Effect.Effect<void, SqlError> => {
  const byKey = new Map<
    string,
    { accountId: string; currency: string; month: string; amount: number; segments: number; messages: number }
  >()
  for (const m of refunded) {
    const month = Spending.monthOf(m.createdAt)
    const k = `${m.accountId}\u0000${m.price.currency}\u0000${month}`
    const sum = byKey.get(k) ??
      { accountId: m.accountId, currency: m.price.currency, month, amount: 0, segments: 0, messages: 0 }
    byKey.set(k, {
      ...sum,
      amount: sum.amount + Spending.priceUnits(m.price),
      segments: sum.segments + m.segments,
      messages: sum.messages + 1
    })
  }
  // In key order, as charges take their rows: two transactions never wait on each other's rows.
  return Effect.forEach(
    [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ([, r]) =>
      sql`UPDATE sendline_spend SET amount = amount - ${r.amount}, messages = messages - ${r.messages},
          segments = segments - ${r.segments}
        WHERE account_id = ${r.accountId} AND month = ${r.month} AND currency = ${r.currency}`,
    { discard: true }
  )
}

/**
 * `SpendingStore` on `db`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  { read, sql, write }: Database.Database
): Effect.Effect<Context.Tag.Service<SpendingStore.SpendingStore>> => {
  const limits = (accountId: string) =>
    read(Effect.map(
      sql<{ readonly currency: string; readonly monthly: number | string }>`SELECT currency, monthly
        FROM sendline_spending_limits WHERE account_id = ${accountId} ORDER BY currency`,
      (rows) => rows.map((row): SpendingStore.Limit => ({ currency: row.currency, monthly: Number(row.monthly) }))
    ))
  return Effect.succeed(SpendingStore.SpendingStore.of({
    setLimit: (accountId, limit) =>
      write(Effect.asVoid(sql`INSERT INTO sendline_spending_limits (account_id, currency, monthly)
        VALUES (${accountId}, ${limit.currency}, ${limit.monthly})
        ON CONFLICT (account_id, currency) DO UPDATE SET monthly = excluded.monthly`)),
    removeLimit: (accountId, currency) =>
      write(Effect.map(
        sql`DELETE FROM sendline_spending_limits WHERE account_id = ${accountId} AND currency = ${currency}
          RETURNING currency`,
        (rows) => rows.length > 0
      )),
    limits,
    limitOf: (accountId, currency) =>
      Effect.map(limits(accountId), (all) => Option.fromNullable(all.find((l) => l.currency === currency))),
    spendOf: (accountId, month) =>
      read(Effect.map(
        sql<SpendRow>`SELECT currency, month, amount, messages, segments FROM sendline_spend
          WHERE account_id = ${accountId} AND month = ${month} ORDER BY currency`,
        (rows) => rows.map(toSpend)
      ))
  }))
}
