/**
 * Sender IDs and operator registrations as JSON (CONTRACT §6): the answers of `/v1/sids` and
 * `/v1/operator-registrations`, and the `data` of the `sid.*` events: the schemas are
 * `@sendline/api`'s `SenderIdJson`, re-exported here; the builders are core's.
 *
 * @since 0.1.0
 */
import type { RegistrationJson, SenderIdJson } from "@sendline/api/senderIds/SenderIdJson"
import * as Timestamp from "@sendline/api/Timestamp"
import type { Registration } from "./Registration.js"
import type { WithRegistrations } from "./SenderIdStore.js"

export {
  /** An operator registration as JSON. @since 0.1.0 @category schemas */
  RegistrationJson,
  /** A Sender ID: CONTRACT §6's sid data. @since 0.1.0 @category schemas */
  SenderIdJson
} from "@sendline/api/senderIds/SenderIdJson"

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
