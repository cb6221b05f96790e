/**
 * The store suite's tests of `BrandStore`: brands, their relationships and their events.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Brand, BrandRelationship, Linked } from "../../brands/Brand.js"
import { BrandStore, SubmissionLimitReached } from "../../brands/BrandStore.js"
import type { Event } from "../../Event.js"
import { EventStore } from "../../EventStore.js"
import { IdempotencyKeyTaken } from "../../idempotency/Idempotency.js"
import { MailStore } from "../../mail/MailStore.js"
import type { Stores } from "../../Stores.js"
import { fresh, freshAccount, makeMail, T } from "../Fixtures.js"

/** A verified AU brand created at `at`, with `fields` over it. */
const makeBrand = (at: number, fields: Partial<Brand> = {}): Brand => ({
  id: fresh("brand"),
  name: "Acme Pty Ltd",
  identifierType: "ABN",
  identifierValue: fresh("ABN"),
  market: "AU",
  status: "verified",
  contact: { name: "Jo Citizen", email: "jo@acme.example", phone: "+61412345678" },
  website: "https://acme.example",
  createdAt: at,
  ...fields
})

/** The relationship of `brand` with the provider `accountId`, in `status`. */
const makeRelationship = (brand: Brand, accountId: string, status: BrandRelationship["status"]): BrandRelationship => ({
  id: fresh("rel"),
  brandId: brand.id,
  provider: { accountId, name: "Acme CPaaS", type: "cpaas" },
  status,
  createdAt: brand.createdAt
})

/** `relationship` under the idempotency key `key`, if given. */
const withKey = (relationship: BrandRelationship, key: string | undefined): BrandRelationship =>
  key === undefined ? relationship : { ...relationship, idempotencyKey: key }

/** The `brand.<status>` event of `brand` for `accountId`. */
const makeBrandEvent = (brand: Brand, accountId: string, at: number): Event => ({
  id: fresh("evt"),
  accountId,
  type: brand.status === "rejected" ? "brand.rejected" : "brand.verified",
  subjectId: brand.id,
  createdAt: at,
  data: { id: brand.id, status: brand.status }
})

/** Inserts a brand of `fields` with a relationship of `accountId` in `status` (under `key` if given), without an event. */
const insertLinked = (
  accountId: string,
  status: BrandRelationship["status"],
  at: number,
  fields: Partial<Brand> = {},
  key?: string
) =>
  Effect.gen(function*() {
    const brand = makeBrand(at, fields)
    const relationship = withKey(makeRelationship(brand, accountId, status), key)
    yield* (yield* BrandStore).insert(brand, relationship, [], [])
    return { brand, relationship } satisfies Linked
  })

/** The id of a brand account's one identifier, as `Fixtures.makeAccount` makes it: its brands are the account's to own. */
const ownedBy = (ownerId: string): Partial<Brand> => ({ identifierType: "ABN", identifierValue: `ABN-${ownerId}` })

