/**
 * The core's use cases over a real SQLite `:memory:` store, with deterministic ids, for tests
 * that drive time with TestClock.
 */
import { Admin, BrandVerifier, Ids, Markets, MessagingConfig, Services } from "@sendline/core"
import type { Account, Permission } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Either, Layer } from "effect"

/** Use cases over `stores` (every store port, and whatever else that layer gives), with `markets` and `verifier` (the defaults unless given), counter ids and default settings. */
export const layerOn = <ROut, E>(
  stores: Layer.Layer<ROut, E>,
  markets: Layer.Layer<Markets.Markets> = Markets.layer,
  verifier: Layer.Layer<BrandVerifier.BrandVerifier> = BrandVerifier.layer
) =>
  Services.layerWithoutDefaults.pipe(
    Layer.provideMerge(Layer.mergeAll(markets, Ids.layerTest, MessagingConfig.layer(), verifier)),
    Layer.provideMerge(stores)
  )

/** Use cases + a SQLite `:memory:` store, fresh per `layer(...)` block. */
export const layer = layerOn(SqliteStore.layerSqlite({ filename: ":memory:" }))

/** The legal entity every test's "Acme" is imported for: the ABR's example ABN. */
export const acme = Fixtures.exampleIdentifiers.AU!

/** A new account with a key holding `permissions` and the Sender ID "Acme" registered in AU. */
export const seedAccount = (permissions: ReadonlyArray<Permission.Permission> = ["messaging:send", "messaging:read"]) =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: "Acme", type: "cpaas", adminEmail: "ops@acme.test" })
    yield* admin.importSenderId({
      accountId: account.id,
      senderId: "Acme",
      market: "AU",
      identifier: acme,
      brandName: "Acme Pty Ltd"
    })
    const issued = yield* admin.createKey({ accountId: account.id, permissions })
    const principal: Account.Principal = {
      accountId: account.id,
      keyId: issued.apiKey.id,
      permissions: new Set(issued.apiKey.permissions)
    }
    return { account, issued, principal }
  })

/** What `effect` came to: "ok", or its error's CONTRACT code ("not_found", "unauthenticated"…). */
export const outcome = <A, E extends { readonly code: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result): string => Either.isRight(result) ? "ok" : result.left.code)

/** A valid AU send request from "Acme". */
export const auMessage = { to: "+61412345678", senderId: "Acme", body: "Hello", market: "AU" } as const
