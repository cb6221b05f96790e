/**
 * The JSON of the operator registrations group that is the API's own: the list query and the
 * bodies of the decisions. A registration itself travels as `SenderIdJson.RegistrationJson`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { BeforeFilter, DateFilter, OneOf, PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as Registration from "./SenderIdJson.js"

/**
 * Query of `GET /v1/operator-registrations` (CONTRACT §6's filter names): `sender_id` and
 * `brand_name` are case-insensitive substrings; `submitted_after` is inclusive, `submitted_before`
 * exclusive; a plain date means the start of that UTC day for `submitted_after` and its end for
 * `submitted_before` (CONTRACT §1), so that `submitted_before=2026-11-22` includes that day.
 *
 * @since 0.1.0
 * @category requests
 */
export const ListRegistrationsQuery = Schema.Struct({
  status: Schema.optional(OneOf(Registration.RegistrationStatus)),
  market: Schema.optional(Fields.market("Only registrations of this market.")),
  sender_id: Schema.optional(Fields.senderId("Only registrations of this Sender ID.")),
  brand_name: Schema.optional(
    Fields.text({ description: "Only registrations of brands of this name.", examples: ["Acme Pty Ltd"] })
  ),
  submitter_type: Schema.optional(OneOf(Registration.SubmitterType)),
  submitted_after: Schema.optional(DateFilter(false)),
  submitted_before: Schema.optional(BeforeFilter),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })

/** Body of `POST /v1/operator-registrations/{id}/reject`. @since 0.1.0 @category requests */
export const RejectRegistration = Schema.Struct({
  reason: Fields.text({
    description: "Why it is rejected, shown to the submitter.",
    examples: ["The brand does not trade under this name."]
  })
}).annotations({
  identifier: "RejectRegistration",
  parseOptions: { errors: "all" }
})

/** Body of `POST /v1/operator-registrations/{id}/request-info`. @since 0.1.0 @category requests */
export const RequestInformation = Schema.Struct({
  message: Fields.text({
    description: "What the operator needs to know, shown to the submitter.",
    examples: ["Please describe the messages sent."]
  })
}).annotations({
  identifier: "RequestInformation",
  parseOptions: { errors: "all" }
})
