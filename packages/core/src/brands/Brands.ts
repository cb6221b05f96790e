/**
 * The brands use case (CONTRACT §5, INTERFACE.md's brand rules 1–3): creating a brand with its
 * relationship, reading, listing and changing brands, the Brand Owner's decision on a
 * relationship, and the verifier's later decision. Who may see a brand is decided here, once
 * (`accessTo`): the provider of an approved relationship reads and changes it; its Brand Owner
 * reads it; a pending relationship is 403 `brand_relationship_pending`; anything else is 404. A
 * provider's change of name or website goes back to the Brand Owner (the relationship pending
 * again); operators never submit brands; an account submits `Limits.brandSubmissionsPerHour` an hour.
 *
 * @since 0.1.0
 */
import {
  Conflict,
  type InvalidRequest,
  NotFound,
  PermissionDenied,
  RateLimited,
  rule,
  type RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Account, Principal } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import type { Event } from "../Event.js"
import * as FindOrInsert from "../idempotency/FindOrInsert.js"
import type * as Idempotency from "../idempotency/Idempotency.js"
import * as Identifier from "../Identifier.js"
import { IdGenerator } from "../Ids.js"
import { requiredText } from "../internal/text.js"
import * as UseCase from "../internal/useCase.js"
import * as Limits from "../Limits.js"
import * as Mail from "../mail/Mail.js"
import * as Markets from "../Markets.js"
import * as Pagination from "../Pagination.js"
import type { Brand, BrandRelationship, Linked } from "./Brand.js"
import * as BrandJson from "./BrandJson.js"
import { BrandStore, type SubmissionLimitReached } from "./BrandStore.js"
import { BrandVerifier } from "./BrandVerifier.js"
import * as Contact from "./Contact.js"
import * as RelationshipMail from "./RelationshipMail.js"
import * as Relationships from "./Relationships.js"

/** A new brand, as `POST /v1/brands` takes it. @since 0.1.0 @category models */
export interface CreateBrand {
  readonly name: string
  readonly identifierType: string
  readonly identifierValue: string
  readonly market: string
  readonly contact: Contact.Contact
  readonly website?: string | undefined
  /**
   * The caller's idempotency key (`Idempotency.Key`, checked where it came in): when the caller
   * created a brand under it within the key's 24 hours, that brand, as it is now, is the answer
   * and nothing is created (a retry after a crash that lost the first answer); a retry that asks
   * for another identifier or market fails `idempotency_conflict`. Creations under one key at the
   * same moment create one brand, the answer to them all (as `Messaging.send`'s key does).
   */
  readonly idempotencyKey?: Idempotency.Key | undefined
}

/**
 * A change to a brand: `name`, `contact` and `website` (null removes it) may change; the
 * identifier and the market may only be given as they are (`immutable_field` otherwise).
 *
 * @since 0.1.0
 * @category models
 */
export interface UpdateBrand {
  readonly name?: string | undefined
  readonly contact?: Contact.Contact | undefined
  readonly website?: string | null | undefined
  readonly identifierType?: string | undefined
  readonly identifierValue?: string | undefined
  readonly market?: string | undefined
}

/** A list of relationships: an optional status, and paging (`Relationships`). @since 0.1.0 @category models */
export type { ListRelationships } from "./Relationships.js"

/** The decision of an asynchronous verifier on a brand left `pending_verification`. @since 0.1.0 @category models */
export type Decision = "verified" | "rejected"

