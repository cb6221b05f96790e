/**
 * The checks of one send (CONTRACT §3, §12), in CONTRACT order, first failure wins: what a single
 * send (`Messaging.send`) and each message of a batch (`Batches.send`) are checked by, the same
 * functions for both. A message that passes is made, with its event and what it charges.
 *
 * @since 0.3.0
 */
import { type InvalidRequest, rule, RuleViolation, type StoreUnavailable } from "@sendline/api/Errors"
import { Effect, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import type { Event } from "../Event.js"
import { IdGenerator } from "../Ids.js"
import { codePoints, loneSurrogate, notWellFormed } from "../internal/text.js"
import type * as Markets from "../Markets.js"
import * as MarketsModule from "../Markets.js"
import { Markets as MarketsTag, price } from "../Markets.js"
import { OptOutStore } from "../optOuts/OptOutStore.js"
import * as Phone from "../Phone.js"
import type { SenderIdRecord } from "../senderIds/SenderId.js"
import * as SenderIdRules from "../senderIds/SenderIdRules.js"
import { findSendable, SenderIdStore } from "../senderIds/SenderIdStore.js"
import { Callbacks } from "./Callbacks.js"
import type { Message } from "./Message.js"
import * as MessageEvents from "./MessageEvents.js"
import { MessagingConfig } from "./MessagingConfig.js"
import * as Segments from "./Segments.js"
import * as Spending from "./Spending.js"
import { type Charge, type SpendingLimitReached, SpendingStore, type ThresholdMails } from "./SpendingStore.js"

/** A send request after shape checks; `scheduledAt` in epoch milliseconds. @since 0.3.0 @category models */
export interface Request {
  readonly to: string
  readonly senderId: string
  readonly body: string
  readonly market: string
  readonly reference?: string | undefined
  readonly callbackUrl?: string | undefined
  readonly scheduledAt?: number | undefined
  /** The idempotency key the message keeps (a single send's; a batch's messages keep none). */
  readonly idempotencyKey?: string | undefined
  /** The batch it is sent in, if any. */
  readonly batchId?: string | undefined
}

/** A message that passed every check: itself, its event, and what it charges its account. @since 0.3.0 @category models */
export interface Checked {
  readonly message: Message
  readonly event: Option.Option<Event>
  readonly charge: Charge
}

/** `request` checked in CONTRACT order at `now` for `principal`, and the message it makes. @since 0.3.0 @category models */
export type Check = (
  principal: Principal,
  request: Request,
  now: number
) => Effect.Effect<Checked, RuleViolation | InvalidRequest | StoreUnavailable>

/** The checks of one send. @since 0.3.0 @category models */
export interface SendChecks {
  /** One send's checks, each reading the stores. */
  readonly check: Check
  /**
   * The checks of a batch's messages, all for `principal` at one `now`: the same checks, with what
   * they read of the stores read once for the batch (the opt-outs of every `recipients` in one
   * lookup, each Sender ID and market's registration and each currency's limit once).
   */
  readonly forBatch: (principal: Principal, recipients: ReadonlyArray<string>) => Effect.Effect<Check, StoreUnavailable>
}

/** What a check reads of the stores: at each check, or once for a batch. */
interface Lookups {
  readonly sendable: (
    accountId: string,
    senderId: string,
    market: string,
    now: number
  ) => Effect.Effect<Option.Option<SenderIdRecord>, StoreUnavailable>
  readonly optedOut: (accountId: string, to: string) => Effect.Effect<boolean, StoreUnavailable>
  /** The threshold mails a charge in `currency` in `month` carries: some when the account has a limit in it. */
  readonly mailsOf: (
    accountId: string,
    currency: string,
    month: string
  ) => Effect.Effect<Option.Option<ThresholdMails>, StoreUnavailable>
}

/**
 * `value` as a refusal may quote it: whole when short, else `instead`. A refusal is kept for its
 * idempotency key, and must stay far below what a key keeps (`Idempotency.maxKeptBytes`).
 */
const quote = (value: string, instead: string): string => value.length <= 64 ? value : instead

const units = [["day", 86_400_000], ["hour", 3_600_000], ["minute", 60_000], ["second", 1_000]] as const

/** A span of time as people say it, in the largest unit that divides it: "7 days", "36 hours". */
const spell = (millis: number): string => {
  const [unit, size] = units.find(([, length]) => millis >= length && millis % length === 0) ?? ["millisecond", 1]
  const n = millis / size
  return `${n} ${unit}${n === 1 ? "" : "s"}`
}

/** `body`'s segments when it is not empty, is well formed and needs at most `maxSegments`; else the rule it breaks. */
const checkBody = (
  body: string,
  maxSegments: number
): Effect.Effect<Segments.SegmentInfo, RuleViolation | InvalidRequest> => {
  if (body.length === 0) return Effect.fail(rule("empty_body", "body", "body must not be empty."))
  if (loneSurrogate.test(body)) return Effect.fail(notWellFormed("body"))
  const info = Segments.count(body)
  return info.segments > maxSegments
    ? Effect.fail(
      rule("body_too_long", "body", `body needs ${info.segments} segments; at most ${maxSegments} are allowed.`)
    )
    : Effect.succeed(info)
}

/** Passes a `reference` that is absent, or well formed and at most 255 characters; else the rule it breaks. */
const checkReference = (reference: string | undefined): Effect.Effect<void, RuleViolation | InvalidRequest> =>
  reference === undefined
    ? Effect.void
    : codePoints(reference) > 255
    ? Effect.fail(rule("reference_too_long", "reference", "reference must be at most 255 characters."))
    : loneSurrogate.test(reference)
    ? Effect.fail(notWellFormed("reference"))
    : Effect.void

/** The check of a `scheduled_at`, given at `now`: passes one absent, or in the future and at most `maxAheadMillis` ahead. */
const checkSchedule = (maxAheadMillis: number) => {
  const tooFar = `scheduled_at must be at most ${spell(maxAheadMillis)} ahead.`
  return (scheduledAt: number | undefined, now: number): Effect.Effect<void, RuleViolation> =>
    scheduledAt === undefined
      ? Effect.void
      : scheduledAt <= now
      ? Effect.fail(rule("schedule_in_past", "scheduled_at", "scheduled_at must be in the future."))
      : scheduledAt > now + maxAheadMillis
      ? Effect.fail(rule("schedule_too_far", "scheduled_at", tooFar))
      : Effect.void
}

/** The refusal of a send that would take the spend past the limit, naming both. @since 0.3.0 @category refusals */
export const limitReached = (refused: SpendingLimitReached, price: Markets.Price): RuleViolation =>
  new RuleViolation({
    code: "spending_limit_reached",
    message: `This message (${price.amount} ${refused.currency}) would take this month's spend of ` +
      `${Spending.fromUnits(refused.spend)} ${refused.currency} past the account's monthly limit of ` +
      `${Spending.fromUnits(refused.limit)} ${refused.currency}.`
  })

/**
 * `lookup` remembered by its arguments while one batch is checked (its checks run one after the
 * other): a plain map, where `Effect.cachedFunction` costs ~10 µs a hit (a semaphore, a deferred
 * and a patch of the fiber's refs), measured as a third of a batch message's checks.
 */
const remembered = <Args extends ReadonlyArray<string | number>, A>(
  lookup: (...args: Args) => Effect.Effect<A, StoreUnavailable>
) => {
  const found = new Map<string, A>()
  return (...args: Args): Effect.Effect<A, StoreUnavailable> => {
    const key = args.join("\u0000")
    return found.has(key)
      ? Effect.succeed(found.get(key)!)
      : Effect.tap(lookup(...args), (value) => Effect.sync(() => found.set(key, value)))
  }
}

/** Builds the checks on the stores, the markets and the messaging settings. @since 0.3.0 @category constructors */
export const make = Effect.gen(function*() {
  const senderIds = yield* SenderIdStore
  const callbacks = yield* Callbacks
  const optOuts = yield* OptOutStore
  const markets = yield* MarketsTag
  const ids = yield* IdGenerator
  const config = yield* MessagingConfig
  const spending = yield* SpendingStore
  const accounts = yield* AccountStore
  const checkScheduledAt = checkSchedule(config.maxScheduleAheadMillis)

  const checkMarket = (code: string) => MarketsModule.check(markets, code, "Sending to")

  const direct: Lookups = {
    sendable: (accountId, senderId, market, now) => findSendable(senderIds, accountId, senderId, market, now),
    optedOut: (accountId, to) => Effect.map(optOuts.listed(accountId, [to]), (listed) => listed.size > 0),
    mailsOf: (accountId, currency, month) =>
      Effect.flatMap(spending.limitOf(accountId, currency), (limit) =>
        Option.isNone(limit)
          ? Effect.succeed(Option.none())
          : Spending.thresholdMails(accountId, currency, month, limit.value).pipe(
            Effect.provideService(AccountStore, accounts),
            Effect.provideService(IdGenerator, ids)
          ))
  }

  const checkWith = (lookups: Lookups): Check => (principal, input, now) =>
    Effect.gen(function*() {
      const market = yield* checkMarket(input.market)
      const phoneProblem = Phone.check(input.to, market.code)
      if (phoneProblem !== undefined) {
        return yield* rule(phoneProblem, "to", phoneMessages[phoneProblem](input.to, market.code))
      }
      yield* SenderIdRules.check(market, input.senderId)
      const registered = yield* lookups.sendable(principal.accountId, input.senderId, market.code, now)
      if (Option.isNone(registered)) {
        return yield* rule(
          "sender_id_not_registered",
          "sender_id",
          `Sender ID ${input.senderId} is not registered to your account for ${market.code}.`
        )
      }
      const info = yield* checkBody(input.body, config.maxSegments)
      yield* checkReference(input.reference)
      if (input.callbackUrl !== undefined) yield* callbacks.check(principal.accountId, input.callbackUrl)
      yield* checkScheduledAt(input.scheduledAt, now)
      // CONTRACT §12, last of the rules: one lookup of the store's key, once every other check passed.
      if (yield* lookups.optedOut(principal.accountId, input.to)) {
        return yield* rule(
          "recipient_opted_out",
          "to",
          `${input.to} is on your opt-out list: take it off (DELETE /v1/opt-outs/{phone}) to send to it again.`
        )
      }
      const message: Message = {
        id: yield* ids.make("msg"),
        accountId: principal.accountId,
        status: input.scheduledAt === undefined ? "queued" : "scheduled",
        to: input.to,
        senderId: input.senderId,
        body: input.body,
        segments: info.segments,
        encoding: info.encoding,
        market: market.code,
        ...(input.reference === undefined ? {} : { reference: input.reference }),
        ...(input.callbackUrl === undefined ? {} : { callbackUrl: input.callbackUrl }),
        ...(input.scheduledAt === undefined ? {} : { scheduledAt: input.scheduledAt }),
        price: price(market, info.segments),
        createdAt: now,
        ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
        ...(input.batchId === undefined ? {} : { batchId: input.batchId })
      }
      const event = MessageEvents.isEventful(message)
        ? Option.some(MessageEvents.make(yield* ids.make("evt"), message, now))
        : Option.none()
      // The price joins the month's spend in the insert's transaction, within the limit (CONTRACT §12).
      const mails = yield* lookups.mailsOf(principal.accountId, message.price.currency, Spending.monthOf(now))
      const charge = Spending.charge(principal.accountId, message.price, message.segments, now, mails)
      return { message, event, charge } satisfies Checked
    })

  const forBatch = (principal: Principal, recipients: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const listed = yield* optOuts.listed(principal.accountId, recipients)
      const registration = remembered(direct.sendable)
      const mails = remembered(direct.mailsOf)
      return checkWith({
        sendable: registration,
        optedOut: (_, to) => Effect.succeed(listed.has(to)),
        mailsOf: mails
      })
    })

  return { check: checkWith(direct), forBatch } satisfies SendChecks
})

const phoneMessages: Record<Phone.PhoneProblem, (to: string, market: string) => string> = {
  invalid_phone_number: (to) =>
    `${
      quote(to, "to")
    } is not a valid phone number: to must be E.164 (+, country code, number) and valid in its numbering plan.`,
  not_a_mobile_number: (to) => `${to} is not a mobile number.`,
  phone_market_mismatch: (to, market) => {
    const country = Phone.countryOf(to)
    return country === undefined
      ? `${to} is not a number in market ${market}.`
      : `${to} is a number of ${country}, not of market ${market}.`
  }
}
