/**
 * The demo data of `sendline serve --demo` (CONTRACT §2): a demo organisation with a registered
 * Sender ID in every market, one operator account per network, and a fresh all-permission key.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { AccountStore } from "./AccountStore.js"
import { Admin } from "./Admin.js"
import { Markets } from "./Markets.js"
import * as Permission from "./Permission.js"

/** The demo organisation's fixed id, so that it is created once. @since 0.1.0 @category constants */
export const accountId = "acct_00000000000000000000000001"

/** The demo Sender ID, registered in every configured market. @since 0.1.0 @category constants */
export const senderId = "Sendline"

/**
 * Creates the demo data unless it exists (the process that creates the account creates the rest),
 * then issues a new demo key.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ensure = Effect.gen(function*() {
  const accounts = yield* AccountStore
  const admin = yield* Admin
  const markets = yield* Markets
  const created = Option.isNone(yield* accounts.findAccount(accountId)) &&
    (yield* accounts.insertAccount({
      id: accountId,
      name: "Demo Organisation",
      type: "cpaas",
      adminEmail: "admin@demo.sendline.test",
      markets: markets.all.map((m) => m.code),
      identifiers: [],
      createdAt: yield* Clock.currentTimeMillis
    }).pipe(
      Effect.as(true),
      // Another process starting on the same database may have created it meanwhile: theirs is ours.
      Effect.catchAll((error) =>
        Effect.flatMap(accounts.findAccount(accountId), (found) => Option.isSome(found) ? Effect.succeed(false) : Effect.fail(error))
      )
    ))
  if (created) {
    for (const market of markets.all) {
      yield* admin.importSenderId({ accountId, senderId, market: market.code, brandName: "Sendline Demo" })
      for (const network of market.networks) {
        yield* admin.createAccount({
          name: `${network} (${market.code})`,
          type: "operator",
          adminEmail: `operator@${network}.demo.sendline.test`,
          network,
          market: market.code
        })
      }
    }
  }
  return yield* admin.createKey({ accountId, permissions: Permission.all })
})
