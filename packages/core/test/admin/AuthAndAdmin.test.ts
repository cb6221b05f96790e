import { assert, layer } from "@effect/vitest"
import { Admin, Auth, SenderId } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { Clock, Effect, TestClock } from "effect"
import * as TestCore from "../TestCore.js"

layer(TestCore.layer)("Auth and Admin", (it) => {
  it.effect("a created key authenticates as its account with its permissions", () =>
    Effect.gen(function*() {
      const { account, issued } = yield* TestCore.seedAccount(["messaging:read"])
      assert.match(issued.secret, /^sk_[0-9A-Za-z]{40}$/)
      assert.notStrictEqual(issued.apiKey.digest, issued.secret)
      const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${issued.secret}`)
      assert.strictEqual(principal.accountId, account.id)
      assert.deepStrictEqual([...principal.permissions], ["messaging:read"])
    }))

  it.effect("missing, malformed and unknown keys are unauthenticated", () =>
    Effect.gen(function*() {
      const auth = yield* Auth.Auth
      for (const header of [undefined, "Basic abc", "Bearer sk_short", `Bearer sk_${"a".repeat(40)}`]) {
        assert.strictEqual(yield* TestCore.outcome(auth.authenticate(header)), "unauthenticated")
      }
    }))

  it.effect("a key expires at expires_at, read from the clock", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const admin = yield* Admin.Admin
      const auth = yield* Auth.Auth
      const expiresAt = (yield* Clock.currentTimeMillis) + 60_000
      const issued = yield* admin.createKey({ accountId: account.id, permissions: ["messaging:send"], expiresAt })
      assert.strictEqual(yield* TestCore.outcome(auth.authenticate(`Bearer ${issued.secret}`)), "ok")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* TestCore.outcome(auth.authenticate(`Bearer ${issued.secret}`)), "unauthenticated")
    }))

  it.effect("a revoked key is refused, and revoking twice is not found", () =>
    Effect.gen(function*() {
      const { issued } = yield* TestCore.seedAccount()
      const admin = yield* Admin.Admin
      yield* admin.revokeKey(issued.apiKey.id)
      assert.strictEqual(
        yield* TestCore.outcome((yield* Auth.Auth).authenticate(`Bearer ${issued.secret}`)),
        "unauthenticated"
      )
      assert.strictEqual(yield* TestCore.outcome(admin.revokeKey(issued.apiKey.id)), "not_found")
    }))

  it.effect("operator accounts need a configured market and one of its networks", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const operator = (market: string, network: string) =>
        TestCore.outcome(
          admin.createAccount({ name: "Op", type: "operator", adminEmail: "op@x.test", market, network })
        )
      assert.strictEqual(yield* operator("AU", "telstra"), "ok")
      assert.strictEqual(yield* operator("AU", "spark"), "invalid_parameter")
      assert.strictEqual(yield* operator("US", "att"), "invalid_parameter")
    }))

  it.effect("what an account type does not have is refused, not dropped: a network, identifiers, an unknown market", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const create = (input: Partial<Admin.CreateAccount>) =>
        TestCore.outcome(admin.createAccount({ name: "Acme", type: "cpaas", adminEmail: "ops@acme.test", ...input }))
      assert.strictEqual(yield* create({ market: "AU" }), "ok")
      assert.strictEqual(yield* create({ network: "telstra", market: "AU" }), "invalid_parameter")
      assert.strictEqual(yield* create({ market: "US" }), "invalid_parameter")
      const abn = [{ identifierType: "ABN", identifierValue: "51824753556" }]
      assert.strictEqual(yield* create({ identifiers: abn }), "invalid_parameter")
      assert.strictEqual(yield* create({ type: "brand", identifiers: abn }), "ok")
    }))

  it.effect("a key cannot be created already expired", () =>
    Effect.gen(function*() {
      const { account } = yield* TestCore.seedAccount()
      const admin = yield* Admin.Admin
      const now = yield* Clock.currentTimeMillis
      const key = (expiresAt: number) =>
        TestCore.outcome(admin.createKey({ accountId: account.id, permissions: ["messaging:send"], expiresAt }))
      assert.strictEqual(yield* key(now), "invalid_parameter")
      assert.strictEqual(yield* key(now - 86_400_000), "invalid_parameter")
      assert.strictEqual(yield* key(now + 1), "ok")
    }))

  it.effect("importing a Sender ID the account already has registered answers that record, not a second one", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const account = yield* admin.createAccount({ name: "Twice", type: "cpaas", adminEmail: "ops@twice.test" })
      const input = {
        accountId: account.id,
        senderId: "Twice",
        market: "AU",
        identifier: Fixtures.exampleIdentifiers.AU!,
        brandName: "Twice Pty"
      }
      const first = yield* admin.importSenderId(input)
      assert.strictEqual((yield* admin.importSenderId(input)).id, first.id)
      assert.strictEqual(
        (yield* admin.importSenderId({ ...input, brandName: "Twice Group" })).id,
        first.id,
        "the entity decides, not its name"
      )
      assert.notStrictEqual(
        (yield* admin.importSenderId({ ...input, market: "NZ", identifier: Fixtures.exampleIdentifiers.NZ! })).id,
        first.id
      )
    }))

  it.effect("importing a Sender ID that breaks its market's rules is invalid_sender_id naming the rule; another market's rules may allow it", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const account = yield* admin.createAccount({ name: "Ruled", type: "cpaas", adminEmail: "ops@ruled.test" })
      const input = {
        accountId: account.id,
        senderId: "Billing",
        market: "AU",
        identifier: Fixtures.exampleIdentifiers.AU!,
        brandName: "Billing Pty"
      }
      const error = yield* Effect.flip(admin.importSenderId(input))
      assert.strictEqual(error.code, "invalid_sender_id")
      assert.include(error.message, "restricted generic words in AU")
      assert.strictEqual(
        yield* TestCore.outcome(
          admin.importSenderId({ ...input, market: "GB", identifier: Fixtures.exampleIdentifiers.GB! })
        ),
        "ok"
      )
      assert.strictEqual(
        yield* TestCore.outcome(admin.importSenderId({ ...input, senderId: "Acme!" })),
        "invalid_sender_id"
      )
    }))

  it.effect("an import names a legal identifier of a type its market takes, passing its checks: else invalid_identifier", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const account = yield* admin.createAccount({ name: "Named", type: "cpaas", adminEmail: "ops@named.test" })
      const input = { accountId: account.id, senderId: "Named", market: "AU", brandName: "Named Pty" }
      for (
        const [identifierType, identifierValue] of [["NZBN", "9429041561461"], ["ABN", "51824753557"], [
          "TFN",
          "123"
        ]] as const
      ) {
        const error = yield* Effect.flip(
          admin.importSenderId({ ...input, identifier: { identifierType, identifierValue } })
        )
        assert.deepStrictEqual(["field" in error ? error.field : undefined, error.code], [
          "identifier",
          "invalid_identifier"
        ], identifierType)
      }
      const imported = yield* admin.importSenderId({
        ...input,
        identifier: { identifierType: "ABN", identifierValue: "51 824 753 556" }
      })
      assert.deepStrictEqual([imported.identifierType, imported.identifierValue], ["ABN", "51824753556"], "normalised")
    }))

  it.effect("a Sender ID or look-alike another legal entity holds in the market is sender_id_taken, naming no one; one entity may be imported by several accounts, under any brand name", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const account = (name: string) => admin.createAccount({ name, type: "cpaas", adminEmail: "ops@held.test" })
      const [first, second, third] = [yield* account("First"), yield* account("Second"), yield* account("Third")]
      const holder = { identifierType: "ACN", identifierValue: "010499966" }
      const other = Fixtures.exampleIdentifiers.AU!
      const held = { senderId: "Held", market: "AU", identifier: holder, brandName: "Held Pty" }
      yield* admin.importSenderId({ ...held, accountId: first.id })
      // another entity, even under the holder's brand name, in any look-alike
      for (const senderId of ["Held", "HELD", "He1d", "H eld"]) {
        const error = yield* Effect.flip(
          admin.importSenderId({ ...held, senderId, accountId: second.id, identifier: other })
        )
        assert.strictEqual(error.code, "sender_id_taken")
        assert.strictEqual(
          error.message,
          `Sender ID ${senderId}, or one that looks like it, is held in AU by another legal entity.`
        )
      }
      assert.strictEqual(
        yield* TestCore.outcome(admin.importSenderId({ ...held, accountId: first.id, brandName: "Renamed Pty" })),
        "ok",
        "its own entity under another brand name"
      )
      assert.strictEqual(yield* TestCore.outcome(admin.importSenderId({ ...held, accountId: third.id })), "ok")
      assert.strictEqual(
        yield* TestCore.outcome(
          admin.importSenderId({
            ...held,
            market: "NZ",
            accountId: second.id,
            identifier: Fixtures.exampleIdentifiers.NZ!
          })
        ),
        "ok"
      )

      yield* TestClock.adjust(SenderId.termMillis)
      assert.strictEqual(
        yield* TestCore.outcome(admin.importSenderId({ ...held, accountId: second.id, identifier: other })),
        "ok",
        "once the holder's registrations expired"
      )
    }))

  it.effect("a Sender ID import needs a brand name", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const account = yield* admin.createAccount({ name: "Nameless", type: "cpaas", adminEmail: "ops@nameless.test" })
      for (const brandName of ["", "   "]) {
        const error = yield* Effect.flip(
          admin.importSenderId({
            accountId: account.id,
            senderId: "Nameless",
            market: "AU",
            identifier: Fixtures.exampleIdentifiers.AU!,
            brandName
          })
        )
        assert.strictEqual("field" in error ? error.field : undefined, "brand_name")
      }
    }))

  it.effect("keys and Sender IDs need an existing account", () =>
    Effect.gen(function*() {
      const admin = yield* Admin.Admin
      const missing = "acct_0000000000000000000000000z"
      assert.strictEqual(
        yield* TestCore.outcome(admin.createKey({ accountId: missing, permissions: ["messaging:send"] })),
        "not_found"
      )
      assert.strictEqual(
        yield* TestCore.outcome(
          admin.importSenderId({
            accountId: missing,
            senderId: "Acme",
            market: "AU",
            identifier: Fixtures.exampleIdentifiers.AU!,
            brandName: "A"
          })
        ),
        "not_found"
      )
    }))
})
