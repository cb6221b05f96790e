/**
 * A brand and a relationship as JSON (CONTRACT §5): the creation form (INTERFACE.md's Brand,
 * exactly), which `brand.*` events carry too, the full form GET answers (the creation form with
 * `website` and `contact`), a relationship, and the statuses they show.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { AccountType } from "../accounts/Account.js"
import { TimestampJson } from "../Timestamp.js"

/** A brand's verification status. @since 0.1.0 @category models */
export const BrandStatus = Schema.Literal("pending_verification", "verified", "rejected")
/** A brand's verification status. @since 0.1.0 @category models */
export type BrandStatus = typeof BrandStatus.Type

/** A relationship's status: the Brand Owner's decision, `pending` until it is taken. @since 0.1.0 @category models */
export const RelationshipStatus = Schema.Literal("pending", "approved", "rejected")
/** A relationship's status. @since 0.1.0 @category models */
export type RelationshipStatus = typeof RelationshipStatus.Type

/** A brand's authorised representative. @since 0.1.0 @category models */
export const Contact = Schema.Struct({ name: Schema.String, email: Schema.String, phone: Schema.String })
/** A brand's authorised representative. @since 0.1.0 @category models */
export type Contact = typeof Contact.Type

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
