/**
 * Sender IDs and operator registrations as JSON (CONTRACT §6): the answers of `/v1/sids` and
 * `/v1/operator-registrations`, and the `data` of the `sid.*` events.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { TimestampJson } from "../Timestamp.js"
import * as Timestamp from "../Timestamp.js"
import { type Registration, RegistrationStatus, SubmitterType } from "./Registration.js"
import { MatchType, SenderIdStatus } from "./SenderId.js"
import type { WithRegistrations } from "./SenderIdStore.js"

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

const timestampOrNull = (millis: number | undefined) => (millis === undefined ? null : Timestamp.format(millis))

/** `record` with its registrations as JSON. @since 0.1.0 @category encoding */
export const senderId = ({ record, registrations }: WithRegistrations): SenderIdJson => ({
  id: record.id,
  sender_id: record.senderId,
  brand_id: record.brandId ?? null,
  market: record.market,
  status: record.status,
  use_case: record.useCase ?? null,
  match_type: record.matchType ?? null,
  match_value: record.matchValue ?? null,
  registrations: registrations.map((r) => ({ id: r.id, network: r.network, status: r.status })),
  created_at: Timestamp.format(record.createdAt),
  registered_at: timestampOrNull(record.registeredAt),
  expires_at: timestampOrNull(record.expiresAt)
})

/** `r` as JSON. @since 0.1.0 @category encoding */
export const registration = (r: Registration): RegistrationJson => ({
  id: r.id,
  sender_id: r.senderId,
  brand: {
    id: r.brand.id,
    name: r.brand.name,
    identifier_type: r.brand.identifierType,
    identifier_value: r.brand.identifierValue
  },
  market: r.market,
  network: r.network,
  status: r.status,
  use_case: r.useCase,
  match_type: r.matchType,
  match_value: r.matchValue,
  submitted_by: { type: r.submittedBy.type, name: r.submittedBy.name },
  submitted_at: Timestamp.format(r.submittedAt),
  decided_at: timestampOrNull(r.decidedAt),
  reason: r.reason ?? null,
  message: r.message ?? null
})
