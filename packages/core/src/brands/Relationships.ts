/**
 * The relationships of the brands use case (CONTRACT §5, INTERFACE.md's brand rule 3): listing and
 * reading them, and the Brand Owner's decision on a pending one. `Brands.make` builds them on the
 * services it holds, and they are its own (`Brands.listRelationships`, `Brands.approve`…).
 */
import { Conflict, NotFound, PermissionDenied, type StoreUnavailable } from "@sendline/api/Errors"
import { Clock, type Context, Effect, Option } from "effect"
import type { Principal } from "../accounts/Account.js"
import { requirePermission } from "../accounts/Auth.js"
import * as Pagination from "../Pagination.js"
import type { Brand, BrandRelationship, Linked, RelationshipStatus } from "./Brand.js"
import type { BrandStore } from "./BrandStore.js"

/** A list of relationships: an optional status, and paging. @since 0.1.0 @category models */
export interface ListRelationships extends Pagination.Paging {
  readonly status?: RelationshipStatus | undefined
}

/** What the relationships are built on: the use case's `fn`, the brand store, and the Brand Owner of a brand. */
export interface Deps {
  readonly fn: typeof Effect.fn
  readonly brands: Context.Tag.Service<BrandStore>
  /** The id of the Brand Owner account that holds `brand`'s identifier, if any. */
  readonly ownerOf: (brand: Brand) => Effect.Effect<Option.Option<string>, StoreUnavailable>
}

const relationshipNotFound = (id: string) => new NotFound({ message: `No brand relationship ${id}.` })

const notPending = (id: string, status: string) =>
  new Conflict({
    code: "invalid_state_transition",
    message: `Only a pending relationship can be decided; ${id} is ${status}.`
  })

/** The relationship operations of `Brands`, spanned under its names: each reads and writes through `deps` alone. */
export const make = ({ brands, fn, ownerOf }: Deps) => {
  const listRelationships = fn("Brands.listRelationships")(function*(principal: Principal, input: ListRelationships) {
    yield* requirePermission(principal, "brands:read")
    const pageSize = yield* Pagination.pageSizeOf(input.pageSize)
    const filters = { list: "brand_relationships", status: input.status }
    const after = yield* Pagination.after(input.cursor, filters)
    const rows = yield* brands.listRelationships(principal.accountId, { status: input.status }, after, pageSize + 1)
    return Pagination.of(rows, pageSize, filters, ({ relationship }) => relationship)
  })

  /** The relationship `id` with whether the caller is its brand's owner; not found unless it is the owner or the provider. */
  const findRelationshipAs = (principal: Principal, id: string) =>
    Effect.gen(function*() {
      const found = yield* brands.findRelationship(id)
      if (Option.isNone(found)) return yield* relationshipNotFound(id)
      const isOwner = Option.contains(yield* ownerOf(found.value.brand), principal.accountId)
      if (
        !isOwner && found.value.relationship.provider.accountId !== principal.accountId
      ) return yield* relationshipNotFound(id)
      return { linked: found.value, isOwner }
    })

  const getRelationship = fn("Brands.getRelationship")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "brands:read")
    return (yield* findRelationshipAs(principal, id)).linked
  })

  /** The Brand Owner's move of a pending relationship to `status`: its provider gets 403, one not pending 409. */
  const decide = (status: "approved" | "rejected") =>
    function*(principal: Principal, id: string) {
      yield* requirePermission(principal, "brands:write")
      const { isOwner, linked } = yield* findRelationshipAs(principal, id)
      if (!isOwner) {
        return yield* new PermissionDenied({
          code: "permission_denied",
          message:
            `Only the Brand Owner of ${linked.brand.identifierType} ${linked.brand.identifierValue} may decide relationship ${id}.`
        })
      }
      if (linked.relationship.status !== "pending") return yield* notPending(id, linked.relationship.status)
      const next: BrandRelationship = { ...linked.relationship, status, decidedAt: yield* Clock.currentTimeMillis }
      const [moved] = yield* brands.transitionRelationships([{ next, from: "pending" }])
      if (moved) return { brand: linked.brand, relationship: next } satisfies Linked
      const now = yield* brands.findRelationship(id)
      return yield* notPending(id, Option.match(now, { onNone: () => "gone", onSome: (l) => l.relationship.status }))
    }

  return {
    listRelationships,
    getRelationship,
    approve: fn("Brands.approve")(decide("approved")),
    reject: fn("Brands.reject")(decide("rejected"))
  }
}
