/**
 * The demo data of `sendline serve --demo` (CONTRACT §2): a demo organisation with a registered
 * Sender ID in every market, one operator account per network, and a fresh all-permission key that
 * expires after 30 days.
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
  // The demo accounts own no legal identifier, so none can be taken.
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
        expiresAt: now + SenderId.termMillis
      })
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
