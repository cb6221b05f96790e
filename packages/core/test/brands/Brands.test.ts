/**
 * `Brands.create` under an idempotency key, on the real SQLite store: a retry that took over a key
 * abandoned by a crash (the brand committed, its answer never kept) answers the brand the first
 * attempt created, and creates nothing more.
 */
import { assert, layer } from "@effect/vitest"
import { Brands, EventStore, Idempotency, MailStore } from "@sendline/core"
import { Clock, Effect, TestClock } from "effect"
import * as TestCore from "../TestCore.js"

const day = 24 * 3_600_000

/** A valid AU brand of a fresh ACN (its check digit computed), under `key`. */
let acns = 0
const brandInput = (key: string): Brands.CreateBrand => {
  const digits = String(12_345_000 + ++acns).padStart(8, "0")
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * (8 - i), 0)
  return {
    name: "Acme Pty Ltd",
    identifierType: "ACN",
    identifierValue: digits + String((10 - sum % 10) % 10),
    market: "AU",
    contact: { name: "Jo Citizen", email: "jo@acme.example", phone: "+61412345678" },
    idempotencyKey: Idempotency.Key.make(key)
  }
}

const provider = TestCore.seedAccount(["brands:write", "brands:read"])

/** What a created brand left behind: its provider's relationships, the brand's events, and the pending mails naming the provider. */
const leftBy = (accountId: string, brandId: string) =>
  Effect.gen(function*() {
    const principal = { accountId, keyId: "key_test", permissions: new Set(["brands:read" as const]) }
    const relationships = (yield* (yield* Brands.Brands).listRelationships(principal, { pageSize: 100 })).items
    const events = yield* (yield* EventStore.EventStore).listBySubject(accountId, brandId)
    const now = yield* Clock.currentTimeMillis
    const mails = (yield* (yield* MailStore.MailStore).claim(now + day, 1_000, now)).filter((mail) =>
      mail.text.includes(`account ${accountId})`)
    )
    return { relationships: relationships.length, events: events.map((e) => e.type), mails: mails.length }
  })

layer(TestCore.layer)("Brands.create under an idempotency key", (it) => {
  it.effect("a crash between the brand and its kept answer: the retry that takes the key over answers that brand, creating nothing", () =>
    Effect.gen(function*() {
      const { principal } = yield* provider
      const brands = yield* Brands.Brands
      const idempotency = yield* Idempotency.Idempotency
      const input = brandInput("brand-crash-1")
      assert.strictEqual((yield* idempotency.begin(principal.accountId, "brand-crash-1", "f"))._tag, "Reserved")
      const first = yield* brands.create(principal, input)
      assert.strictEqual(first.relationship.idempotencyKey, "brand-crash-1")
      // the process dies here: the brand is committed, its answer never kept; a minute later the
      // same request takes the key over and runs again
      yield* TestClock.adjust(Idempotency.abandonedAfterMillis + 1)
      assert.strictEqual((yield* idempotency.begin(principal.accountId, "brand-crash-1", "f"))._tag, "Reserved")
      const retry = yield* brands.create(principal, input)
      assert.deepStrictEqual(retry, first)
      assert.deepStrictEqual(yield* leftBy(principal.accountId, first.brand.id), {
        relationships: 1,
        events: ["brand.verified"],
        mails: 1
      })
    }))

  it.effect("a retry under the key answers its brand (the identifier compared normalised); another identifier or market is idempotency_conflict", () =>
    Effect.gen(function*() {
      const { principal } = yield* provider
      const brands = yield* Brands.Brands
      const input = brandInput("brand-2")
      const first = yield* brands.create(principal, input)
      const other = brandInput("brand-2")
      assert.strictEqual(yield* TestCore.outcome(brands.create(principal, other)), "idempotency_conflict")
      assert.strictEqual(
        yield* TestCore.outcome(brands.create(principal, { ...input, market: "NZ" })),
        "idempotency_conflict"
      )
      const spaced = {
        ...input,
        identifierValue: `${input.identifierValue.slice(0, 3)} ${input.identifierValue.slice(3)}`
      }
      assert.strictEqual((yield* brands.create(principal, spaced)).brand.id, first.brand.id)
      assert.strictEqual((yield* leftBy(principal.accountId, first.brand.id)).relationships, 1)
    }))

  it.effect("after the key's 24 hours the key starts afresh: a new brand", () =>
    Effect.gen(function*() {
      const { principal } = yield* provider
      const brands = yield* Brands.Brands
      const input = brandInput("brand-3")
      const first = yield* brands.create(principal, input)
      yield* TestClock.adjust(day - 1)
      assert.strictEqual((yield* brands.create(principal, input)).brand.id, first.brand.id)
      yield* TestClock.adjust(2)
      const later = yield* brands.create(principal, input)
      assert.notStrictEqual(later.brand.id, first.brand.id)
      assert.strictEqual((yield* leftBy(principal.accountId, later.brand.id)).relationships, 2)
    }))

  it.effect("creations under one key at once, through several Brands (each its own lock: the store's unique key decides), create one brand", () =>
    Effect.gen(function*() {
      const { principal } = yield* provider
      const instances = yield* Effect.all(Array.from({ length: 4 }, () => Brands.make))
      const input = brandInput("brand-race")
      const answers = yield* Effect.all(
        instances.flatMap((brands) => [brands.create(principal, input), brands.create(principal, input)]),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(answers.map((a) => a.brand.id)).size, 1)
      assert.deepStrictEqual(yield* leftBy(principal.accountId, answers[0]!.brand.id), {
        relationships: 1,
        events: ["brand.verified"],
        mails: 1
      })
    }))
})