/** Registers the tests of `BrandStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("BrandStore: inserts a brand with its relationship, its event and its mail; finds both by either id", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const brand = makeBrand(T)
      const { website: _, ...withoutWebsite } = makeBrand(T + 1)
      const relationship = makeRelationship(brand, accountId, "pending")
      const event = makeBrandEvent(brand, accountId, T)
      const mail = makeMail(fresh("mail"))
      yield* brands.insert(brand, relationship, [event], [mail])
      assert.deepStrictEqual(yield* (yield* MailStore).findById(mail.id), Option.some(mail))
      const linked = { brand, relationship }
      assert.deepStrictEqual(yield* brands.findById(brand.id), Option.some(linked))
      assert.deepStrictEqual(yield* brands.findRelationship(relationship.id), Option.some(linked))
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, brand.id), [event])
      const decided = { ...makeRelationship(withoutWebsite, accountId, "rejected"), decidedAt: T + 5 }
      yield* brands.insert(withoutWebsite, decided, [], [])
      assert.deepStrictEqual(
        yield* brands.findById(withoutWebsite.id),
        Option.some({ brand: withoutWebsite, relationship: decided })
      )
      assert.isTrue(Option.isNone(yield* brands.findById(fresh("brand"))))
      assert.isTrue(Option.isNone(yield* brands.findRelationship(fresh("rel"))))
    }))

  it.effect("BrandStore: insert writes nothing, mail included, when one of its rows is refused", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const first = yield* insertLinked(accountId, "pending", T)
      const brand = makeBrand(T)
      // the same relationship id again: its row is refused, so the brand and the event are not written
      const clash = { ...makeRelationship(brand, accountId, "pending"), id: first.relationship.id }
      const mail = makeMail(fresh("mail"))
      const failed = yield* Effect.either(brands.insert(brand, clash, [makeBrandEvent(brand, accountId, T)], [mail]))
      assert.isTrue(failed._tag === "Left")
      assert.isTrue(Option.isNone(yield* brands.findById(brand.id)))
      assert.isTrue(Option.isNone(yield* (yield* MailStore).findById(mail.id)))
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, brand.id), [])
    }))

  it.effect("BrandStore: transition moves a brand only from its stored status, with its event, one result per move", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const { brand } = yield* insertLinked(accountId, "approved", T, { status: "pending_verification" })
      const verified: Brand = { ...brand, status: "verified" }
      const rejected: Brand = { ...brand, status: "rejected" }
      const event = makeBrandEvent(verified, accountId, T + 1)
      const lost = makeBrandEvent(rejected, accountId, T + 1)
      const moved = yield* brands.transition([
        { next: verified, from: "pending_verification", event: Option.some(event) },
        { next: rejected, from: "pending_verification", event: Option.some(lost) }
      ])
      assert.deepStrictEqual(moved, [true, false])
      assert.strictEqual(Option.getOrThrow(yield* brands.findById(brand.id)).brand.status, "verified")
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, brand.id), [event])
      assert.deepStrictEqual(yield* brands.transition([]), [])
    }))

  it.effect("BrandStore: transitionRelationships decides a relationship only from its stored status", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const { brand, relationship } = yield* insertLinked(yield* freshAccount, "pending", T)
      const approved: BrandRelationship = { ...relationship, status: "approved", decidedAt: T + 7 }
      const rejected: BrandRelationship = { ...relationship, status: "rejected", decidedAt: T + 8 }
      assert.deepStrictEqual(
        yield* brands.transitionRelationships([{ next: approved, from: "pending" }, {
          next: rejected,
          from: "pending"
        }]),
        [true, false]
      )
      assert.deepStrictEqual(
        yield* brands.findRelationship(relationship.id),
        Option.some({ brand, relationship: approved })
      )
    }))

  it.effect("BrandStore: update replaces name, contact and website, and keeps the stored status", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const { brand } = yield* insertLinked(yield* freshAccount, "approved", T, { status: "pending_verification" })
      yield* brands.transition([{
        next: { ...brand, status: "verified" },
        from: "pending_verification",
        event: Option.none()
      }])
      const { website: _, ...rest } = brand
      const changed: Brand = {
        ...rest,
        name: "Acme Holdings",
        contact: { name: "Al", email: "al@acme.example", phone: "+6421234567" }
      }
      yield* brands.update(changed)
      assert.deepStrictEqual(Option.getOrThrow(yield* brands.findById(brand.id)).brand, {
        ...changed,
        status: "verified"
      })
    }))

  it.effect("BrandStore: list answers the account's approved brands and those it owns, newest first, after a keyset", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const other = yield* freshAccount
      const approved = yield* insertLinked(accountId, "approved", T + 1)
      yield* insertLinked(accountId, "pending", T + 2)
      yield* insertLinked(accountId, "rejected", T + 3)
      const owned = yield* insertLinked(other, "pending", T + 2, ownedBy(accountId))
      const tie = yield* insertLinked(accountId, "approved", T + 2)
      yield* insertLinked(other, "approved", T + 4)
      const expected = [owned, tie, approved].map((l) => l.brand).sort((a, b) =>
        b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)
      )
      assert.deepStrictEqual(yield* brands.list(accountId, Option.none(), 10), expected)
      assert.deepStrictEqual(yield* brands.list(accountId, Option.none(), 1), expected.slice(0, 1))
      assert.deepStrictEqual(
        yield* brands.list(accountId, Option.some({ createdAt: expected[0]!.createdAt, id: expected[0]!.id }), 10),
        expected.slice(1)
      )
    }))

  it.effect("BrandStore: listRelationships answers the account's own and those of brands it owns, by status, newest first", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const other = yield* freshAccount
      const mine = yield* insertLinked(accountId, "pending", T + 1)
      const rejected = yield* insertLinked(accountId, "rejected", T + 2)
      const toDecide = yield* insertLinked(other, "pending", T + 3, ownedBy(accountId))
      yield* insertLinked(other, "pending", T + 4)
      assert.deepStrictEqual(yield* brands.listRelationships(accountId, {}, Option.none(), 10), [
        toDecide,
        rejected,
        mine
      ])
      assert.deepStrictEqual(yield* brands.listRelationships(accountId, { status: "pending" }, Option.none(), 10), [
        toDecide,
        mine
      ])
      assert.deepStrictEqual(
        yield* brands.listRelationships(
          accountId,
          {},
          Option.some({ createdAt: T + 2, id: rejected.relationship.id }),
          10
        ),
        [mine]
      )
      assert.deepStrictEqual(yield* brands.listRelationships(other, { status: "rejected" }, Option.none(), 10), [])
    }))

  it.effect("BrandStore: insert under a key another relationship of the provider holds fails IdempotencyKeyTaken, writing nothing", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const key = fresh("idem")
      const holder = yield* insertLinked(accountId, "pending", T, {}, key)
      const brand = makeBrand(T + 1)
      const again = withKey(makeRelationship(brand, accountId, "pending"), key)
      const mail = makeMail(fresh("mail"))
      const error = yield* Effect.flip(brands.insert(brand, again, [makeBrandEvent(brand, accountId, T + 1)], [mail]))
      assert.deepStrictEqual(error, new IdempotencyKeyTaken({ accountId, key }))
      assert.isTrue(Option.isNone(yield* brands.findById(brand.id)))
      assert.isTrue(Option.isNone(yield* (yield* MailStore).findById(mail.id)))
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, brand.id), [])
      assert.deepStrictEqual(yield* brands.findByIdempotencyKey(accountId, key, 0), Option.some(holder))
      assert.isTrue(Option.isNone(yield* brands.findByIdempotencyKey(accountId, key, T + 1)), "created before `since`")
      assert.isTrue(Option.isNone(yield* brands.findByIdempotencyKey(accountId, fresh("idem"), 0)))
      // the key is the provider's own; relationships without one never collide
      const theirs = yield* insertLinked(otherAccountId, "pending", T, {}, key)
      assert.deepStrictEqual(yield* brands.findByIdempotencyKey(otherAccountId, key, 0), Option.some(theirs))
      yield* insertLinked(accountId, "pending", T)
      yield* insertLinked(accountId, "pending", T)
    }))

  it.effect("BrandStore: of concurrent inserts under one key exactly one is written; the others fail IdempotencyKeyTaken", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const key = fresh("idem")
      const attempts = Array.from({ length: 10 }, (_, i) => {
        const brand = makeBrand(T + i)
        return { brand, relationship: withKey(makeRelationship(brand, accountId, "pending"), key) } satisfies Linked
      })
      const results = yield* Effect.all(
        attempts.map(({ brand, relationship }) => Effect.either(brands.insert(brand, relationship, [], []))),
        { concurrency: "unbounded" }
      )
      const written = attempts.filter((_, i) => results[i]!._tag === "Right")
      assert.strictEqual(written.length, 1)
      for (const result of results) {
        if (result._tag === "Left") assert.deepStrictEqual(result.left, new IdempotencyKeyTaken({ accountId, key }))
      }
      assert.deepStrictEqual(yield* brands.findByIdempotencyKey(accountId, key, 0), Option.some(written[0]!))
    }))

  it.effect("BrandStore: releaseIdempotencyKey takes the key off the relationships created before a time; then insert takes it", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const key = fresh("idem")
      const old = yield* insertLinked(accountId, "pending", T, {}, key)
      const theirs = yield* insertLinked(otherAccountId, "pending", T, {}, key)
      const brand = makeBrand(T + 86_400_000)
      const next = withKey(makeRelationship(brand, accountId, "pending"), key)

      yield* brands.releaseIdempotencyKey(accountId, key, T)
      assert.deepStrictEqual(yield* brands.findById(old.brand.id), Option.some(old), "created at `before`: kept")
      assert.strictEqual((yield* Effect.flip(brands.insert(brand, next, [], [])))._tag, "IdempotencyKeyTaken")

      yield* brands.releaseIdempotencyKey(accountId, key, T + 1)
      const { idempotencyKey: _, ...released } = old.relationship
      assert.deepStrictEqual(
        yield* brands.findById(old.brand.id),
        Option.some({ brand: old.brand, relationship: released })
      )
      yield* brands.insert(brand, next, [], [])
      assert.deepStrictEqual(
        yield* brands.findByIdempotencyKey(accountId, key, 0),
        Option.some({ brand, relationship: next })
      )
      assert.deepStrictEqual(
        yield* brands.findByIdempotencyKey(otherAccountId, key, 0),
        Option.some(theirs),
        "another provider's key untouched"
      )
    }))

  it.effect("BrandStore: insert under a limit counts the provider's relationships since its start; at the limit it writes nothing, naming the oldest", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const other = yield* freshAccount
      yield* insertLinked(accountId, "approved", T - 1) // before the window
      const oldest = yield* insertLinked(accountId, "rejected", T + 5)
      yield* insertLinked(accountId, "pending", T + 6)
      yield* insertLinked(other, "pending", T + 7)
      const limit = { max: 3, since: T }
      const brand = makeBrand(T + 8)
      yield* brands.insert(brand, makeRelationship(brand, accountId, "pending"), [], [], limit)
      assert.isTrue(Option.isSome(yield* brands.findById(brand.id)), "the third of the window")

      const refused = makeBrand(T + 9)
      const mail = makeMail(fresh("mail"))
      const error = yield* Effect.flip(
        brands.insert(
          refused,
          makeRelationship(refused, accountId, "pending"),
          [makeBrandEvent(refused, accountId, T + 9)],
          [mail],
          limit
        )
      )
      assert.instanceOf(error, SubmissionLimitReached)
      assert.deepStrictEqual([error.accountId, error.oldestAt], [accountId, oldest.brand.createdAt])
      assert.isTrue(Option.isNone(yield* brands.findById(refused.id)))
      assert.isTrue(Option.isNone(yield* (yield* MailStore).findById(mail.id)))
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, refused.id), [])

      const later = makeBrand(T + 10)
      yield* brands.insert(later, makeRelationship(later, accountId, "pending"), [], [], { max: 3, since: T + 6 })
      const theirs = makeBrand(T + 10)
      yield* brands.insert(theirs, makeRelationship(theirs, other, "pending"), [], [], limit)
    }))

  it.effect("BrandStore: of concurrent inserts of one provider under a limit, exactly the limit are written", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const attempts = Array.from({ length: 12 }, (_, i) => {
        const brand = makeBrand(T + i)
        return { brand, relationship: makeRelationship(brand, accountId, "pending") }
      })
      const results = yield* Effect.all(
        attempts.map(({ brand, relationship }) =>
          Effect.either(brands.insert(brand, relationship, [], [], { max: 5, since: T }))
        ),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => r._tag === "Right").length, 5)
      for (const result of results) {
        if (result._tag === "Left") assert.strictEqual(result.left._tag, "SubmissionLimitReached")
      }
      assert.strictEqual((yield* brands.listRelationships(accountId, {}, Option.none(), 100)).length, 5)
    }))

  it.effect("BrandStore: update with reopen sets the approved relationship back to pending with its mail; a relationship no longer approved writes nothing", () =>
    Effect.gen(function*() {
      const brands = yield* BrandStore
      const accountId = yield* freshAccount
      const inserted = yield* insertLinked(accountId, "pending", T)
      const approved: BrandRelationship = { ...inserted.relationship, status: "approved", decidedAt: T + 1 }
      yield* brands.transitionRelationships([{ next: approved, from: "pending" }])
      const renamed: Brand = { ...inserted.brand, name: "Qantas Airways Limited" }
      const mail = makeMail(fresh("mail"))
      assert.isTrue(yield* brands.update(renamed, { relationshipId: approved.id, mails: [mail] }))
      const { decidedAt: _, ...reopened } = approved
      assert.deepStrictEqual(
        yield* brands.findById(renamed.id),
        Option.some({ brand: renamed, relationship: { ...reopened, status: "pending" } })
      )
      assert.deepStrictEqual(yield* (yield* MailStore).findById(mail.id), Option.some(mail))

      const again: Brand = { ...renamed, website: "https://www.qantas.com.au" }
      const second = makeMail(fresh("mail"))
      assert.isFalse(yield* brands.update(again, { relationshipId: approved.id, mails: [second] }), "pending already")
      assert.strictEqual(Option.getOrThrow(yield* brands.findById(renamed.id)).brand.website, renamed.website)
      assert.isTrue(Option.isNone(yield* (yield* MailStore).findById(second.id)))
      assert.isTrue(
        yield* brands.update({ ...renamed, contact: { ...renamed.contact, name: "Al" } }),
        "without reopen: written"
      )
    }))
}
