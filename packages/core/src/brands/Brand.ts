/**
 * Brands and their relationships (CONTRACT §5): the legal entity a provider submits, and the link
 * between that brand and the provider, which the brand's Brand Owner approves or rejects.
 *
 * @since 0.1.0
 */
import { BrandStatus, RelationshipStatus } from "@sendline/api/brands/BrandJson"
import { Schema } from "effect"
import { AccountType } from "../accounts/Account.js"
import { Contact } from "./Contact.js"

export {
  /** A brand's verification status, as the API names it. @since 0.1.0 @category models */
  BrandStatus,
  /** A relationship's status: the Brand Owner's decision, `pending` until it is taken. @since 0.1.0 @category models */
  RelationshipStatus
} from "@sendline/api/brands/BrandJson"

/**
 * A brand `brand_…`: a legal entity, its identifier stored normalised (`Identifier.check`). It
 * belongs to no account: who may see it is its relationship's provider and its Brand Owner.
 *
 * @since 0.1.0
 * @category models
 */
export const Brand = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  identifierType: Schema.String,
  identifierValue: Schema.String,
  market: Schema.String,
  status: BrandStatus,
  contact: Contact,
  website: Schema.optional(Schema.String),
  createdAt: Schema.Number
})
/** A brand. @since 0.1.0 @category models */
export type Brand = typeof Brand.Type

/** The provider of a relationship: the account that submitted the brand, its name and type as they were then. @since 0.1.0 @category models */
export const Provider = Schema.Struct({ accountId: Schema.String, name: Schema.String, type: AccountType })
/** The provider of a relationship. @since 0.1.0 @category models */
export type Provider = typeof Provider.Type

/**
 * A relationship `rel_…` between a brand and the provider that submitted it: each brand has
 * exactly one, made with it. `decidedAt` is when the Brand Owner approved or rejected it (absent
 * while pending, and when approved at creation: the provider was the Brand Owner).
 * `idempotencyKey` is the provider's key the brand was created under, if any: unique among the
 * provider's relationships, so that a retry finds the brand instead of creating another.
 *
 * @since 0.1.0
 * @category models
 */
export const BrandRelationship = Schema.Struct({
  id: Schema.String,
  brandId: Schema.String,
  provider: Provider,
  status: RelationshipStatus,
  createdAt: Schema.Number,
  decidedAt: Schema.optional(Schema.Number),
  idempotencyKey: Schema.optional(Schema.String)
})
/** A relationship. @since 0.1.0 @category models */
export type BrandRelationship = typeof BrandRelationship.Type

/** A brand with its relationship: what the store answers for either's id. @since 0.1.0 @category models */
export interface Linked {
  readonly brand: Brand
  readonly relationship: BrandRelationship
}
