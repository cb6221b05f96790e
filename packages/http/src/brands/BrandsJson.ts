/**
 * The JSON of the brands group that is the API's own: the request payloads and the list query. A
 * brand itself travels as core's `BrandJson`, the same shape `brand.*` events carry.
 *
 * @since 0.1.0
 */
import { Contact } from "@sendline/core"
import { Schema } from "effect"
import { PagingQuery } from "../envelope/Envelope.js"

/** Body of `POST /v1/brands`: `contact` required with its three fields, `website` optional. @since 0.1.0 @category requests */
export const CreateBrand = Schema.Struct({
  name: Schema.String,
  identifier_type: Schema.String,
  identifier_value: Schema.String,
  market: Schema.String,
  contact: Contact.Contact,
  website: Schema.optionalWith(Schema.String, { nullable: true })
}).annotations({ identifier: "CreateBrand", parseOptions: { errors: "all" } })

/**
 * Body of `PATCH /v1/brands/{id}`: any of `name`, `contact` (whole) and `website` (null removes
 * it); `identifier_type`, `identifier_value` and `market` are refused (`immutable_field`) unless
 * given as they are.
 *
 * @since 0.1.0
 * @category requests
 */
export const UpdateBrand = Schema.Struct({
  name: Schema.optional(Schema.String),
  contact: Schema.optional(Contact.Contact),
  website: Schema.optional(Schema.NullOr(Schema.String)),
  identifier_type: Schema.optional(Schema.String),
  identifier_value: Schema.optional(Schema.String),
  market: Schema.optional(Schema.String)
}).annotations({ identifier: "UpdateBrand", parseOptions: { errors: "all" } })

/** Query of `GET /v1/brands`. @since 0.1.0 @category requests */
export const ListBrandsQuery = PagingQuery
