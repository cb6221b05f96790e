/**
 * Operator registrations (CONTRACT §6): one per operator network of a Sender ID's market, each
 * reviewed by its network, and the Sender ID's status derived from them. What a registration shows
 * of the brand and of the use is what was submitted to that network: a later change of the brand,
 * or a resubmission to another network, leaves it as its operator reviewed it.
 *
 * @since 0.1.0
 */
import { RegistrationStatus, SubmitterType } from "@sendline/api/senderIds/SenderIdJson"
import { Schema } from "effect"
import { MatchType, type SenderIdStatus } from "./SenderId.js"

export {
  /** A registration's status. @since 0.1.0 @category models */
  RegistrationStatus,
  /** The account types that submit registrations: every type but `operator`. @since 0.1.0 @category models */
  SubmitterType
} from "@sendline/api/senderIds/SenderIdJson"

/** The brand of a registration as it was submitted. @since 0.1.0 @category models */
export const RegisteredBrand = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  identifierType: Schema.String,
  identifierValue: Schema.String
})
/** The brand of a registration. @since 0.1.0 @category models */
export type RegisteredBrand = typeof RegisteredBrand.Type

/**
 * An operator registration `opreg_…` of the Sender ID record `sidId` with the network `network`.
 * `reason` is the operator's on a rejection, `message` its question on a request for information.
 *
 * @since 0.1.0
 * @category models
 */
export const Registration = Schema.Struct({
  id: Schema.String,
  sidId: Schema.String,
  network: Schema.String,
  market: Schema.String,
  senderId: Schema.String,
  brand: RegisteredBrand,
  status: RegistrationStatus,
  useCase: Schema.String,
  matchType: MatchType,
  matchValue: Schema.String,
  submittedBy: Schema.Struct({ accountId: Schema.String, type: SubmitterType, name: Schema.String }),
  submittedAt: Schema.Number,
  decidedAt: Schema.optional(Schema.Number),
  reason: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String)
})
/** An operator registration. @since 0.1.0 @category models */
export type Registration = typeof Registration.Type

/** An operator's decision on a registration. @since 0.1.0 @category models */
export type Decision =
  | { readonly status: "approved" }
  | { readonly status: "rejected"; readonly reason: string }
  | { readonly status: "info_requested"; readonly message: string }

/** The statuses an operator decides from: `pending_operator_review` and `resubmitted`. @since 0.1.0 @category transitions */
export const isAwaitingOperator = (status: RegistrationStatus): boolean =>
  status === "pending_operator_review" || status === "resubmitted"

/**
 * The status of a Sender ID whose registrations are `statuses` (CONTRACT §6): any `rejected` →
 * `rejected`; all `approved` → `registered`; any `info_requested` → `info_requested`; else
 * `pending`. Expiry is not derived from registrations: the expiry watcher moves it.
 *
 * @since 0.1.0
 * @category transitions
 */
export const derive = (statuses: ReadonlyArray<RegistrationStatus>): Exclude<SenderIdStatus, "expired"> =>
  statuses.includes("rejected")
    ? "rejected"
    : statuses.length > 0 && statuses.every((s) => s === "approved")
    ? "registered"
    : statuses.includes("info_requested")
    ? "info_requested"
    : "pending"