/** The brands use case. @since 0.1.0 @category services */
export class Brands extends Context.Tag("@sendline/core/Brands")<Brands, {
  /**
   * Checks and creates a brand with its relationship to the caller (approved at once when the
   * caller is its Brand Owner, else pending), its verdict's event and, for a pending relationship,
   * the e-mail to the brand's contact (`RelationshipMail`), in one write. Under an idempotency key,
   * the brand the caller already created under it, if any (see `CreateBrand.idempotencyKey`).
   * An operator account never submits (403 `permission_denied`); an account that created
   * `Limits.brandSubmissionsPerHour` brands in the last hour is `rate_limited` until the oldest
   * of them leaves the hour, counted in the store.
   */
  readonly create: (
    principal: Principal,
    input: CreateBrand
  ) => Effect.Effect<
    Linked,
    RuleViolation | InvalidRequest | PermissionDenied | Conflict | RateLimited | StoreUnavailable
  >
  /** The brands the caller may read (approved relationships, and those it owns), newest first. */
  readonly list: (
    principal: Principal,
    paging: Pagination.Paging
  ) => Effect.Effect<Pagination.Page<Brand>, InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The brand, to its approved provider or its Brand Owner; pending → `brand_relationship_pending`; else not found. */
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Brand, NotFound | PermissionDenied | StoreUnavailable>
  /**
   * Changes the brand's name, contact or website, for its approved provider only (pending → 403;
   * else 404). A change of name or website by a provider that is not the Brand Owner sets the
   * relationship back to pending, mailed to the brand's contact (as it was), until the Brand Owner
   * approves again; the contact alone, or values given as they are, change nothing else.
   */
  readonly update: (
    principal: Principal,
    id: string,
    input: UpdateBrand
  ) => Effect.Effect<Brand, RuleViolation | InvalidRequest | NotFound | PermissionDenied | StoreUnavailable>
  /**
   * The brand `brandId` when the caller's relationship with it is approved: what `POST /v1/sids`
   * needs of its `brand_id`. Pending → 403 `brand_relationship_pending`; rejected, none, or a brand
   * the caller only owns → 404. Needs no permission of its own: the caller's endpoint checks its own.
   */
  readonly requireApproved: (
    principal: Principal,
    brandId: string
  ) => Effect.Effect<Brand, NotFound | PermissionDenied | StoreUnavailable>
  /** The relationships the caller may read (its own, and those of brands it owns), newest first. */
  readonly listRelationships: (
    principal: Principal,
    input: Relationships.ListRelationships
  ) => Effect.Effect<Pagination.Page<Linked>, InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The relationship, to its provider or its brand's Brand Owner; else not found. */
  readonly getRelationship: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Linked, NotFound | PermissionDenied | StoreUnavailable>
  /** Approves a pending relationship: the Brand Owner only (its provider gets 403); not pending → 409. */
  readonly approve: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Linked, NotFound | PermissionDenied | Conflict | StoreUnavailable>
  /** Rejects a pending relationship: the Brand Owner only (its provider gets 403); not pending → 409. */
  readonly reject: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Linked, NotFound | PermissionDenied | Conflict | StoreUnavailable>
  /**
   * An asynchronous verifier's decision on a brand it left `pending_verification`: the brand moves
   * to `decision` with its `brand.verified` or `brand.rejected` event, in one write. Any other
   * status → 409 `invalid_state_transition`. Not an API call: the embedder's verifier makes it.
   */
  readonly completeVerification: (
    brandId: string,
    decision: Decision
  ) => Effect.Effect<Brand, NotFound | Conflict | StoreUnavailable>
}>() {}

const hour = 3_600_000

/** What the caller may do with a brand: read and change it, only read it, nothing yet (pending), or nothing. */
type Access = "provider" | "owner" | "pending" | "none"

/** The services the brands use case is built on, as its functions take them. */
interface Deps extends Relationships.Deps {
  readonly markets: Context.Tag.Service<Markets.Markets>
  readonly verifier: Context.Tag.Service<BrandVerifier>
  readonly ids: Context.Tag.Service<IdGenerator>
  readonly limits: Limits.Settings
}

const brandNotFound = (id: string) => new NotFound({ message: `No brand ${id}.` })
const pending = (id: string) =>
  new PermissionDenied({
    code: "brand_relationship_pending",
    message: `Your relationship with brand ${id} is pending: its Brand Owner has not approved it yet.`
  })

