/**
 * Storage port for spending limits and the month's spend (CONTRACT §12). The spend itself is
 * changed only with the message that causes it, in the same transaction: `MessageStore.insert`
 * with a `Charge`, `MessageStore.transition` with a `refund` move; this port sets the limits and
 * reads both.
 *
 * @since 0.2.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"
import type { Mail } from "../mail/Mail.js"

/** An account's monthly limit in one currency, in ten-thousandths. @since 0.2.0 @category models */
export interface Limit {
  readonly currency: string
  readonly monthly: number
}

/** An account's spend of one month (`YYYY-MM`, UTC) in one currency; `amount` in ten-thousandths. @since 0.2.0 @category models */
export interface Spend {
  readonly currency: string
  readonly month: string
  readonly amount: number
  readonly messages: number
  readonly segments: number
}

/** The mails to an account's admin when its spend reaches 80 % (`at80`) and 100 % (`at100`) of a limit. @since 0.3.0 @category models */
export interface ThresholdMails {
  readonly at80: Mail
  readonly at100: Mail
}

/**
 * What a new message adds to its account's spend of `month`: its price (`amount`, ten-thousandths)
 * and segments, and the mails to its admin that the store writes when this charge is the one that
 * takes the spend to 80 % (`at80`) or 100 % (`at100`) of the limit, each once a month.
 *
 * @since 0.2.0
 * @category models
 */
export interface Charge {
  readonly accountId: string
  readonly currency: string
  readonly month: string
  readonly amount: number
  readonly segments: number
  readonly mails?: ThresholdMails | undefined
}

/**
 * `insert` wrote nothing: the charge would take the month's spend (`spend`, ten-thousandths)
 * past the account's limit in its currency (`limit`).
 *
 * @since 0.2.0
 * @category errors
 */
export class SpendingLimitReached extends Schema.TaggedError<SpendingLimitReached>(
  "@sendline/core/SpendingLimitReached"
)("SpendingLimitReached", { currency: Schema.String, limit: Schema.Number, spend: Schema.Number }) {}

/** Spending limits and the months' spend. @since 0.2.0 @category ports */
export class SpendingStore extends Context.Tag("@sendline/core/SpendingStore")<SpendingStore, {
  /** Sets (or replaces) the account's monthly limit in `limit.currency`. */
  readonly setLimit: (accountId: string, limit: Limit) => Effect.Effect<void, StoreUnavailable>
  /** Removes the account's limit in `currency`; whether there was one. */
  readonly removeLimit: (accountId: string, currency: string) => Effect.Effect<boolean, StoreUnavailable>
  /** The account's limits, by currency. */
  readonly limits: (accountId: string) => Effect.Effect<ReadonlyArray<Limit>, StoreUnavailable>
  /** The account's limit in `currency`, if any. */
  readonly limitOf: (accountId: string, currency: string) => Effect.Effect<Option.Option<Limit>, StoreUnavailable>
  /** The account's spend of `month`, one per currency that has any, by currency. */
  readonly spendOf: (accountId: string, month: string) => Effect.Effect<ReadonlyArray<Spend>, StoreUnavailable>
}>() {}
