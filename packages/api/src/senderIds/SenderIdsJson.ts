/**
 * The JSON of the Sender IDs group that is the API's own: the request payloads and the list query.
 * A Sender ID itself travels as `SenderIdJson`, the shape the `sid.*` events carry.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OneOf, PageSize } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as SenderId from "./SenderIdJson.js"

/** Body of `POST /v1/sids`. @since 0.1.0 @category requests */
export const RegisterSenderId = Schema.Struct({
  sender_id: Fields.senderId("The Sender ID to register."),
  brand_id: Fields.id("brand", "approved brand it is registered for"),
  market: Fields.market("The market it is registered in."),
  use_case: Fields.text({
    description: "What the messages sent from it are for.",
    examples: ["Appointment reminders"]
  }),
  match_type: SenderId.MatchType,
  match_value: Fields.text({
    description: "The brand's name or trading name the Sender ID matches, per match_type.",
    examples: ["Acme Pty Ltd"]
  })
}).annotations({ identifier: "RegisterSenderId", parseOptions: { errors: "all" } })

/** Body of `POST /v1/sids/{id}/resubmit`: a new `use_case` or `match_value`, each optional (the body itself too). @since 0.1.0 @category requests */
export const ResubmitSenderId = Schema.Struct({
  use_case: Schema.optionalWith(Schema.String, { nullable: true }),
  match_value: Schema.optionalWith(Schema.String, { nullable: true })
}).annotations({ identifier: "ResubmitSenderId", parseOptions: { errors: "all" } })

/** Query of `GET /v1/sids`. @since 0.1.0 @category requests */
export const ListSenderIdsQuery = Schema.Struct({
  status: Schema.optional(OneOf(SenderId.SenderIdStatus)),
  market: Schema.optional(Fields.market("Only Sender IDs of this market.")),
  cursor: Schema.optional(Fields.cursor),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })
