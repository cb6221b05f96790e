/**
 * The demo data of `sendline serve --demo` (CONTRACT §2): a demo organisation with a registered
 * Sender ID in every market, one operator account per network, a demo Brand Owner (a `brand`
 * account owning ABN 51 824 753 556, the Australian Business Register's own example), and fresh
 * keys that expire after 30 days: an all-permission one for the organisation (`ensure`) and a
 * brands one for the Brand Owner (`issueBrandOwnerKey`), with which a new user walks a brand from
 * its creation to its approval.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import type { Account } from "./accounts/Account.js"
import { AccountStore } from "./accounts/AccountStore.js"
import { Admin } from "./accounts/Admin.js"
import type { StoreUnavailable } from "./Errors.js"
import { encodeUlid } from "./Ids.js"
import { Markets } from "./Markets.js"
import * as Permission from "./accounts/Permission.js"
import * as SenderId from "./senderIds/SenderId.js"
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
      : Effect.catchAll(insert, (error) =>
        Effect.flatMap(find, (again) => (Option.isSome(again) ? Effect.void : Effect.fail(error)))))

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
  const insertAccount = (account: Account) => Effect.catchTag(accounts.insertAccount(account), "IdentifierTaken", Effect.die)
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
      ({ accountId }) => Effect.logWarning(`Demo: ABN ${brandOwnerIdentifier.identifierValue} is owned by ${accountId}; no demo Brand Owner`)
    )
  )
  // A Sender ID's id is fixed per term of registration, so that a demo started again after its
  // Sender IDs expired registers them anew (and two processes doing so at once, once).
  const term = Math.floor(now / SenderId.termMillis)
  for (const market of markets.all) {
    yield* ensureOne(
      // by what it is, so that the Sender IDs of a database made before the ids were fixed count too
      findSendable(senderIds, accountId, senderId, market.code, now),
      senderIds.insert({
        id: fixedId("sid", `sender-id/${market.code}/${term}`),
        accountId,
        senderId,
        market: market.code,
        brandName: "Sendline Demo",
        status: "registered",
        createdAt: now,
        registeredAt: now,
        expiresAt: now + SenderId.termMillis,
        version: 0
      }, [], []).pipe(Effect.catchTag("SenderIdTaken", ({ brandName }) =>
        Effect.logWarning(`Demo: Sender ID ${senderId} in ${market.code} is held by brand ${brandName}; no demo Sender ID there`)))
    )
    for (const network of market.networks) {
      const operatorId = fixedId("acct", `operator/${market.code}/${network}`)
      yield* ensureOne(
        accounts.findAccount(operatorId),
        insertAccount({
          id: operatorId,
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
