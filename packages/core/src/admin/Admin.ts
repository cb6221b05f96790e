/**
 * Administration (CONTRACT §2, §10): accounts, API keys and imported Sender IDs. A library call and
 * the CLI; there is no public HTTP endpoint for it.
 *
 * @since 0.1.0
 */
import type { Permission } from "@sendline/api/accounts/Permission"
import {
  type Conflict,
  invalidParameter,
  type InvalidRequest,
  NotFound,
  rule,
  type RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import type { Stream } from "effect"
import { Clock, Context, Effect, Either, Layer, Option } from "effect"
import type { Account, AccountType, ApiKey, OwnedIdentifier } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import * as Auth from "../accounts/Auth.js"
import * as Contact from "../brands/Contact.js"
import * as Identifier from "../Identifier.js"
import { IdGenerator } from "../Ids.js"
import * as UseCase from "../internal/useCase.js"
import { Markets } from "../Markets.js"
import * as Spending from "../messaging/Spending.js"
import { type Limit, SpendingStore } from "../messaging/SpendingStore.js"
import * as OptOuts from "../optOuts/OptOuts.js"
import type { OptOutStore } from "../optOuts/OptOutStore.js"
import * as SenderId from "../senderIds/SenderId.js"
import * as SenderIdRules from "../senderIds/SenderIdRules.js"
import { taken } from "../senderIds/SenderIds.js"
import { findSendable, SenderIdStore } from "../senderIds/SenderIdStore.js"

/**
 * A request for a new account; an operator names its market and one of that market's networks; a
 * brand may own legal identifiers (each of a type some market takes, passing `Identifier.check`,
 * owned by no other account).
 *
 * @since 0.1.0
 * @category models
 */
export interface CreateAccount {
  readonly name: string
  readonly type: AccountType
  readonly adminEmail: string
  readonly network?: string | undefined
  readonly market?: string | undefined
  readonly identifiers?: ReadonlyArray<OwnedIdentifier> | undefined
}

/** A request for a new API key of an account, with its permissions and optional expiry. @since 0.1.0 @category models */
export interface CreateKey {
  readonly accountId: string
  readonly permissions: ReadonlyArray<Permission>
  readonly expiresAt?: number | undefined
}

/** A new key: the stored record and its secret, shown only now. @since 0.1.0 @category models */
export interface IssuedKey {
  readonly apiKey: ApiKey
  readonly secret: string
}

/**
 * A Sender ID registered outside Sendline, to record for an account in one market: `identifier`,
 * the legal identifier of the brand it is registered to (of a type the market takes), holds it;
 * `brandName` is shown, never compared.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportSenderId {
  readonly accountId: string
  readonly senderId: string
  readonly market: string
  readonly identifier: OwnedIdentifier
  readonly brandName: string
}

/** Administration. @since 0.1.0 @category services */
export class Admin extends Context.Tag("@sendline/core/Admin")<Admin, {
  /**
   * Creates an account. A brand's identifiers are checked as a brand's are (`Identifier`) and
   * stored normalised, each once; one that another Brand Owner owns is refused
   * (`invalid_identifier`, naming the owner), however many creations run at once.
   */
  readonly createAccount: (
    input: CreateAccount
  ) => Effect.Effect<Account, InvalidRequest | RuleViolation | StoreUnavailable>
  readonly createKey: (input: CreateKey) => Effect.Effect<IssuedKey, InvalidRequest | NotFound | StoreUnavailable>
  readonly revokeKey: (id: string) => Effect.Effect<void, NotFound | StoreUnavailable>
  /**
   * Records a Sender ID registered elsewhere as `registered` for a year, if it keeps its market's
   * rules (`SenderIdRules`, else `invalid_sender_id`) and its identifier is one the market takes
   * and passes its checks (`Identifier.checkIn`, else `invalid_identifier`); when the account
   * already has it registered in the market for this identifier, that record is the answer. A
   * Sender ID or look-alike another legal entity holds in the market (a live record of any account
   * with another identifier) is `sender_id_taken`, naming no one, however many imports run at once.
   */
  readonly importSenderId: (
    input: ImportSenderId
  ) => Effect.Effect<SenderId.SenderIdRecord, InvalidRequest | RuleViolation | NotFound | Conflict | StoreUnavailable>
  /**
   * Sets the account's monthly spending limit in a currency of the configured markets, replacing
   * the one it had (CONTRACT §12): `monthly` a decimal of up to 4 places ("500.00"); the account's
   * limits after it, by currency. Since 0.2.0.
   */
  readonly setSpendingLimit: (
    input: SetSpendingLimit
  ) => Effect.Effect<ReadonlyArray<Limit>, InvalidRequest | NotFound | StoreUnavailable>
  /** Removes the account's limit in `currency` (not found when it has none); its limits after it. Since 0.2.0. */
  readonly removeSpendingLimit: (
    accountId: string,
    currency: string
  ) => Effect.Effect<ReadonlyArray<Limit>, NotFound | StoreUnavailable>
  /**
   * Imports a CSV of numbers into the account's opt-out list exactly as `POST /v1/opt-outs/import`
   * does (`OptOuts.importCsv`: streamed, in chunks, idempotent); not found when there is no such
   * account. Since 0.2.0.
   */
  readonly importOptOuts: <E>(
    accountId: string,
    csv: Stream.Stream<string, E>
  ) => Effect.Effect<OptOuts.Imported, E | NotFound | StoreUnavailable>
}>() {}

/** A monthly spending limit to set: its currency and amount ("AUD", "500.00"). @since 0.2.0 @category models */
export interface SetSpendingLimit {
  readonly accountId: string
  readonly currency: string
  readonly monthly: string
}

/** The account `id`; not found when there is none. */
const requireAccount = (accounts: Context.Tag.Service<AccountStore>, id: string) =>
  Effect.flatMap(
    accounts.findAccount(id),
    Option.match({
      onNone: () => Effect.fail(new NotFound({ message: `No account ${id}.` })),
      onSome: Effect.succeed
    })
  )

/** The configured market `code`; `invalid_parameter` when there is none. */
const requireMarket = (markets: Context.Tag.Service<Markets>, code: string) =>
  Option.match(markets.get(code), {
    onNone: () => invalidParameter("market", `Market ${code} is not configured.`),
    onSome: Effect.succeed
  })

/** A Brand Owner's identifiers: each of a type some market takes, valid, normalised, each once. */
const checkIdentifiers = (markets: Context.Tag.Service<Markets>, identifiers: ReadonlyArray<OwnedIdentifier>) =>
  Effect.gen(function*() {
    const checked: Array<OwnedIdentifier> = []
    for (const { identifierType, identifierValue } of identifiers) {
      if (!markets.all.some((market) => Identifier.allowedIn(market, identifierType))) {
        const types = [...new Set(markets.all.flatMap((market) => market.identifierTypes))].join(", ")
        return yield* rule(
          "invalid_identifier",
          "identifiers",
          `No market takes ${identifierType} identifiers; they take ${types}.`
        )
      }
      const value = yield* Either.mapLeft(
        Identifier.check(identifierType, identifierValue),
        (refused) => rule("invalid_identifier", "identifiers", refused.message)
      )
      const owned = { identifierType, identifierValue: value }
      if (!checked.some((o) => o.identifierType === identifierType && o.identifierValue === value)) {
        checked.push(owned)
      }
    }
    return checked
  })

/** Refuses the first of `identifiers` that a Brand Owner owns, naming the owner. */
const refuseOwned = (accounts: Context.Tag.Service<AccountStore>, identifiers: ReadonlyArray<OwnedIdentifier>) =>
  Effect.forEach(
    identifiers,
    ({ identifierType, identifierValue }) =>
      Effect.flatMap(
        accounts.findBrandOwner(identifierType, identifierValue),
        (owner) =>
          Option.isNone(owner) ? Effect.void : rule(
            "invalid_identifier",
            "identifiers",
            `${identifierType} ${identifierValue} is owned by another Brand Owner account (${owner.value}).`
          )
      ),
    { discard: true }
  )

/** A new account's fields, checked in order, and its identifiers as `checkIdentifiers` answers them; it reads no store. */
const checkAccount = (markets: Context.Tag.Service<Markets>, input: CreateAccount) =>
  Effect.gen(function*() {
    if (input.name.trim() === "") return yield* invalidParameter("name", "name must not be empty.")
    if (!Contact.isEmail(input.adminEmail)) {
      return yield* invalidParameter("admin_email", "admin_email must be an e-mail address.")
    }
    if (input.type === "operator") {
      const market = Option.fromNullable(input.market).pipe(Option.flatMap(markets.get))
      if (Option.isNone(market)) return yield* invalidParameter("market", "An operator needs a configured market.")
      if (input.network === undefined || !market.value.networks.includes(input.network)) {
        return yield* invalidParameter("network", `network must be one of ${market.value.networks.join(", ")}.`)
      }
    } else {
      if (input.network !== undefined) {
        return yield* invalidParameter("network", "Only an operator account has a network.")
      }
      if (input.market !== undefined) yield* requireMarket(markets, input.market)
    }
    if (input.type !== "brand" && (input.identifiers ?? []).length > 0) {
      return yield* invalidParameter("identifiers", "Only a brand account owns legal identifiers.")
    }
    return yield* checkIdentifiers(markets, input.identifiers ?? [])
  })

/** An import's market, Sender ID, identifier and brand name, checked in order; the legal entity that would hold it. */
const checkImport = (markets: Context.Tag.Service<Markets>, input: ImportSenderId) =>
  Effect.gen(function*() {
    const market = yield* requireMarket(markets, input.market)
    yield* SenderIdRules.check(market, input.senderId)
    const { identifierType } = input.identifier
    const identifierValue = yield* Either.mapLeft(
      Identifier.checkIn(market, identifierType, input.identifier.identifierValue),
      (refused) => rule("invalid_identifier", "identifier", refused.message)
    )
    const holder: OwnedIdentifier = { identifierType, identifierValue }
    if (input.brandName.trim() === "") return yield* invalidParameter("brand_name", "brand_name must not be empty.")
    return holder
  })

/** Builds the administration use case on the account and Sender ID stores. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const accounts = yield* AccountStore
  const senderIds = yield* SenderIdStore
  const markets = yield* Markets
  const ids = yield* IdGenerator
  const spending = yield* SpendingStore
  const optOuts = yield* OptOuts.make

  const currencies = [...new Set(markets.all.map((m) => m.currency))].sort()
  const setSpendingLimit = fn("Admin.setSpendingLimit")(
    function*(input: SetSpendingLimit) {
      yield* requireAccount(accounts, input.accountId)
      if (!currencies.includes(input.currency)) {
        return yield* invalidParameter("currency", `currency must be one of ${currencies.join(", ")}.`)
      }
      const monthly = Spending.toUnits(input.monthly)
      if (Option.isNone(monthly)) {
        return yield* invalidParameter(
          "monthly",
          "monthly must be an amount with at most 4 decimal places, e.g. 500.00."
        )
      }
      yield* spending.setLimit(input.accountId, { currency: input.currency, monthly: monthly.value })
      return yield* spending.limits(input.accountId)
    }
  )

  const removeSpendingLimit = fn("Admin.removeSpendingLimit")(
    function*(accountId: string, currency: string) {
      yield* requireAccount(accounts, accountId)
      const removed = yield* spending.removeLimit(accountId, currency)
      if (!removed) return yield* new NotFound({ message: `Account ${accountId} has no ${currency} spending limit.` })
      return yield* spending.limits(accountId)
    }
  )

  const createAccount = fn("Admin.createAccount")(
    function*(input: CreateAccount) {
      const identifiers = yield* checkAccount(markets, input)
      yield* refuseOwned(accounts, identifiers)
      const account: Account = {
        id: yield* ids.make("acct"),
        name: input.name,
        type: input.type,
        adminEmail: input.adminEmail,
        ...(input.type === "operator" ? { network: input.network! } : {}),
        markets: input.market === undefined ? [] : [input.market],
        identifiers,
        createdAt: yield* Clock.currentTimeMillis
      }
      // Another creation with one of these identifiers may have been written since they were looked
      // up: the store refuses this one then, and the owner is named as above.
      yield* Effect.catchTag(accounts.insertAccount(account), "IdentifierTaken", () =>
        Effect.zipRight(
          refuseOwned(accounts, identifiers),
          rule(
            "invalid_identifier",
            "identifiers",
            "Another Brand Owner account took one of these identifiers meanwhile."
          )
        ))
      return account
    }
  )

  const createKey = fn("Admin.createKey")(
    function*(input: CreateKey) {
      yield* requireAccount(accounts, input.accountId)
      if (input.permissions.length === 0) {
        return yield* invalidParameter("permissions", "A key needs at least one permission.")
      }
      const now = yield* Clock.currentTimeMillis
      if (input.expiresAt !== undefined && input.expiresAt <= now) {
        return yield* invalidParameter("expires_at", "expires_at must be in the future.")
      }
      const secret = "sk_" + (yield* ids.token(40))
      const apiKey: ApiKey = {
        id: yield* ids.make("key"),
        accountId: input.accountId,
        digest: Auth.digest(secret),
        permissions: [...new Set(input.permissions)],
        ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
        createdAt: now
      }
      yield* accounts.insertKey(apiKey)
      return { apiKey, secret }
    }
  )

  const revokeKey = fn("Admin.revokeKey")(
    function*(id: string) {
      const revoked = yield* accounts.revokeKey(id, yield* Clock.currentTimeMillis)
      if (!revoked) return yield* new NotFound({ message: `No active key ${id}.` })
    }
  )

  const importSenderId = fn("Admin.importSenderId")(
    function*(input: ImportSenderId) {
      yield* requireAccount(accounts, input.accountId)
      const holder = yield* checkImport(markets, input)
      const now = yield* Clock.currentTimeMillis
      // Importing again answers the account's live registration of it for this legal entity, rather
      // than a second one.
      const existing = yield* findSendable(senderIds, input.accountId, input.senderId, input.market, now)
      if (Option.isSome(existing) && SenderId.sameHolder(existing.value, holder)) return existing.value
      const record: SenderId.SenderIdRecord = {
        id: yield* ids.make("sid"),
        accountId: input.accountId,
        senderId: input.senderId,
        market: input.market,
        brandName: input.brandName,
        ...holder,
        status: "registered",
        createdAt: now,
        registeredAt: now,
        expiresAt: now + SenderId.termMillis,
        version: 0
      }
      // One legal entity holds a Sender ID string and its look-alikes in a market while it is live
      // (CONTRACT §6), whichever accounts send for it: the store holds it, so two imports at once
      // cannot both. An imported record is registered: no pending limit is given, none reached.
      yield* senderIds.insert(record, [], []).pipe(Effect.catchTags({
        SenderIdTaken: () => Effect.fail(taken(input.senderId, input.market)),
        PendingLimitReached: Effect.die
      }))
      return record
    }
  )

  // The administrator imports for the account as a key of its with `opt_outs:write` would.
  const importOptOuts = <E>(accountId: string, csv: Stream.Stream<string, E>) =>
    Effect.flatMap(
      requireAccount(accounts, accountId),
      () =>
        optOuts.importCsv({ accountId, keyId: "admin", permissions: new Set(["opt_outs:write"]) }, csv).pipe(
          Effect.catchTag("PermissionDenied", (denied) => Effect.die(denied))
        )
    ).pipe(Effect.withSpan("Admin.importOptOuts"))

  return Admin.of({
    createAccount,
    createKey,
    revokeKey,
    importSenderId,
    setSpendingLimit,
    removeSpendingLimit,
    importOptOuts
  })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<
  Admin,
  never,
  AccountStore | SenderIdStore | Markets | IdGenerator | SpendingStore | OptOutStore
> = Layer.effect(
  Admin,
  make
)
