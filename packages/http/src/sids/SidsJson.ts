/**
 * The JSON of the Sender IDs group that is the API's own: the request payloads and the list query.
 * A Sender ID itself travels as core's `SenderIdJson`, the shape the `sid.*` events carry.
 *
 * @since 0.1.0
 */
import { SenderId } from "@sendline/core"
import { Schema } from "effect"
import { OneOf, PageSize } from "../envelope/Envelope.js"

/** Body of `POST /v1/sids`. @since 0.1.0 @category requests */
export const RegisterSenderId = Schema.Struct({
  sender_id: Schema.String,
  brand_id: Schema.String,
  market: Schema.String,
  use_case: Schema.String,
  match_type: SenderId.MatchType,
  match_value: Schema.String
}).annotations({ identifier: "RegisterSenderId", parseOptions: { errors: "all" } })

/** Body of `POST /v1/sids/{id}/resubmit`: a new `use_case` or `match_value`, each optional (the body itself too). @since 0.1.0 @category requests */
export const ResubmitSenderId = Schema.Struct({
  use_case: Schema.optionalWith(Schema.String, { nullable: true }),
  match_value: Schema.optionalWith(Schema.String, { nullable: true })
}).annotations({ identifier: "ResubmitSenderId", parseOptions: { errors: "all" } })

/** Query of `GET /v1/sids`. @since 0.1.0 @category requests */
export const ListSenderIdsQuery = Schema.Struct({
  status: Schema.optional(OneOf(SenderId.SenderIdStatus)),
  market: Schema.optional(Schema.String),
  cursor: Schema.optional(Schema.String),
  page_size: Schema.optional(PageSize)
}).annotations({ parseOptions: { errors: "all" } })
