/**
 * The Sender IDs use case (CONTRACT §6, the provider's side): registering a Sender ID for a brand
 * the caller has an approved relationship with, one operator registration per network of the
 * market; reading and listing the caller's Sender IDs; resubmitting after an operator asked for
 * information; renewing a registered one for another term.
 *
 * @since 0.1.0
 */
import {
  Conflict,
  type InvalidRequest,
  NotFound,
  PermissionDenied,
  rule,
  type RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import * as Timestamp from "@sendline/api/Timestamp"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import type { Brand } from "../brands/Brand.js"
import { Brands } from "../brands/Brands.js"
import { IdGenerator } from "../Ids.js"
import { requiredText } from "../internal/text.js"
import * as UseCase from "../internal/useCase.js"
import * as Limits from "../Limits.js"
import * as Markets from "../Markets.js"
import * as Pagination from "../Pagination.js"
import * as DomainMatch from "./DomainMatch.js"
import * as Lifecycle from "./Lifecycle.js"
import type { Registration } from "./Registration.js"
import { type MatchType, type SenderIdRecord, type SenderIdStatus, termMillis } from "./SenderId.js"
import * as SenderIdRules from "./SenderIdRules.js"
import { SenderIdStore, type WithRegistrations } from "./SenderIdStore.js"

/** A registration request, as `POST /v1/sids` takes it. @since 0.1.0 @category models */
export interface Register {
  readonly senderId: string
  readonly brandId: string
  readonly market: string
  readonly useCase: string
  readonly matchType: MatchType
  readonly matchValue: string
}

/** What a resubmission may change. @since 0.1.0 @category models */
export interface Resubmit {
  readonly useCase?: string | undefined
  readonly matchValue?: string | undefined
}

/** A list of the caller's Sender IDs: optional filters, and paging. @since 0.1.0 @category models */
export interface ListSenderIds extends Pagination.Paging {
  readonly status?: SenderIdStatus | undefined
  readonly market?: string | undefined
}

/** The Sender IDs use case. @since 0.1.0 @category services */
export class SenderIds extends Context.Tag("@sendline/core/SenderIds")<SenderIds, {
  /**
   * Checks and registers a Sender ID for the caller, `pending` with one registration per operator
   * network of the market, in one write, held for the brand's legal identifier; 422
   * `pending_sender_id_limit_reached` when the account has `Limits.pendingSenderIds` pending or
   * info_requested already; 409 `sender_id_taken`, naming no one, while another legal entity holds
   * the string or a look-alike in the market. The brand check is the brands' own
   * (`Brands.requireApproved`).
   */
  readonly register: (
    principal: Principal,
    input: Register
  ) => Effect.Effect<
    WithRegistrations,
    RuleViolation | InvalidRequest | NotFound | PermissionDenied | Conflict | StoreUnavailable
  >
  /** The caller's Sender IDs, newest first. */
  readonly list: (
    principal: Principal,
    input: ListSenderIds
  ) => Effect.Effect<Pagination.Page<WithRegistrations>, InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The caller's Sender ID `id`; another account's is not found. */
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<WithRegistrations, NotFound | PermissionDenied | StoreUnavailable>
  /**
   * Resubmits every registration an operator asked for information on (`info_requested →
   * resubmitted`), with the new `useCase` and `matchValue` if given; none asked, or the Sender ID
   * rejected or expired → 409 `invalid_state_transition`.
   */
  readonly resubmit: (
    principal: Principal,
    id: string,
    input: Resubmit
  ) => Effect.Effect<
    WithRegistrations,
    RuleViolation | InvalidRequest | NotFound | PermissionDenied | Conflict | StoreUnavailable
  >
  /**
   * Extends a registered, unexpired Sender ID by 365 days from its `expiresAt` (a new term), only
   * in the last `renewalWindowMillis` before it: earlier, or again in the term (the new term's
   * window is a year away), or not registered → 409 `invalid_state_transition`.
   */
  readonly renew: (
    principal: Principal,
    id: string
  ) => Effect.Effect<WithRegistrations, NotFound | PermissionDenied | Conflict | StoreUnavailable>
}>() {}

/** How long before `expiresAt` a Sender ID may be renewed: 60 days (CONTRACT §6). @since 0.1.0 @category constants */
export const renewalWindowMillis = 60 * 86_400_000

const maxUseCase = 1000
const maxMatchValue = 255

const notFound = (id: string) => `No Sender ID ${id}.`

const invalidState = (message: string) => new Conflict({ code: "invalid_state_transition", message })

/**
 * The refusal of a Sender ID held by another legal entity (CONTRACT §6), which it never names.
 *
 * @since 0.1.0
 * @category errors
 */
export const taken = (senderId: string, market: string): Conflict =>
  new Conflict({
    code: "sender_id_taken",
    message: `Sender ID ${senderId}, or one that looks like it, is held in ${market} by another legal entity.`
  })

/** The services a registration is checked and made with. */
interface Deps {
  readonly brands: Context.Tag.Service<Brands>
  readonly markets: Context.Tag.Service<Markets.Markets>
  readonly ids: Context.Tag.Service<IdGenerator>
}

/** Passes unless `matchType` is a domain match that `brand`'s website lacks or does not hold `senderId` in (`sender_id_domain_mismatch`). */
const checkDomain = (matchType: MatchType, senderId: string, brand: Brand): Effect.Effect<void, RuleViolation> =>
  Effect.gen(function*() {
    const { website } = brand
    if (matchType === "domain") {
      if (website === undefined) {
        return yield* rule(
          "sender_id_domain_mismatch",
          "match_type",
          `A domain match needs a website on brand ${brand.id}; it has none.`
        )
      }
      if (!DomainMatch.matches(senderId, website)) {
        const label = Option.getOrElse(DomainMatch.registrableLabel(website), () => website)
        return yield* rule(
          "sender_id_domain_mismatch",
          "sender_id",
          `${senderId}, lowercased without spaces, does not appear in ${label}, the registrable domain of the brand's website.`
        )
      }
    }
  })

/**
 * The Sender ID `input` asks to register, checked in CONTRACT order (the brand by
 * `Brands.requireApproved`), `pending` with one registration per operator network of its market,
 * as `submittedBy` submits it now; nothing is written.
 */
const checkAndMake = (
  { brands, ids, markets }: Deps,
  principal: Principal,
  input: Register,
  submittedBy: Registration["submittedBy"]
) =>
  Effect.gen(function*() {
    const brand = yield* brands.requireApproved(principal, input.brandId)
    const market = yield* Markets.check(markets, input.market, "Sender IDs of")
    const senderId = yield* SenderIdRules.check(market, input.senderId)
    const useCase = yield* requiredText("use_case", input.useCase, maxUseCase)
    const matchValue = yield* requiredText("match_value", input.matchValue, maxMatchValue)
    yield* checkDomain(input.matchType, senderId, brand)
    const now = yield* Clock.currentTimeMillis
    const record: SenderIdRecord = {
      id: yield* ids.make("sid"),
      accountId: principal.accountId,
      senderId,
      market: market.code,
      brandName: brand.name,
      identifierType: brand.identifierType,
      identifierValue: brand.identifierValue,
      brandId: brand.id,
      useCase,
      matchType: input.matchType,
      matchValue,
      status: "pending",
      createdAt: now,
      version: 0
    }
    const registrations = yield* Effect.forEach(
      market.networks,
      (network) =>
        Effect.map(ids.make("opreg"), (id): Registration => ({
          id,
          sidId: record.id,
          network,
          market: market.code,
          senderId,
          brand: {
            id: brand.id,
            name: brand.name,
            identifierType: brand.identifierType,
            identifierValue: brand.identifierValue
          },
          status: "pending_operator_review",
          useCase,
          matchType: input.matchType,
          matchValue,
          submittedBy,
          submittedAt: now
        }))
    )
    return { record, registrations }
  })

/** Builds the Sender IDs use case on the stores, the markets and the brands. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const store = yield* SenderIdStore
  const accounts = yield* AccountStore
  const brands = yield* Brands
  const markets = yield* Markets.Markets
  const ids = yield* IdGenerator
  const limits = yield* Limits.Limits

  const own = (principal: Principal) => ({ record }: WithRegistrations) => record.accountId === principal.accountId

  const register = fn("SenderIds.register")(function*(principal: Principal, input: Register) {
    yield* requirePermission(principal, "sids:write")
    const account = yield* accounts.findAccount(principal.accountId)
    if (Option.isNone(account)) return yield* Effect.dieMessage(`The account ${principal.accountId} of a key is gone.`)
    const submitterType = account.value.type
    if (submitterType === "operator") {
      return yield* new PermissionDenied({
        code: "permission_denied",
        message: "An operator account reviews Sender IDs; it cannot register one."
      })
    }
    const submittedBy = { accountId: account.value.id, type: submitterType, name: account.value.name }
    const { record, registrations } = yield* checkAndMake({ brands, ids, markets }, principal, input, submittedBy)
    // One legal entity holds a Sender ID string and its look-alikes in a market (CONTRACT §6), and
    // an account has so many pending at once: the store counts and holds, so that registrations at
    // once, in any processes, cannot pass either.
    yield* store.insert(record, registrations, [], limits.pendingSenderIds).pipe(
      Effect.catchTags({
        SenderIdTaken: () => Effect.fail(taken(record.senderId, record.market)),
        PendingLimitReached: ({ limit }) =>
          rule(
            "pending_sender_id_limit_reached",
            "sender_id",
            `This account has ${limit} Sender IDs pending or info_requested, as many as it may have at once; more can be registered once operators decide on some.`
          )
      })
    )
    return { record, registrations }
  })

  const list = fn("SenderIds.list")(function*(principal: Principal, input: ListSenderIds) {
    yield* requirePermission(principal, "sids:read")
    const pageSize = yield* Pagination.pageSizeOf(input.pageSize)
    const filter = { status: input.status, market: input.market }
    const filters = { list: "sids", ...filter }
    const after = yield* Pagination.after(input.cursor, filters)
    const rows = yield* store.list(principal.accountId, filter, after, pageSize + 1)
    return Pagination.of(rows, pageSize, filters, ({ record }) => record)
  })

  const get = fn("SenderIds.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "sids:read")
    const found = yield* store.findById(id)
    if (Option.isNone(found) || !own(principal)(found.value)) return yield* new NotFound({ message: notFound(id) })
    return found.value
  })

  const resubmit = fn("SenderIds.resubmit")(function*(principal: Principal, id: string, input: Resubmit) {
    yield* requirePermission(principal, "sids:write")
    const useCase = input.useCase === undefined ? undefined : yield* requiredText("use_case", input.useCase, maxUseCase)
    const matchValue = input.matchValue === undefined
      ? undefined
      : yield* requiredText("match_value", input.matchValue, maxMatchValue)
    return yield* Lifecycle.update(store, id, notFound(id), own(principal), (current) =>
      Effect.gen(function*() {
        const { record } = current
        const asked = current.registrations.filter((r) => r.status === "info_requested")
        if (record.status === "rejected" || record.status === "expired" || asked.length === 0) {
          return yield* invalidState(
            `Only a Sender ID an operator asked for information on can be resubmitted; ${id} is ${record.status}.`
          )
        }
        const resubmitted = asked.map((r): Registration => {
          const { message: _, ...rest } = r
          return {
            ...rest,
            status: "resubmitted",
            useCase: useCase ?? r.useCase,
            matchValue: matchValue ?? r.matchValue
          }
        })
        const now = yield* Clock.currentTimeMillis
        const changed: SenderIdRecord = {
          ...record,
          ...(useCase === undefined ? {} : { useCase }),
          ...(matchValue === undefined ? {} : { matchValue })
        }
        return yield* Lifecycle.move(ids, current, changed, resubmitted, now)
      }))
  })

  const renew = fn("SenderIds.renew")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "sids:write")
    return yield* Lifecycle.update(store, id, notFound(id), own(principal), (current) =>
      Effect.gen(function*() {
        const { record } = current
        const now = yield* Clock.currentTimeMillis
        if (record.status !== "registered" || record.expiresAt === undefined || record.expiresAt <= now) {
          const status = record.status === "registered" ? "expired" : record.status
          return yield* invalidState(`Only a registered Sender ID can be renewed; ${id} is ${status}.`)
        }
        const opens = record.expiresAt - renewalWindowMillis
        if (now < opens) {
          return yield* invalidState(
            `A Sender ID can be renewed once a term, in the last 60 days before it expires: ${id} from ${
              Timestamp.format(opens)
            }.`
          )
        }
        return yield* Lifecycle.move(ids, current, { ...record, expiresAt: record.expiresAt + termMillis }, [], now)
      }))
  })

  return SenderIds.of({ register, list, get, resubmit, renew })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<
  SenderIds,
  never,
  SenderIdStore | AccountStore | Brands | Markets.Markets | IdGenerator
> = Layer
  .effect(SenderIds, make)
