/**
 * A brand and a relationship as JSON (CONTRACT §5), built once: the creation form (INTERFACE.md's
 * Brand, exactly), the full form GET answers (the creation form with `website` and `contact`), and
 * the `data` of `brand.*` events, which is the creation form: a webhook receives the API's own shape.
 * The schemas are `@sendline/api`'s `BrandJson`, re-exported here; the builders are core's.
 *
 * @since 0.1.0
 */
import type { BrandCreated, BrandFull, RelationshipJson } from "@sendline/api/brands/BrandJson"
import * as Timestamp from "@sendline/api/Timestamp"
import type { Brand, Linked } from "./Brand.js"

export {
  /** A brand as its creation answers it: INTERFACE.md's fields. @since 0.1.0 @category schemas */
  BrandCreated,
  /** A brand as GET, the list and PATCH answer it. @since 0.1.0 @category schemas */
  BrandFull,
  /** A relationship: its brand, its provider, its status. @since 0.1.0 @category schemas */
  RelationshipJson
} from "@sendline/api/brands/BrandJson"

/** The creation form of `b`. @since 0.1.0 @category encoding */
export const created = (b: Brand): BrandCreated => ({
  id: b.id,
  name: b.name,
  identifier_type: b.identifierType,
  identifier_value: b.identifierValue,
  market: b.market,
  status: b.status,
  created_at: Timestamp.format(b.createdAt)
})

/** The full form of `b`. @since 0.1.0 @category encoding */
export const full = (b: Brand): BrandFull => ({ ...created(b), website: b.website ?? null, contact: b.contact })

/** The `data` of a `brand.*` event: the brand's creation form, in its new status. @since 0.1.0 @category encoding */
export const eventData = (b: Brand): Record<string, unknown> => created(b)

/** `relationship` of `brand` as JSON. @since 0.1.0 @category encoding */
export const relationship = ({ brand, relationship: r }: Linked): RelationshipJson => ({
  id: r.id,
  brand: {
    id: brand.id,
    name: brand.name,
    identifier_type: brand.identifierType,
    identifier_value: brand.identifierValue,
    market: brand.market
  },
  provider: { account_id: r.provider.accountId, name: r.provider.name, type: r.provider.type },
  status: r.status,
  created_at: Timestamp.format(r.createdAt),
  decided_at: r.decidedAt === undefined ? null : Timestamp.format(r.decidedAt)
})