/** `name` when it is not blank and at most 255 characters (else `invalid_parameter`), without control, bidi or zero-width characters (else `invalid_characters`). */
const checkName = (name: string): Effect.Effect<string, InvalidRequest | RuleViolation> =>
  requiredText("name", name, 255)

/**
 * Whether the brand `held` is what `input` asks to create: its identifier and market, which never
 * change. Its name, contact and website may have been changed since (PATCH): the retry answers the
 * brand as it is now.
 */
const isAskedBy = ({ brand }: Linked, input: CreateBrand): boolean =>
  brand.identifierType === input.identifierType &&
  brand.identifierValue === Identifier.normalise(input.identifierValue) &&
  brand.market === input.market

/** The brand that holds the key `input` was sent with: the answer when `input` asks for it, else a conflict. */
const answerHeld = (held: Linked, input: CreateBrand): Effect.Effect<Linked, Conflict> =>
  isAskedBy(held, input) ? Effect.succeed(held) : Effect.fail(
    new Conflict({
      code: "idempotency_conflict",
      message: `This idempotency key was already used to create another brand (${held.brand.id}).`
    })
  )

/** The pending mail of `draft`, its id from the use case's generator `ids`. */
const mailOf = (ids: Context.Tag.Service<IdGenerator>, draft: Mail.Draft) =>
  Effect.provideService(Mail.make(draft), IdGenerator, ids)

/** The one rule of who sees a brand (CONTRACT §5; INTERFACE.md rules 2 and 3); its Brand Owner is looked up only when needed. */
const accessTo = (
  ownerOf: Deps["ownerOf"],
  principal: Principal,
  { brand, relationship }: Linked
): Effect.Effect<Access, StoreUnavailable> =>
  relationship.provider.accountId === principal.accountId && relationship.status === "approved"
    ? Effect.succeed("provider")
    : Effect.map(ownerOf(brand), (owner): Access =>
      Option.contains(owner, principal.accountId)
        ? "owner"
        : relationship.provider.accountId === principal.accountId && relationship.status === "pending"
        ? "pending"
        : "none")

/** The brand `id` when the caller's access (`accessTo`) is one of `allowed`; pending → 403; else 404. */
const findAs = (
  { brands, ownerOf }: Relationships.Deps,
  principal: Principal,
  id: string,
  allowed: ReadonlyArray<Access>
) =>
  Effect.gen(function*() {
    const found = yield* brands.findById(id)
    if (Option.isNone(found)) return yield* brandNotFound(id)
    const access = yield* accessTo(ownerOf, principal, found.value)
    if (allowed.includes(access)) return found.value
    return yield* access === "pending" ? pending(id) : brandNotFound(id)
  })

/** The `brand.verified` or `brand.rejected` event of `brand`'s status, for the provider `accountId`; none while pending. */
const eventOf = (
  ids: Context.Tag.Service<IdGenerator>,
  brand: Brand,
  accountId: string,
  at: number
): Effect.Effect<Option.Option<Event>> => {
  const { status } = brand
  if (status === "pending_verification") return Effect.succeed(Option.none())
  return Effect.map(ids.make("evt"), (id) =>
    Option.some<Event>({
      id,
      accountId,
      type: `brand.${status}`,
      subjectId: brand.id,
      createdAt: at,
      data: BrandJson.eventData(brand)
    }))
}

/** The 429 of an account past its brands an hour, until the oldest of them (`oldestAt`) leaves the hour. */
const tooMany = (limits: Limits.Settings, now: number) => ({ oldestAt }: SubmissionLimitReached) =>
  new RateLimited({
    message: `This account has submitted ${limits.brandSubmissionsPerHour} brands in the last hour, the most it may; ` +
      "retry after Retry-After seconds.",
    retryAfterSeconds: Math.max(1, Math.ceil((oldestAt + hour - now) / 1000))
  })

