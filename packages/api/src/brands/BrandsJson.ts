/**
 * The JSON of the brands group that is the API's own: the request payloads and the list query. A
 * brand itself travels as `BrandJson`, the same shape `brand.*` events carry.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { PagingQuery } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"

const name = Fields.text({ description: "The brand's legal name, at most 255 characters.", examples: ["Acme Pty Ltd"] })
const identifierType = Fields.text({
  description: "The kind of legal identifier: ABN or ACN (AU), NZBN (NZ), UEN (SG), CRN (GB).",
  examples: ["ABN"]
})
const identifierValue = Fields.text({
  description: "The identifier itself, checked for its type (an ABN's check digits…); spaces are ignored.",
  examples: ["51 824 753 556"]
})
const market = Fields.market("The market the brand sends in.")
const website = Fields.url(
  "The brand's website; a Sender ID matched by `domain` is checked against it.",
  "https://www.acme.com.au"
)

/** The brand's authorised representative, as a request gives it: every field documented. */
const Contact = Schema.Struct({
  name: Fields.text({ description: "The representative's name.", examples: ["Jane Citizen"] }),
  email: Fields.text({
    description: "Where the approval mail goes: an e-mail address.",
    format: "email",
    examples: ["legal@acme.example"]
  }),
  phone: Fields.phone("The representative's phone number, E.164.")
})

/** Body of `POST /v1/brands`: `contact` required with its three fields, `website` optional. @since 0.1.0 @category requests */
export const CreateBrand = Schema.Struct({
  name,
  identifier_type: identifierType,
  identifier_value: identifierValue,
  market,
  contact: Contact,
  website: Schema.optionalWith(website, { nullable: true })
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
  name: Schema.optional(name),
  contact: Schema.optional(Contact),
  website: Schema.optional(Schema.NullOr(website)),
  identifier_type: Schema.optional(identifierType),
  identifier_value: Schema.optional(identifierValue),
  market: Schema.optional(market)
}).annotations({ identifier: "UpdateBrand", parseOptions: { errors: "all" } })

/** Query of `GET /v1/brands`. @since 0.1.0 @category requests */
export const ListBrandsQuery = PagingQuery
