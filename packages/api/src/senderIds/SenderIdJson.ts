/**
 * Sender IDs and operator registrations as JSON (CONTRACT §6): the answers of `/v1/sids` and
 * `/v1/operator-registrations`, the `data` of the `sid.*` events, and the statuses and kinds they
 * show.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { TimestampJson } from "../Timestamp.js"

/** Sender ID statuses of CONTRACT §6. @since 0.1.0 @category models */
export const SenderIdStatus = Schema.Literal("pending", "info_requested", "registered", "rejected", "expired")
/** A Sender ID status. @since 0.1.0 @category models */
export type SenderIdStatus = typeof SenderIdStatus.Type

/** The kinds of name match a registration claims (CONTRACT §6). @since 0.1.0 @category models */
export const MatchType = Schema.Literal("business_name", "company_name", "trading_name", "trademark", "domain")
/** A kind of name match. @since 0.1.0 @category models */
export type MatchType = typeof MatchType.Type

/** A registration's status. @since 0.1.0 @category models */
export const RegistrationStatus = Schema.Literal(
  "pending_operator_review",
  "approved",
  "info_requested",
  "resubmitted",
  "rejected"
)
/** A registration's status. @since 0.1.0 @category models */
export type RegistrationStatus = typeof RegistrationStatus.Type

/** The account types that submit registrations: every type but `operator`. @since 0.1.0 @category models */
export const SubmitterType = Schema.Literal("brand", "aggregator", "cpaas")
/** A submitter's account type. @since 0.1.0 @category models */
export type SubmitterType = typeof SubmitterType.Type

/** A Sender ID: CONTRACT §6's sid data (null where an imported one has nothing to show). @since 0.1.0 @category schemas */
export const SenderIdJson = Schema.Struct({
  id: Schema.String,
  sender_id: Schema.String,
  brand_id: Schema.NullOr(Schema.String),
  market: Schema.String,
  status: SenderIdStatus,
  use_case: Schema.NullOr(Schema.String),
  match_type: Schema.NullOr(MatchType),
  match_value: Schema.NullOr(Schema.String),
  registrations: Schema.Array(Schema.Struct({ id: Schema.String, network: Schema.String, status: RegistrationStatus })),
  created_at: TimestampJson,
  registered_at: Schema.NullOr(TimestampJson),
  expires_at: Schema.NullOr(TimestampJson)
}).annotations({ identifier: "SenderId" })
/** A Sender ID as JSON. @since 0.1.0 @category models */
export type SenderIdJson = typeof SenderIdJson.Encoded

/**
 * An operator registration: INTERFACE.md's fields, with the `network` it is for and the operator's
 * decision (`decided_at`, and the `reason` of a rejection or the `message` of a request for
 * information; null otherwise).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RegistrationJson = Schema.Struct({
  id: Schema.String,
  sender_id: Schema.String,
  brand: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    identifier_type: Schema.String,
    identifier_value: Schema.String
  }),
  market: Schema.String,
  network: Schema.String,
  status: RegistrationStatus,
  use_case: Schema.String,
  match_type: MatchType,
  match_value: Schema.String,
  submitted_by: Schema.Struct({ type: SubmitterType, name: Schema.String }),
  submitted_at: TimestampJson,
  decided_at: Schema.NullOr(TimestampJson),
  reason: Schema.NullOr(Schema.String),
  message: Schema.NullOr(Schema.String)
}).annotations({ identifier: "OperatorRegistration" })
/** An operator registration as JSON. @since 0.1.0 @category models */
export type RegistrationJson = typeof RegistrationJson.Encoded