/** The brand and relationship `input` asks for, checked in CONTRACT order, and their insert with the event and mail. */
const checkAndMake = (
  { brands, ids, limits, markets, ownerOf, verifier }: Deps,
  account: Account,
  input: CreateBrand,
  now: number
) =>
  Effect.gen(function*() {
    const name = yield* checkName(input.name)
    const market = yield* Markets.check(markets, input.market, "Brands of")
    const identifierValue = yield* Identifier.checkIn(market, input.identifierType, input.identifierValue)
    const contact = yield* Contact.check(input.contact)
    const website = input.website === undefined ? undefined : yield* Contact.checkWebsite(input.website)
    const checked: Brand = {
      id: yield* ids.make("brand"),
      name,
      identifierType: input.identifierType,
      identifierValue,
      market: market.code,
      status: "pending_verification",
      contact,
      ...(website === undefined ? {} : { website }),
      createdAt: now
    }
    const brand: Brand = { ...checked, status: yield* verifier.verify(checked) }
    const owner = yield* ownerOf(brand)
    const relationship: BrandRelationship = {
      id: yield* ids.make("rel"),
      brandId: brand.id,
      provider: { accountId: account.id, name: account.name, type: account.type },
      status: Option.contains(owner, account.id) ? "approved" : "pending",
      createdAt: now,
      ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey })
    }
    const event = yield* eventOf(ids, brand, account.id, now)
    // a pending relationship tells the brand's contact what to approve, and how (CONTRACT §5)
    const mails = relationship.status === "pending"
      ? [yield* mailOf(ids, RelationshipMail.make(brand, relationship))]
      : []
    const created: Linked = { brand, relationship }
    // counted in the insert's own transaction, so that concurrent submissions never pass the limit
    const limit = { max: limits.brandSubmissionsPerHour, since: now - hour + 1 }
    const insert = brands.insert(brand, relationship, Option.toArray(event), mails, limit).pipe(
      Effect.catchTag("SubmissionLimitReached", (reached) => Effect.fail(tooMany(limits, now)(reached)))
    )
    return { insert: Effect.as(insert, created) }
  })

/** `given` for an immutable field: refused when it differs from `stored`. */
const unchanged = (field: string, given: string | undefined, stored: string) =>
  given === undefined || given === stored
    ? Effect.void
    : Effect.fail(rule("immutable_field", field, `${field} cannot be changed; create a new brand instead.`))

