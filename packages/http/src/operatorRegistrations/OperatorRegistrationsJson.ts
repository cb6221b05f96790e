/**
 * The JSON of the operator registrations group that is the API's own: the list query and the
 * bodies of the decisions. A registration itself travels as core's `SenderIdJson.RegistrationJson`.
 *
 * @since 0.1.0
 */
import { Registration } from "@sendline/core"
import { Schema } from "effect"
import { DateFilter, OneOf, PageSize } from "../envelope/Envelope.js"

/**
 * Query of `GET /v1/operator-registrations` (CONTRACT §6's filter names): `sender_id` and
 * `brand_name` are case-insensitive substrings; `submitted_after` is inclusive, `submitted_before`
 * exclusive, a plain date meaning the start of that UTC day for both.
 *
 * @since 0.1.0
 * @category requests
 */
export const ListRegistrationsQuery = Schema.Struct({
  status: Schema.optional(OneOf(Registration.RegistrationStatus)),
  market: Schema.optional(Schema.String),
  sender_id: Schema.optional(Schema.String),
  brand_name: Schema.optional(Schema.String),
  submitter_type: Schema.optional(OneOf(Registration.SubmitterType)),
  submitted_after: Schema.optional(DateFilter(false)),
  submitted_before: Schema.optional(DateFilter(false)),
  cursor: Schema.optional(Schema.String),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** Body of `POST /v1/operator-registrations/{id}/reject`. @since 0.1.0 @category requests */
export const RejectRegistration = Schema.Struct({ reason: Schema.String }).annotations({
  identifier: "RejectRegistration",
  parseOptions: { errors: "all" }
})

/** Body of `POST /v1/operator-registrations/{id}/request-info`. @since 0.1.0 @category requests */
export const RequestInformation = Schema.Struct({ message: Schema.String }).annotations({
  identifier: "RequestInformation",
  parseOptions: { errors: "all" }
})
