/**
 * Spending (CONTRACT §12): amounts in exact ten-thousandths, the month (UTC) a spend belongs to,
 * what a send charges (with the mails of the thresholds it may cross), and the `Spending` use
 * case that answers an account's usage of a month.
 *
 * @since 0.2.0
 */
import {
  invalidParameter,
  type InvalidRequest,
  type PermissionDenied,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import type { IdGenerator } from "../Ids.js"
import * as UseCase from "../internal/useCase.js"
import * as Mail from "../mail/Mail.js"
import type { Price } from "../Markets.js"
import { type Charge, type Limit, SpendingStore, type ThresholdMails } from "./SpendingStore.js"

const decimal = /^(\d{1,12})(?:\.(\d{1,4}))?$/

/** A decimal string of up to 4 places ("500.00") in ten-thousandths (5000000), exact; none when it is not one. @since 0.2.0 @category amounts */
export const toUnits = (text: string): Option.Option<number> => {
  const match = decimal.exec(text)
  if (match === null) return Option.none()
  return Option.some(Number(match[1]) * 10_000 + Number((match[2] ?? "").padEnd(4, "0")))
}

/** Ten-thousandths as a decimal string with 4 places, as prices are shown (5000000 → "500.0000"). @since 0.2.0 @category amounts */
export const fromUnits = (units: number): string => {
  const sign = units < 0 ? "-" : ""
  const abs = Math.abs(units)
  return `${sign}${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, "0")}`
}

/** A price's amount in ten-thousandths (prices are always exact 4-place decimals). @since 0.2.0 @category amounts */
export const priceUnits = (price: Price): number => Option.getOrElse(toUnits(price.amount), () => 0)

/** The month (`YYYY-MM`, UTC) of an instant in epoch milliseconds. @since 0.2.0 @category months */
export const monthOf = (millis: number): string => new Date(millis).toISOString().slice(0, 7)

const monthPattern = /^\d{4}-(0[1-9]|1[0-2])$/

/** Whether `text` is a month `YYYY-MM`. @since 0.2.0 @category months */
export const isMonth = (text: string): boolean => monthPattern.test(text)

/** The share of a limit at which each threshold mail is written, in percent. @since 0.2.0 @category constants */
export const thresholds = [80, 100] as const

const thresholdMail = (to: string, accountName: string, currency: string, month: string, limit: number, pct: number) =>
  Mail.make({
    to,
    subject: pct >= 100
      ? `Sendline: ${accountName} reached its ${currency} spending limit for ${month}`
      : `Sendline: ${accountName} has spent ${pct} % of its ${currency} spending limit for ${month}`,
    text: [
      `Your account ${accountName} has spent ${pct} % of its monthly spending limit of ${fromUnits(limit)} ${currency}`,
      `for ${month} (UTC).`,
      pct >= 100
        ? "Sends that would take the spend past the limit are refused (spending_limit_reached) until the month ends or the limit is raised."
        : "Sends that would take the spend past the limit will be refused (spending_limit_reached).",
      ""
    ].join("\n")
  })

/**
 * What a message of `price` and `segments`, accepted at `now`, charges its account, with `mails`
 * (`thresholdMails`) when the account has a limit in that currency.
 *
 * @since 0.2.0
 * @category charges
 */
export const charge = (
  accountId: string,
  price: Price,
  segments: number,
  now: number,
  mails: Option.Option<ThresholdMails>
): Charge => {
  const base: Charge = { accountId, currency: price.currency, month: monthOf(now), amount: priceUnits(price), segments }
  return Option.isSome(mails) ? { ...base, mails: mails.value } : base
}

/**
 * The threshold mails (80 %, 100 %) to the admin of `accountId` for its `limit` in `currency` in
 * `month`, drafted for a charge to carry; none when the account is not found.
 *
 * @since 0.3.0
 * @category charges
 */
export const thresholdMails = (
  accountId: string,
  currency: string,
  month: string,
  limit: Limit
): Effect.Effect<Option.Option<ThresholdMails>, StoreUnavailable, AccountStore | IdGenerator> =>
  Effect.gen(function*() {
    const account = yield* (yield* AccountStore).findAccount(accountId)
    if (Option.isNone(account)) return Option.none()
    const { adminEmail, name } = account.value
    const draft = (pct: number) => thresholdMail(adminEmail, name, currency, month, limit.monthly, pct)
    return Option.some({ at80: yield* draft(80), at100: yield* draft(100) })
  })

/** One currency of a month's usage; amounts in ten-thousandths. @since 0.2.0 @category models */
export interface UsageLine {
  readonly currency: string
  readonly amount: number
  readonly limit: Option.Option<number>
  readonly messages: number
  readonly segments: number
}

/** An account's usage of a month: each currency it spent in or has a limit in, by currency. @since 0.2.0 @category models */
export interface Usage {
  readonly month: string
  readonly spend: ReadonlyArray<UsageLine>
}

/** The spend use case: an account's usage of a month. @since 0.2.0 @category services */
export class Spending extends Context.Tag("@sendline/core/Spending")<Spending, {
  /** The caller's usage of `month` (`YYYY-MM`; the current month UTC when absent); a bad month is `invalid_parameter`. */
  readonly usage: (
    principal: Principal,
    month?: string | undefined
  ) => Effect.Effect<Usage, InvalidRequest | PermissionDenied | StoreUnavailable>
}>() {}

/** Builds the spend use case on the spending store. @since 0.2.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const store = yield* SpendingStore

  const usage = fn("Spending.usage")(function*(principal: Principal, month?: string | undefined) {
    yield* requirePermission(principal, "messaging:read")
    if (month !== undefined && !isMonth(month)) {
      return yield* invalidParameter("month", "month must be a month YYYY-MM, e.g. 2026-11.")
    }
    const of = month ?? monthOf(yield* Clock.currentTimeMillis)
    const [spends, limits] = yield* Effect.all([
      store.spendOf(principal.accountId, of),
      store.limits(principal.accountId)
    ])
    const currencies = [...new Set([...spends.map((s) => s.currency), ...limits.map((l) => l.currency)])].sort()
    const spend = currencies.map((currency): UsageLine => {
      const s = spends.find((x) => x.currency === currency)
      return {
        currency,
        amount: s?.amount ?? 0,
        limit: Option.map(Option.fromNullable(limits.find((l) => l.currency === currency)), (l) => l.monthly),
        messages: s?.messages ?? 0,
        segments: s?.segments ?? 0
      }
    })
    return { month: of, spend } satisfies Usage
  })

  return Spending.of({ usage })
})

/** `make` as a layer. @since 0.2.0 @category layers */
export const layer: Layer.Layer<Spending, never, SpendingStore> = Layer.effect(Spending, make)
