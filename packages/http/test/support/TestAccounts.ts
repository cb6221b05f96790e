/**
 * The accounts a test calls the server as: each new account, with the keys it is given, made through
 * `Admin` as an operator of Sendline would.
 */
import { Admin, Permission } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { Effect } from "effect"

/** A caller: an account and one of its API keys. */
export interface Caller {
  readonly accountId: string
  readonly keyId: string
  readonly key: string
}

/** A new key of `accountId` holding `permissions`, working until `expiresAt` when given. */
export const newKey = (
  accountId: string,
  permissions: ReadonlyArray<Permission.Permission>,
  expiresAt?: number
): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.flatMap(Admin.Admin, (admin) => admin.createKey({ accountId, permissions, expiresAt })).pipe(
    Effect.map(({ apiKey, secret }) => ({ accountId, keyId: apiKey.id, key: secret })),
    Effect.orDie
  )

/** A new account with `senderIds` registered (each `[senderId, market]`) and a key with `permissions` (every one unless given). */
export const newCaller = (options: {
  readonly senderIds?: ReadonlyArray<readonly [string, string]>
  readonly permissions?: ReadonlyArray<Permission.Permission>
} = {}): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: "Test Org", type: "cpaas", adminEmail: "admin@test.example" })
    for (const [senderId, market] of options.senderIds ?? []) {
      yield* admin.importSenderId({
        accountId: account.id,
        senderId,
        market,
        identifier: Fixtures.exampleIdentifiers[market]!,
        brandName: "Test Brand"
      })
    }
    return yield* newKey(account.id, options.permissions ?? Permission.all)
  }).pipe(Effect.orDie)

/** A new operator account of `network` in `market` (AU's telstra unless given), with a key to review its registrations. */
export const newOperator = (network = "telstra", market = "AU"): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({
      name: `${network} (${market})`,
      type: "operator",
      adminEmail: `ops@${network}.example`,
      network,
      market
    })
    return yield* newKey(account.id, ["operator:read", "operator:write"])
  }).pipe(Effect.orDie)
