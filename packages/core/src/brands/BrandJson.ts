/**
 * A brand and a relationship as JSON (CONTRACT §5), built once: the creation form (INTERFACE.md's
 * Brand, exactly), the full form GET answers (the creation form with `website` and `contact`), and
 * the `data` of `brand.*` events, which is the creation form: a webhook receives the API's own shape.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { AccountType } from "../accounts/Account.js"
import { TimestampJson } from "../Timestamp.js"
import * as Timestamp from "../Timestamp.js"
import { type Brand, BrandStatus, type Linked, RelationshipStatus } from "./Brand.js"
import { Contact } from "./Contact.js"

/** A brand as its creation answers it: INTERFACE.md's fields. @since 0.1.0 @category schemas */
export const BrandCreated = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  identifier_type: Schema.String,
  identifier_value: Schema.String,
  market: Schema.String,
  status: BrandStatus,
  created_at: TimestampJson
}).annotations({ identifier: "BrandCreated" })
/** A brand's creation form. @since 0.1.0 @category models */
export type BrandCreated = typeof BrandCreated.Encoded

/** A brand as GET, the list and PATCH answer it: the creation form with `website` (null when none) and `contact`. @since 0.1.0 @category schemas */
export const BrandFull = Schema.Struct({
  ...BrandCreated.fields,
  website: Schema.NullOr(Schema.String),
  contact: Contact
}).annotations({ identifier: "Brand" })
/** A brand's full form. @since 0.1.0 @category models */
export type BrandFull = typeof BrandFull.Encoded

/** A relationship: its brand (as the operator registrations show one), its provider, its status. @since 0.1.0 @category schemas */
export const RelationshipJson = Schema.Struct({
  id: Schema.String,
  brand: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    identifier_type: Schema.String,
    identifier_value: Schema.String,
    market: Schema.String
  }),
  provider: Schema.Struct({ account_id: Schema.String, name: Schema.String, type: AccountType }),
  status: RelationshipStatus,
  created_at: TimestampJson,
  decided_at: Schema.NullOr(TimestampJson)
}).annotations({ identifier: "BrandRelationship" })
/** A relationship as JSON. @since 0.1.0 @category models */
export type RelationshipJson = typeof RelationshipJson.Encoded

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
