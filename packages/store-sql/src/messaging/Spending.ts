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
 * The key of a month's spend row, in the order charges and refunds take the rows: two transactions
 * then never wait on each other's rows (no deadlock).
 */
const rowKey = (accountId: string, currency: string, month: string) => `${accountId}\u0000${currency}\u0000${month}`

/** The charges of one account, month and currency, in the order given, with their places. */
interface Group {
  readonly key: string
  readonly charges: Array<{ readonly at: number; readonly charge: SpendingStore.Charge }>
}

/** `charges` grouped by their month's row, the groups in key order (the order every transaction takes the rows in). */
const groupsOf = (charges: ReadonlyArray<SpendingStore.Charge | undefined>): ReadonlyArray<Group> => {
  const groups = new Map<string, Group>()
  charges.forEach((charge, at) => {
    if (charge === undefined) return
    const key = rowKey(charge.accountId, charge.currency, charge.month)
    const group = groups.get(key) ?? { key, charges: [] }
    group.charges.push({ at, charge })
    groups.set(key, group)
  })
  return [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

const sum = (charges: Group["charges"]) =>
  charges.reduce(
    (total, { charge }) => ({ amount: total.amount + charge.amount, segments: total.segments + charge.segments }),
    { amount: 0, segments: 0 }
  )

/**
 * Adds each of `charges` to its month's spend, in the order given, while that keeps the spend
 * within the account's limit, on the caller's connection (run it in a transaction, with the
 * messages' insert): for each charge, the refusal naming the limit and the spend when it would
 * not fit, else `undefined`. The threshold mails (80 %, 100 %) are written for the first charges
 * of the month to reach them.
 *
 * The charges of one account, month and currency cost one conditional UPDATE when they all fit.
 * When they do not, the month's row is locked and read, the charges taken in order while each fits
 * (as one after the other would be), and their sum added by a conditional UPDATE still.
 *
 * @since 0.3.0
 * @category statements
 */
export const chargeAll = (
  sql: SqlClient.SqlClient,
  charges: ReadonlyArray<SpendingStore.Charge | undefined>
): Effect.Effect<Array<SpendingStore.SpendingLimitReached | undefined>, SqlError> =>
  Effect.gen(function*() {
    const refusals: Array<SpendingStore.SpendingLimitReached | undefined> = charges.map(() => undefined)
    for (const group of groupsOf(charges)) {
      const c = group.charges[0]!.charge
      const key = sql`account_id = ${c.accountId} AND month = ${c.month} AND currency = ${c.currency}`
      const limit = sql`(SELECT monthly FROM sendline_spending_limits
        WHERE account_id = ${c.accountId} AND currency = ${c.currency})`
      const add = (taken: Group["charges"]) => {
        const total = sum(taken)
        return sql`UPDATE sendline_spend
          SET amount = amount + ${total.amount}, messages = messages + ${taken.length},
            segments = segments + ${total.segments}
          WHERE ${key} AND amount + ${total.amount} <= COALESCE(${limit}, amount + ${total.amount})
          RETURNING amount`
      }
      yield* sql`INSERT INTO sendline_spend (account_id, currency, month, amount, messages, segments, warned_80, warned_100)
        VALUES (${c.accountId}, ${c.currency}, ${c.month}, 0, 0, 0, 0, 0) ON CONFLICT DO NOTHING`
      let taken = group.charges
      if ((yield* add(taken)).length === 0) {
        // Some do not fit: the row locked (an UPDATE that changes nothing), then read with the limit.
        yield* sql`UPDATE sendline_spend SET amount = amount WHERE ${key}`
        const [row] = yield* sql<{ readonly amount: number | string; readonly monthly: number | string | null }>`
          SELECT amount, ${limit} AS monthly FROM sendline_spend WHERE ${key}`
        const monthly = row?.monthly === null || row?.monthly === undefined ? Infinity : Number(row.monthly)
        let spend = Number(row?.amount ?? 0)
        taken = []
        for (const entry of group.charges) {
          if (spend + entry.charge.amount <= monthly) {
            spend += entry.charge.amount
            taken.push(entry)
          } else {
            refusals[entry.at] = new SpendingStore.SpendingLimitReached({ currency: c.currency, limit: monthly, spend })
          }
        }
        // Under the lock this fits; were it not to, nothing of the group is taken.
        if (taken.length > 0 && (yield* add(taken)).length === 0) {
          for (const entry of taken) {
            refusals[entry.at] = new SpendingStore.SpendingLimitReached({ currency: c.currency, limit: monthly, spend })
          }
          taken = []
        }
      }
      const mails = taken.find((entry) => entry.charge.mails !== undefined)?.charge.mails
      if (mails !== undefined) {
        // Each flag is set once a month, by the transaction whose charges reach its threshold: that
        // transaction holds the row, so no other can set it too.
        const at80 = yield* sql`UPDATE sendline_spend SET warned_80 = 1
          WHERE ${key} AND warned_80 = 0 AND amount * 5 >= ${limit} * 4 RETURNING month`
        const at100 = yield* sql`UPDATE sendline_spend SET warned_100 = 1
          WHERE ${key} AND warned_100 = 0 AND amount >= ${limit} RETURNING month`
        yield* Mails.insert(sql, [...(at80.length > 0 ? [mails.at80] : []), ...(at100.length > 0 ? [mails.at100] : [])])
      }
    }
    return refusals
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
    const k = rowKey(m.accountId, m.price.currency, month)
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
