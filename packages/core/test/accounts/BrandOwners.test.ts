/**
 * `Admin.createAccount` for Brand Owners: their legal identifiers pass the brand checks, are stored
 * normalised, and have one owner.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { AccountStore, Admin, Markets } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Either, Layer, Option } from "effect"
import * as TestCore from "../TestCore.js"

/** A brand account created through `Admin` with `identifiers`, as TYPE:VALUE pairs. */
const createBrand = (name: string, ...identifiers: ReadonlyArray<readonly [string, string]>) =>
  Effect.flatMap(Admin.Admin, (admin) =>
    admin.createAccount({
      name,
      type: "brand",
      adminEmail: "legal@brand.test",
      identifiers: identifiers.map(([identifierType, identifierValue]) => ({ identifierType, identifierValue }))
    }))

/** What a refused creation says: its code, field and message. */
const refusal = <A, E extends { readonly code: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => ({
    code: error.code,
    field: "field" in error ? error.field : undefined,
    message: error.message
  }))

layer(TestCore.layer)("Admin: Brand Owners", (it) => {
  it.effect("a brand's identifiers are checked as a brand's, stored normalised and once, and make it their Brand Owner", () =>
    Effect.gen(function*() {
      const account = yield* createBrand("Acme Pty Ltd", ["ABN", "51 824 753 556"], ["ABN", "51824753556"], [
        "ACN",
        "010 499 966"
      ])
      assert.deepStrictEqual(account.identifiers, [
        { identifierType: "ABN", identifierValue: "51824753556" },
        { identifierType: "ACN", identifierValue: "010499966" }
      ])
      const accounts = yield* AccountStore.AccountStore
      assert.deepStrictEqual(yield* accounts.findBrandOwner("ABN", "51824753556"), Option.some(account.id))
      assert.deepStrictEqual(yield* accounts.findBrandOwner("ACN", "010499966"), Option.some(account.id))
      assert.deepStrictEqual(
        (yield* accounts.findAccount(account.id)).pipe(Option.map((a) => a.identifiers)),
        Option.some(account.identifiers)
      )
    }))

  it.effect("an identifier that fails its check, or of a type Sendline does not know, is invalid_identifier for --identifier", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* refusal(createBrand("Typo Pty", ["ABN", "51 824 753 557"])), {
        code: "invalid_identifier",
        field: "identifiers",
        message: "ABN 51824753557 fails its check digits."
      })
      assert.deepStrictEqual(yield* refusal(createBrand("Short Pty", ["ACN", "12345"])), {
        code: "invalid_identifier",
        field: "identifiers",
        message: "An ACN is 9 digits (spaces are ignored)."
      })
      assert.deepStrictEqual(yield* refusal(createBrand("Acme Inc", ["EIN", "12-3456789"])), {
        code: "invalid_identifier",
        field: "identifiers",
        message: "No market takes EIN identifiers; they take ABN, ACN, NZBN, UEN, CRN."
      })
    }))

  it.effect("an identifier another Brand Owner owns is refused, naming the owner, and nothing of the new account is created", () =>
    Effect.gen(function*() {
      const owner = yield* createBrand("Fonterra", ["NZBN", "9429036748471"])
      assert.deepStrictEqual(
        yield* refusal(createBrand("Imitation Ltd", ["UEN", "196800306E"], ["NZBN", "9429 0367 48471"])),
        {
          code: "invalid_identifier",
          field: "identifiers",
          message: `NZBN 9429036748471 is owned by another Brand Owner account (${owner.id}).`
        }
      )
      assert.isTrue(Option.isNone(yield* (yield* AccountStore.AccountStore).findBrandOwner("UEN", "196800306E")))
    }))
})

/** The account inserts the store refused `IdentifierTaken`, by account id. */
const taken: Array<string> = []

/**
 * The store under `Admin`, its owner lookups giving way to other fibers first: two creations at
 * once both look before either inserts, so the store's key is what refuses the second.
 */
const slowLookups = Layer.effect(
  AccountStore.AccountStore,
  Effect.map(AccountStore.AccountStore, (accounts) => ({
    ...accounts,
    findBrandOwner: (identifierType: string, identifierValue: string) =>
      Effect.zipLeft(accounts.findBrandOwner(identifierType, identifierValue), Effect.repeatN(Effect.yieldNow(), 10)),
    insertAccount: (account: Parameters<typeof accounts.insertAccount>[0]) =>
      Effect.tapErrorTag(
        accounts.insertAccount(account),
        "IdentifierTaken",
        (error) => Effect.sync(() => taken.push(error.accountId))
      )
  }))
)

describe("Admin: Brand Owners created at once", () => {
  it.effect("of two creations at once with one identifier, one creates its account; the other is refused, naming it", () =>
    Effect.gen(function*() {
      const outcomes = yield* Effect.all(
        [createBrand("First", ["CRN", "SC123456"]), createBrand("Second", ["CRN", "sc 123456"])].map(Effect.either),
        { concurrency: "unbounded" }
      )
      const created = outcomes.filter(Either.isRight).map((outcome) => outcome.right)
      const refused = outcomes.filter(Either.isLeft).map((outcome) => outcome.left)
      assert.strictEqual(created.length, 1)
      assert.strictEqual(refused[0]?.code, "invalid_identifier")
      assert.strictEqual(
        refused[0]?.message,
        `CRN SC123456 is owned by another Brand Owner account (${created[0]!.id}).`
      )
      assert.strictEqual(taken.length, 1, "both looked before either inserted: the store refused the second")
    }).pipe(
      Effect.provide(
        TestCore.layerOn(
          Layer.provideMerge(slowLookups, SqliteStore.layerSqlite({ filename: ":memory:" })),
          Markets.layer
        )
      )
    ))
})
