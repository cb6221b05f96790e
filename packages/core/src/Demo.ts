/**
 * The demo data of `sendline serve --demo` (CONTRACT §2): a demo organisation with a registered
 * Sender ID in every market, one operator account per network, a demo Brand Owner (a `brand`
 * account owning ABN 51 824 753 556, the Australian Business Register's own example), and fresh
 * keys that expire after 30 days: an all-permission one for the organisation (`ensure`), a brands
 * one for the Brand Owner (`issueBrandOwnerKey`) and a review one for each Australian operator
 * (`issueOperatorKeys`), with which a new user walks a brand and a Sender ID through the registry.
 * The Australian demo Sender ID is itself registered through the registry (`registerThroughRegistry`);
 * those of the other markets are imported, as registered elsewhere, held for the demo brand's ABN
 * (one legal entity everywhere).
 *
 * @since 0.1.0
 */
import * as Permission from "@sendline/api/accounts/Permission"
import { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import type { Account, Principal } from "./accounts/Account.js"
import { AccountStore } from "./accounts/AccountStore.js"
import { Admin } from "./admin/Admin.js"
import { Brands } from "./brands/Brands.js"
import { encodeUlid } from "./Ids.js"
import * as KeyedLock from "./internal/keyedLock.js"
import { Markets } from "./Markets.js"
import { OperatorReview } from "./senderIds/OperatorReview.js"
import * as SenderId from "./senderIds/SenderId.js"
import { SenderIds } from "./senderIds/SenderIds.js"
import { findSendable, SenderIdStore } from "./senderIds/SenderIdStore.js"

/** The demo organisation's fixed id, so that it is created once. @since 0.1.0 @category constants */
export const accountId = "acct_00000000000000000000000001"

/**
 * How long a demo key works: 30 days. Every start issues one and none is revoked (processes
 * starting together on one database each need theirs), so each expires instead of piling up.
 *
 * @since 0.1.0
 * @category constants
 */
export const keyLifetimeMillis = 30 * 86_400_000

/** The demo Brand Owner's fixed id. @since 0.1.0 @category constants */
export const brandOwnerId = "acct_00000000000000000000000002"

/** The legal identifier the demo Brand Owner owns: the ABR's example ABN. @since 0.1.0 @category constants */
export const brandOwnerIdentifier = { identifierType: "ABN", identifierValue: "51824753556" } as const

/** The demo Sender ID, registered in every configured market and renewed once expired. @since 0.1.0 @category constants */
export const senderId = "Sendline"

/** The id of one piece of demo data, the same in every process: time 0, then 80 bits of a hash of `name`. */
const fixedId = (prefix: "acct" | "sid", name: string): string =>
  `${prefix}_${encodeUlid(0, createHash("sha256").update(`sendline-demo/${name}`).digest().subarray(0, 10))}`

/** The demo operator account of `network` in `market`. @since 0.1.0 @category constants */
export const operatorIdOf = (market: string, network: string): string =>
  fixedId("acct", `operator/${market}/${network}`)

/** The market whose demo Sender ID is registered through the registry (the demo brand is Australian); the others are imported. @since 0.1.0 @category constants */
export const registeredMarket = "AU"

/** The demo brand, the organisation's, under the Brand Owner's ABN. */
const demoBrand = {
  name: "Sendline Demo Pty Ltd",
  website: "https://www.sendline.dev",
  contact: { name: "Demo Brand Owner", email: "legal@brand-owner.demo.sendline.test", phone: "+61491570006" }
} as const

/** Demo data is made one start at a time in this process (two processes at once may both register: see `registerThroughRegistry`). */
const demoLock = KeyedLock.make()

/** An account acting inside Sendline, as a key of it with `permissions` would. */
const actingAs = (id: string, permissions: ReadonlyArray<Permission.Permission>): Principal => ({
  accountId: id,
  keyId: "demo",
  permissions: new Set(permissions)
})

/** A refusal of a demo step by a use case is a defect of the demo; the store being down is not. */
const orDie = <A, E extends { readonly _tag: string }>(
  effect: Effect.Effect<A, E | StoreUnavailable>
): Effect.Effect<A, StoreUnavailable> =>
  Effect.catchAll(effect, (error) => error instanceof StoreUnavailable ? Effect.fail(error) : Effect.die(error))

/**
 * The demo Sender ID in `registeredMarket` as a user's goes through the registry: the
 * organisation creates the demo brand under the Brand Owner's ABN (pending), the Brand Owner
 * approves the relationship, the organisation registers the Sender ID, and every operator of the
 * market approves its registration. Each step is skipped when done, so that a start that stopped
 * half way is completed by the next. Two processes starting at once on one database may both
 * register it (both records then send; neither is wrong).
 */
const registerThroughRegistry = Effect.gen(function*() {
  const senderIds = yield* SenderIdStore
  const brands = yield* Brands
  const registry = yield* SenderIds
  const review = yield* OperatorReview
  const markets = yield* Markets
  if (
    Option.isSome(yield* findSendable(senderIds, accountId, senderId, registeredMarket, yield* Clock.currentTimeMillis))
  ) return
  const organisation = actingAs(accountId, Permission.all)
  const owner = actingAs(brandOwnerId, ["brands:read", "brands:write"])
  const { identifierType, identifierValue } = brandOwnerIdentifier
  const relationships = yield* orDie(brands.listRelationships(organisation, { pageSize: 100 }))
  const linked = relationships.items.find(({ brand, relationship }) =>
    brand.identifierValue === identifierValue && brand.name === demoBrand.name && relationship.status !== "rejected"
  ) ??
    (yield* orDie(
      brands.create(organisation, { ...demoBrand, identifierType, identifierValue, market: registeredMarket })
    ))
  if (linked.relationship.status === "pending") {
    yield* orDie(brands.approve(owner, linked.relationship.id))
  }
  const submitted = yield* orDie(registry.list(organisation, { market: registeredMarket, pageSize: 100 }))
  const live = submitted.items.find(({ record }) =>
    record.senderId === senderId && (record.status === "pending" || record.status === "info_requested")
  ) ?? (yield* orDie(registry.register(organisation, {
    senderId,
    brandId: linked.brand.id,
    market: registeredMarket,
    useCase: "Demo messages of the Sendline quick start",
    matchType: "domain",
    matchValue: "sendline.dev"
  })))
  const market = Option.getOrThrow(markets.get(registeredMarket))
  for (const registration of live.registrations) {
    if (registration.status !== "pending_operator_review" && registration.status !== "resubmitted") {
      continue
    }
    const operator = actingAs(operatorIdOf(market.code, registration.network), ["operator:read", "operator:write"])
    yield* orDie(review.decide(operator, registration.id, { status: "approved" }))
  }
})

/**
 * Inserts a record unless `find` finds it. An insert that fails because another process starting
 * on the same database inserted it meanwhile (same fixed id) counts as done: theirs is ours.
 */
const ensureOne = <A>(
  find: Effect.Effect<Option.Option<A>, StoreUnavailable>,
  insert: Effect.Effect<void, StoreUnavailable>
): Effect.Effect<void, StoreUnavailable> =>
  Effect.flatMap(find, (found) =>
    Option.isSome(found)
      ? Effect.void
      : Effect.catchAll(
        insert,
        (error) => Effect.flatMap(find, (again) => (Option.isSome(again) ? Effect.void : Effect.fail(error)))
      ))

/**
 * Creates whatever demo data is missing (each piece has a fixed id, so a start that stopped half
 * way is completed by the next), then issues a new demo key (`keyLifetimeMillis`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const ensure = Effect.gen(function*() {
  const accounts = yield* AccountStore
  const senderIds = yield* SenderIdStore
  const admin = yield* Admin
  const markets = yield* Markets
  const now = yield* Clock.currentTimeMillis
  // Only the Brand Owner owns a legal identifier, and only it can find it taken (below).
  const insertAccount = (account: Account) =>
    Effect.catchTag(accounts.insertAccount(account), "IdentifierTaken", Effect.die)
  yield* ensureOne(
    accounts.findAccount(accountId),
    insertAccount({
      id: accountId,
      name: "Demo Organisation",
      type: "cpaas",
      adminEmail: "admin@demo.sendline.test",
      markets: markets.all.map((m) => m.code),
      identifiers: [],
      createdAt: now
    })
  )
  // A database where another account already owns the example ABN (made with the CLI, say) has no
  // demo Brand Owner: that account is the ABN's owner, and no key of it is issued.
  yield* ensureOne(
    accounts.findAccount(brandOwnerId),
    Effect.catchTag(
      accounts.insertAccount({
        id: brandOwnerId,
        name: "Demo Brand Owner Pty Ltd",
        type: "brand",
        adminEmail: "legal@brand-owner.demo.sendline.test",
        markets: ["AU"],
        identifiers: [brandOwnerIdentifier],
        createdAt: now
      }),
      "IdentifierTaken",
      ({ accountId }) =>
        Effect.logWarning(
          `Demo: ABN ${brandOwnerIdentifier.identifierValue} is owned by ${accountId}; no demo Brand Owner`
        )
    )
  )
  for (const market of markets.all) {
    for (const network of market.networks) {
      yield* ensureOne(
        accounts.findAccount(operatorIdOf(market.code, network)),
        insertAccount({
          id: operatorIdOf(market.code, network),
          name: `${network} (${market.code})`,
          type: "operator",
          adminEmail: `operator@${network}.demo.sendline.test`,
          network,
          markets: [market.code],
          identifiers: [],
          createdAt: now
        })
      )
    }
  }
  const hasOwner = Option.isSome(yield* accounts.findAccount(brandOwnerId))
  // A Sender ID's id is fixed per term of registration, so that a demo started again after its
  // Sender IDs expired registers them anew (and two processes doing so at once, once).
  const term = Math.floor(now / SenderId.termMillis)
  for (const market of markets.all) {
    if (market.code === registeredMarket && hasOwner) {
      yield* demoLock("registry", registerThroughRegistry)
      continue
    }
    yield* ensureOne(
      // by what it is, so that the Sender IDs of a database made before the ids were fixed count too
      findSendable(senderIds, accountId, senderId, market.code, now),
      senderIds.insert(
        {
          id: fixedId("sid", `sender-id/${market.code}/${term}`),
          accountId,
          senderId,
          market: market.code,
          brandName: "Sendline Demo",
          ...brandOwnerIdentifier,
          status: "registered",
          createdAt: now,
          registeredAt: now,
          expiresAt: now + SenderId.termMillis,
          version: 0
        },
        [],
        []
      ).pipe(Effect.catchTags({
        SenderIdTaken: () =>
          Effect.logWarning(
            `Demo: Sender ID ${senderId} in ${market.code} is held by another legal entity; no demo Sender ID there`
          ),
        PendingLimitReached: Effect.die // registered, and no limit given
      }))
    )
  }
  return yield* admin.createKey({ accountId, permissions: Permission.all, expiresAt: now + keyLifetimeMillis })
})

/**
 * A new brands key (`brands:read`, `brands:write`) of the demo Brand Owner that `ensure` created,
 * expiring after `keyLifetimeMillis`; none when another account owns its ABN.
 *
 * @since 0.1.0
 * @category constructors
 */
export const issueBrandOwnerKey = Effect.gen(function*() {
  const accounts = yield* AccountStore
  const admin = yield* Admin
  if (Option.isNone(yield* accounts.findAccount(brandOwnerId))) return Option.none()
  const now = yield* Clock.currentTimeMillis
  const issued = yield* admin.createKey({
    accountId: brandOwnerId,
    permissions: ["brands:read", "brands:write"],
    expiresAt: now + keyLifetimeMillis
  })
  return Option.some(issued)
})

/**
 * A new review key (`operator:read`, `operator:write`) for each demo operator of
 * `registeredMarket`, by network, expiring after `keyLifetimeMillis`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const issueOperatorKeys = Effect.gen(function*() {
  const admin = yield* Admin
  const market = Option.getOrUndefined((yield* Markets).get(registeredMarket))
  const now = yield* Clock.currentTimeMillis
  return yield* Effect.forEach(market?.networks ?? [], (network) =>
    Effect.map(
      admin.createKey({
        accountId: operatorIdOf(registeredMarket, network),
        permissions: ["operator:read", "operator:write"],
        expiresAt: now + keyLifetimeMillis
      }),
      (issued) => ({ network, issued })
    ))
})