/** Builds the brands use case on the stores, the markets and the verifier. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const brands = yield* BrandStore
  const accounts = yield* AccountStore
  const markets = yield* Markets.Markets
  const verifier = yield* BrandVerifier
  const ids = yield* IdGenerator
  const limits = yield* Limits.Limits

  const ownerOf = (brand: Brand) => accounts.findBrandOwner(brand.identifierType, brand.identifierValue)
  const deps: Deps = { fn, brands, ownerOf, markets, verifier, ids, limits }

  // A creation with a key answers the brand the caller created under it, if any: the send path's
  // second guard, shared (`internal/findOrInsert`).
  const findOrInsert = FindOrInsert.make<Linked, StoreUnavailable | RateLimited>({
    find: brands.findByIdempotencyKey,
    release: brands.releaseIdempotencyKey
  })
  const create = fn("Brands.create")(function*(principal: Principal, input: CreateBrand) {
    yield* requirePermission(principal, "brands:write")
    const account = yield* accounts.findAccount(principal.accountId)
    if (Option.isNone(account)) return yield* Effect.dieMessage(`The account ${principal.accountId} of a key is gone.`)
    if (account.value.type === "operator") {
      return yield* new PermissionDenied({
        code: "permission_denied",
        message: "An operator account reviews Sender IDs; it never submits a brand."
      })
    }
    return yield* findOrInsert(principal.accountId, input.idempotencyKey, {
      answerHeld: (held) => answerHeld(held, input),
      create: (now) => checkAndMake(deps, account.value, input, now)
    })
  })

  const list = fn("Brands.list")(function*(principal: Principal, paging: Pagination.Paging) {
    yield* requirePermission(principal, "brands:read")
    const pageSize = yield* Pagination.pageSizeOf(paging.pageSize)
    const filters = { list: "brands" }
    const after = yield* Pagination.after(paging.cursor, filters)
    const rows = yield* brands.list(principal.accountId, after, pageSize + 1)
    return Pagination.of(rows, pageSize, filters, (b) => b)
  })

  const get = fn("Brands.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "brands:read")
    return (yield* findAs(deps, principal, id, ["provider", "owner"])).brand
  })

  const update = fn("Brands.update")(function*(principal: Principal, id: string, input: UpdateBrand) {
    yield* requirePermission(principal, "brands:write")
    const { brand, relationship } = yield* findAs(deps, principal, id, ["provider"])
    yield* unchanged("identifier_type", input.identifierType, brand.identifierType)
    yield* unchanged(
      "identifier_value",
      input.identifierValue === undefined ? undefined : Identifier.normalise(input.identifierValue),
      brand.identifierValue
    )
    yield* unchanged("market", input.market, brand.market)
    const name = input.name === undefined ? brand.name : yield* checkName(input.name)
    const contact = input.contact === undefined ? brand.contact : yield* Contact.check(input.contact)
    const website = input.website === undefined
      ? brand.website
      : input.website === null
      ? undefined
      : yield* Contact.checkWebsite(input.website)
    const { website: _, ...rest } = brand
    const changed: Brand = { ...rest, name, contact, ...(website === undefined ? {} : { website }) }
    const change: RelationshipMail.Change = {
      ...(name === brand.name ? {} : { name: { before: brand.name, after: name } }),
      ...(website === brand.website ? {} : { website: { before: brand.website, after: website } })
    }
    // a change of what the Brand Owner approved goes back to it, unless the owner made it (CONTRACT §5)
    const reopens = Object.keys(change).length > 0 && !Option.contains(yield* ownerOf(brand), principal.accountId)
    if (!reopens) yield* brands.update(changed)
    else {
      // to the contact the owner approved, not one this change sets: a change never redirects its own review
      const mail = yield* mailOf(
        ids,
        RelationshipMail.make({ ...changed, contact: brand.contact }, relationship, change)
      )
      if (!(yield* brands.update(changed, { relationshipId: relationship.id, mails: [mail] }))) {
        return yield* pending(id)
      }
    }
    // the status as stored now: a verifier may have decided meanwhile
    return Option.match(yield* brands.findById(id), {
      onNone: () => changed,
      onSome: (found) => ({ ...changed, status: found.brand.status })
    })
  })

  const requireApproved = fn("Brands.requireApproved")(function*(principal: Principal, brandId: string) {
    return (yield* findAs(deps, principal, brandId, ["provider"])).brand
  })

  const completeVerification = fn("Brands.completeVerification")(function*(brandId: string, decision: Decision) {
    const found = yield* brands.findById(brandId)
    if (Option.isNone(found)) return yield* brandNotFound(brandId)
    const { brand, relationship } = found.value
    const notPendingVerification = (status: string) =>
      new Conflict({
        code: "invalid_state_transition",
        message: `Only a brand pending verification can be decided; ${brandId} is ${status}.`
      })
    if (brand.status !== "pending_verification") return yield* notPendingVerification(brand.status)
    const next: Brand = { ...brand, status: decision }
    const event = yield* eventOf(ids, next, relationship.provider.accountId, yield* Clock.currentTimeMillis)
    const [moved] = yield* brands.transition([{ next, from: "pending_verification", event }])
    if (moved) return next
    const now = yield* brands.findById(brandId)
    return yield* notPendingVerification(Option.match(now, { onNone: () => "gone", onSome: (l) => l.brand.status }))
  })

  return Brands.of({
    create,
    list,
    get,
    update,
    requireApproved,
    ...Relationships.make(deps),
    completeVerification
  })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<
  Brands,
  never,
  BrandStore | AccountStore | Markets.Markets | BrandVerifier | IdGenerator
> = Layer.effect(Brands, make)
