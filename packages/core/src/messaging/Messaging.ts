/**
 * The messaging use case (CONTRACT §3): send, preview, get, list and cancel.
 *
 * @since 0.1.0
 */
import {
  Conflict,
  invalidParameter,
  type InvalidRequest,
  NotFound,
  type PermissionDenied,
  rule,
  RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import * as FindOrInsert from "../idempotency/FindOrInsert.js"
import type * as Idempotency from "../idempotency/Idempotency.js"
import { IdGenerator } from "../Ids.js"
import { codePoints, loneSurrogate, notWellFormed } from "../internal/text.js"
import * as UseCase from "../internal/useCase.js"
import type * as Markets from "../Markets.js"
import * as MarketsModule from "../Markets.js"
import { Markets as MarketsTag, price } from "../Markets.js"
import { OptOutStore } from "../optOuts/OptOutStore.js"
import * as Pagination from "../Pagination.js"
import * as Phone from "../Phone.js"
import * as SenderIdRules from "../senderIds/SenderIdRules.js"
import { findSendable, SenderIdStore } from "../senderIds/SenderIdStore.js"
import { Callbacks } from "./Callbacks.js"
import type { Message, MessageFilter } from "./Message.js"
import * as MessageEvents from "./MessageEvents.js"
import { MessageStore } from "./MessageStore.js"
import { MessagingConfig } from "./MessagingConfig.js"
import * as Segments from "./Segments.js"
import * as Spending from "./Spending.js"
import { type SpendingLimitReached, SpendingStore } from "./SpendingStore.js"

/** A send request after shape checks; `scheduledAt` in epoch milliseconds. @since 0.1.0 @category models */
export interface SendInput {
  readonly to: string
  readonly senderId: string
  readonly body: string
  readonly market: string
  readonly reference?: string | undefined
  readonly callbackUrl?: string | undefined
  readonly scheduledAt?: number | undefined
  /**
   * The caller's idempotency key (`Idempotency.Key`, checked where it came in): when the account sent a
   * message with it within the key's 24 hours, that message is the answer and nothing is sent (a
   * retry after a crash that lost the first answer). A retry that asks for another message fails
   * `idempotency_conflict`. Sends of one key at the same moment create one message, the answer to
   * them all: within one `Messaging` they run one after the other; across processes the store keeps
   * the key unique per account, and the send that loses answers the winner's message. (`Idempotency`,
   * `begin` then `complete` as the HTTP server does, also replays the first response byte for byte.)
   */
  readonly idempotencyKey?: Idempotency.Key | undefined
}

/** What a preview tells before sending. @since 0.1.0 @category models */
export interface Preview extends Segments.SegmentInfo {
  readonly price: Option.Option<Markets.Price>
  /** With a market (since 0.2.0): the caller's spend this month in its currency, in ten-thousandths. */
  readonly spend: Option.Option<PreviewSpend>
}

/** The caller's spend of the month in a currency, its limit and what remains of it, in ten-thousandths. @since 0.2.0 @category models */
export interface PreviewSpend {
  readonly amount: number
  readonly limit: Option.Option<number>
  readonly remaining: Option.Option<number>
}

/** A list request: filters, an optional cursor and the requested page size (an integer ≥ 1; above the largest is clamped). @since 0.1.0 @category models */
export interface ListInput {
  readonly filter: MessageFilter
  readonly cursor?: string | undefined
  readonly pageSize?: number | undefined
}

/** The messaging use case. @since 0.1.0 @category services */
export class Messaging extends Context.Tag("@sendline/core/Messaging")<Messaging, {
  readonly send: (
    principal: Principal,
    input: SendInput
  ) => Effect.Effect<Message, RuleViolation | InvalidRequest | Conflict | PermissionDenied | StoreUnavailable>
  readonly preview: (
    principal: Principal,
    input: { readonly body: string; readonly market?: string | undefined }
  ) => Effect.Effect<Preview, RuleViolation | InvalidRequest | PermissionDenied | StoreUnavailable>
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Message, NotFound | PermissionDenied | StoreUnavailable>
  readonly list: (
    principal: Principal,
    input: ListInput
  ) => Effect.Effect<Pagination.Page<Message>, InvalidRequest | PermissionDenied | StoreUnavailable>
  readonly cancel: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Message, NotFound | Conflict | PermissionDenied | StoreUnavailable>
}>() {}

/** Whether `message` is what `input` asks to send: an idempotent retry must ask the same. */
const isAskedBy = (message: Message, input: SendInput): boolean =>
  message.to === input.to && message.senderId === input.senderId && message.body === input.body &&
  message.market === input.market && message.reference === input.reference &&
  message.callbackUrl === input.callbackUrl && message.scheduledAt === input.scheduledAt

/**
 * `value` as a refusal may quote it: whole when short, else `instead`. A refusal is kept for its
 * idempotency key, and must stay far below what a key keeps (`Idempotency.maxKeptBytes`).
 */
const quote = (value: string, instead: string): string => value.length <= 64 ? value : instead

const notFound = (id: string) => new NotFound({ message: `No message ${id}.` })

const units = [["day", 86_400_000], ["hour", 3_600_000], ["minute", 60_000], ["second", 1_000]] as const

/** A span of time as people say it, in the largest unit that divides it: "7 days", "36 hours". */
const spell = (millis: number): string => {
  const [unit, size] = units.find(([, length]) => millis >= length && millis % length === 0) ?? ["millisecond", 1]
  const n = millis / size
  return `${n} ${unit}${n === 1 ? "" : "s"}`
}

/** The message that holds the key `input` was sent with: the answer when `input` asks for it, else a conflict. */
const answerHeld = (held: Message, input: SendInput): Effect.Effect<Message, Conflict> =>
  isAskedBy(held, input) ? Effect.succeed(held) : Effect.fail(
    new Conflict({
      code: "idempotency_conflict",
      message: `This idempotency key was already used to send another message (${held.id}).`
    })
  )

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

/** The refusal of a send that would take the spend past the limit, naming both. */
const limitReached = (refused: SpendingLimitReached, price: Markets.Price): RuleViolation =>
  new RuleViolation({
    code: "spending_limit_reached",
    message: `This message (${price.amount} ${refused.currency}) would take this month's spend of ` +
      `${Spending.fromUnits(refused.spend)} ${refused.currency} past the account's monthly limit of ` +
      `${Spending.fromUnits(refused.limit)} ${refused.currency}.`
  })

/** Builds the messaging use case on the stores, the markets and the messaging settings. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const messages = yield* MessageStore
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

  /** The message `input` asks for, checked in CONTRACT order, and its insert with its event. */
  const checkAndMake = (principal: Principal, input: SendInput, now: number) =>
    Effect.gen(function*() {
      const market = yield* checkMarket(input.market)
      const phoneProblem = Phone.check(input.to, market.code)
      if (phoneProblem !== undefined) {
        return yield* rule(phoneProblem, "to", phoneMessages[phoneProblem](input.to, market.code))
      }
      yield* SenderIdRules.check(market, input.senderId)
      const registered = yield* findSendable(senderIds, principal.accountId, input.senderId, market.code, now)
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
      if ((yield* optOuts.listed(principal.accountId, [input.to])).size > 0) {
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
        ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey })
      }
      const event = MessageEvents.isEventful(message)
        ? Option.some(MessageEvents.make(yield* ids.make("evt"), message, now))
        : Option.none()
      // The price joins the month's spend in the insert's transaction, within the limit (CONTRACT §12).
      const limit = yield* spending.limitOf(principal.accountId, message.price.currency)
      const charge = yield* Spending.charge(principal.accountId, message.price, message.segments, now, limit).pipe(
        Effect.provideService(AccountStore, accounts),
        Effect.provideService(IdGenerator, ids)
      )
      const insert = Effect.catchTag(
        messages.insert(message, event, charge),
        "SpendingLimitReached",
        (refused) => Effect.fail(limitReached(refused, message.price))
      )
      return { created: message, insert }
    })

  // A send with a key answers the account's message sent with it, if any (the send path's second
  // guard, shared with brands: `internal/findOrInsert`).
  const findOrInsert = FindOrInsert.make<Message, StoreUnavailable | RuleViolation>({
    find: messages.findByIdempotencyKey,
    release: messages.releaseIdempotencyKey
  })
  const send = fn("Messaging.send")(function*(principal: Principal, input: SendInput) {
    yield* requirePermission(principal, "messaging:send")
    return yield* findOrInsert(principal.accountId, input.idempotencyKey, {
      answerHeld: (held) => answerHeld(held, input),
      create: (now) => checkAndMake(principal, input, now)
    })
  })

  const spendOf = (accountId: string, currency: string) =>
    Effect.gen(function*() {
      const month = Spending.monthOf(yield* Clock.currentTimeMillis)
      const [spends, limit] = yield* Effect.all([
        spending.spendOf(accountId, month),
        spending.limitOf(accountId, currency)
      ])
      const amount = spends.find((s) => s.currency === currency)?.amount ?? 0
      const monthly = Option.map(limit, (l) => l.monthly)
      return {
        amount,
        limit: monthly,
        remaining: Option.map(monthly, (l) => Math.max(0, l - amount))
      } satisfies PreviewSpend
    })

  const preview = fn("Messaging.preview")(
    function*(principal: Principal, input: { readonly body: string; readonly market?: string | undefined }) {
      yield* requirePermission(principal, "messaging:send")
      const market = input.market === undefined ? Option.none() : Option.some(yield* checkMarket(input.market))
      if (loneSurrogate.test(input.body)) return yield* notWellFormed("body")
      const info = Segments.count(input.body)
      const spend = Option.isNone(market)
        ? Option.none()
        : Option.some(yield* spendOf(principal.accountId, market.value.currency))
      return { ...info, price: Option.map(market, (m) => price(m, info.segments)), spend } satisfies Preview
    }
  )

  const find = (principal: Principal, id: string) =>
    Effect.gen(function*() {
      const found = yield* messages.findById(principal.accountId, id)
      if (Option.isNone(found)) return yield* notFound(id)
      return found.value
    })

  const get = fn("Messaging.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "messaging:read")
    return yield* find(principal, id)
  })

  const list = fn("Messaging.list")(
    function*(principal: Principal, input: ListInput) {
      yield* requirePermission(principal, "messaging:read")
      const pageSize = yield* Pagination.pageSizeOf(input.pageSize)
      const market = input.filter.market
      if (market !== undefined && Option.isNone(markets.get(market))) {
        return yield* invalidParameter("market", `market must be one of ${markets.all.map((m) => m.code).join(", ")}.`)
      }
      const filters = { ...input.filter }
      const after = yield* Pagination.after(input.cursor, filters)
      const rows = yield* messages.list(principal.accountId, input.filter, after, pageSize + 1)
      return Pagination.of(rows, pageSize, filters, (m) => m)
    }
  )

  const notCancellable = (status: string) =>
    new Conflict({
      code: "invalid_state_transition",
      message: `Only a scheduled message can be cancelled; this one is ${status}.`
    })

  const cancel = fn("Messaging.cancel")(
    function*(principal: Principal, id: string) {
      yield* requirePermission(principal, "messaging:send")
      const current = yield* find(principal, id)
      if (current.status !== "scheduled") return yield* notCancellable(current.status)
      const cancelled: Message = { ...current, status: "cancelled" }
      const [moved] = yield* messages.transition([{
        next: cancelled,
        from: "scheduled",
        event: Option.none(),
        refund: true
      }])
      if (moved) return cancelled
      return yield* notCancellable((yield* find(principal, id)).status)
    }
  )

  return Messaging.of({ send, preview, get, list, cancel })
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

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<
  Messaging,
  never,
  | MessageStore
  | SenderIdStore
  | OptOutStore
  | Callbacks
  | MarketsTag
  | IdGenerator
  | MessagingConfig
  | SpendingStore
  | AccountStore
> = Layer.effect(Messaging, make)
