/**
 * The JSON of the brand relationships group that is the API's own: the list query. A relationship
 * itself travels as `BrandJson.RelationshipJson`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as Brand from "./BrandJson.js"

const StatusFilter = Brand.RelationshipStatus.annotations({
  message: () => ({ message: `Expected one of ${Brand.RelationshipStatus.literals.join(", ")}`, override: true })
})

/** Query of `GET /v1/brand-relationships`. @since 0.1.0 @category requests */
export const ListRelationshipsQuery = Schema.Struct({
  status: Schema.optional(StatusFilter),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })
