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
  type RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import type { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import * as FindOrInsert from "../idempotency/FindOrInsert.js"
import type * as Idempotency from "../idempotency/Idempotency.js"
import type { IdGenerator } from "../Ids.js"
import { loneSurrogate, notWellFormed } from "../internal/text.js"
import * as UseCase from "../internal/useCase.js"
import type * as Markets from "../Markets.js"
import * as MarketsModule from "../Markets.js"
import { Markets as MarketsTag, price } from "../Markets.js"
import type { OptOutStore } from "../optOuts/OptOutStore.js"
import * as Pagination from "../Pagination.js"
import type { SenderIdStore } from "../senderIds/SenderIdStore.js"
import type { Callbacks } from "./Callbacks.js"
import type { Message, MessageFilter } from "./Message.js"
import { MessageStore } from "./MessageStore.js"
import type { MessagingConfig } from "./MessagingConfig.js"
import * as Segments from "./Segments.js"
import * as SendChecks from "./SendChecks.js"
import * as Spending from "./Spending.js"
import { SpendingStore } from "./SpendingStore.js"
import * as Template from "./Template.js"

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

/**
 * A preview request: the body, and optionally the market to price it in and (since 0.3.0) the
 * `variables` that fill its placeholders (`Template`), as a batch's message would be filled.
 *
 * @since 0.3.0
 * @category models
 */
export interface PreviewInput {
  readonly body: string
  readonly market?: string | undefined
  readonly variables?: Readonly<Record<string, string>> | undefined
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
    input: PreviewInput
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

const notFound = (id: string) => new NotFound({ message: `No message ${id}.` })

/** The message that holds the key `input` was sent with: the answer when `input` asks for it, else a conflict. */
const answerHeld = (held: Message, input: SendInput): Effect.Effect<Message, Conflict> =>
  isAskedBy(held, input) ? Effect.succeed(held) : Effect.fail(
    new Conflict({
      code: "idempotency_conflict",
      message: `This idempotency key was already used to send another message (${held.id}).`
    })
  )

/**
 * `body` with its placeholders filled from `variables` (`Template`): else the rule
 * `missing_variable`, naming the placeholders without a variable.
 *
 * @since 0.3.0
 * @category checks
 */
export const fillBody = (
  body: string,
  variables: Readonly<Record<string, string>>
): Effect.Effect<string, RuleViolation> => {
  const filled = Template.fill(body, variables)
  if (filled._tag === "Filled") return Effect.succeed(filled.body)
  const names = filled.names.map((name) => `{{${name}}}`).join(", ")
  return Effect.fail(
    rule(
      "missing_variable",
      "variables",
      `body has ${names} but variables has no ${filled.names.length === 1 ? "value" : "values"} for ${
        filled.names.length === 1 ? "it" : "them"
      }.`
    )
  )
}

/** Builds the messaging use case on the stores, the markets and the messaging settings. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const messages = yield* MessageStore
  const markets = yield* MarketsTag
  const spending = yield* SpendingStore
  const checks = yield* SendChecks.make
  const checkMarket = (code: string) => MarketsModule.check(markets, code, "Sending to")

  /** The message `input` asks for, checked as every send is (`SendChecks`), and its insert with its event and charge. */
  const checkAndMake = (principal: Principal, input: SendInput, now: number) =>
    Effect.map(checks.check(principal, input, now), ({ charge, event, message }) => ({
      insert: messages.insert(message, event, charge).pipe(
        Effect.catchTag(
          "SpendingLimitReached",
          (refused) => Effect.fail(SendChecks.limitReached(refused, message.price))
        ),
        Effect.as(message)
      )
    }))

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
    function*(principal: Principal, input: PreviewInput) {
      yield* requirePermission(principal, "messaging:send")
      const market = input.market === undefined ? Option.none() : Option.some(yield* checkMarket(input.market))
      const body = input.variables === undefined ? input.body : yield* fillBody(input.body, input.variables)
      if (loneSurrogate.test(body)) return yield* notWellFormed("body")
      const info = Segments.count(body)
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
