/**
 * The tagged errors of CONTRACT §8: what core's use cases fail with, and what the typed client
 * fails with once the error envelope is decoded (`WireErrors`). Each carries its stable `code`, the
 * one the error envelope and the CLI show; the HTTP status of each code is the error table's
 * (`ErrorCodes`) only.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A `code` field that always holds `code`: given by the constructor, so callers never pass it. */
const fixedCode = <Code extends string>(code: Code) =>
  Schema.Literal(code).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => code))

/** One field-level problem, as listed in an error's `details`. @since 0.1.0 @category models */
export const FieldIssue = Schema.Struct({ field: Schema.String, issue: Schema.String })
/** One field-level problem. @since 0.1.0 @category models */
export type FieldIssue = typeof FieldIssue.Type

/** The 422 codes of CONTRACT §3, §5, §6, §7, §12 and §13: a well-formed request breaks a rule. @since 0.1.0 @category models */
export const RuleCode = Schema.Literal(
  "invalid_market",
  "unsupported_market",
  "invalid_phone_number",
  "not_a_mobile_number",
  "phone_market_mismatch",
  "invalid_sender_id",
  "sender_id_not_registered",
  "empty_body",
  "body_too_long",
  "reference_too_long",
  "invalid_callback_url",
  "no_signing_secret",
  "schedule_in_past",
  "schedule_too_far",
  "invalid_identifier",
  "invalid_contact",
  "invalid_characters",
  "immutable_field",
  "sender_id_domain_mismatch",
  "pending_sender_id_limit_reached",
  "webhook_url_not_allowed",
  "unknown_event_type",
  "webhook_subscription_limit_reached",
  "recipient_opted_out",
  "spending_limit_reached",
  "missing_variable",
  "batch_rejected"
)
/** One of the 422 codes of `RuleCode`. @since 0.1.0 @category models */
export type RuleCode = typeof RuleCode.Type

/**
 * A well-formed request that breaks a business rule (422); `details` (since 0.3.0) lists the rule
 * each part broke when there are several (a batch none of whose messages was valid).
 *
 * @since 0.1.0
 * @category errors
 */
export class RuleViolation extends Schema.TaggedError<RuleViolation>("@sendline/api/RuleViolation")(
  "RuleViolation",
  {
    code: RuleCode,
    message: Schema.String,
    field: Schema.optional(Schema.String),
    details: Schema.optional(Schema.Array(FieldIssue))
  }
) {}

/** A malformed request: bad shape, bad query parameter or bad cursor (400). @since 0.1.0 @category errors */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>("@sendline/api/InvalidRequest")(
  "InvalidRequest",
  {
    code: Schema.Literal("invalid_request", "invalid_parameter", "invalid_cursor"),
    message: Schema.String,
    field: Schema.optional(Schema.String),
    details: Schema.optional(Schema.Array(FieldIssue))
  }
) {}

/** Missing, malformed, unknown, expired or revoked API key (401). @since 0.1.0 @category errors */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>("@sendline/api/Unauthenticated")(
  "Unauthenticated",
  { code: fixedCode("unauthenticated"), message: Schema.String }
) {}

/** The key lacks the permission the operation needs (403). @since 0.1.0 @category errors */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>("@sendline/api/PermissionDenied")(
  "PermissionDenied",
  { code: Schema.Literal("permission_denied", "brand_relationship_pending"), message: Schema.String }
) {}

/** An unknown resource, or one of another account (404). @since 0.1.0 @category errors */
export class NotFound extends Schema.TaggedError<NotFound>("@sendline/api/NotFound")(
  "NotFound",
  { code: fixedCode("not_found"), message: Schema.String }
) {}

/** The request conflicts with the resource's current state (409). @since 0.1.0 @category errors */
export class Conflict extends Schema.TaggedError<Conflict>("@sendline/api/Conflict")(
  "Conflict",
  {
    code: Schema.Literal(
      "idempotency_conflict",
      "idempotency_in_progress",
      "invalid_state_transition",
      "sender_id_taken"
    ),
    message: Schema.String
  }
) {}

/** Too many requests for this key (429); `retryAfterSeconds` goes to `Retry-After`. @since 0.1.0 @category errors */
export class RateLimited extends Schema.TaggedError<RateLimited>("@sendline/api/RateLimited")(
  "RateLimited",
  { code: fixedCode("rate_limited"), message: Schema.String, retryAfterSeconds: Schema.Number }
) {}

/** The store could not be reached or failed (503). @since 0.1.0 @category errors */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>("@sendline/api/StoreUnavailable")(
  "StoreUnavailable",
  { code: fixedCode("unavailable"), message: Schema.String, cause: Schema.optional(Schema.Defect) }
) {}

/** Builds a `RuleViolation` for `code`, naming `field`. @since 0.1.0 @category constructors */
export const rule = (code: RuleCode, field: string, message: string): RuleViolation =>
  new RuleViolation({ code, field, message })

/** Builds an `InvalidRequest` with code `invalid_parameter` for `field`. @since 0.1.0 @category constructors */
export const invalidParameter = (field: string, message: string): InvalidRequest =>
  new InvalidRequest({ code: "invalid_parameter", field, message })

/** Every error of this module: what a use case of core, or a call of the API, can fail with. @since 0.1.0 @category models */
export type SendlineError =
  | RuleViolation
  | InvalidRequest
  | Unauthenticated
  | PermissionDenied
  | NotFound
  | Conflict
  | RateLimited
  | StoreUnavailable

/** Every code an error of this module can carry (CONTRACT §8). @since 0.1.0 @category models */
export type Code = SendlineError["code"]

const classes = [
  RuleViolation,
  InvalidRequest,
  Unauthenticated,
  PermissionDenied,
  NotFound,
  Conflict,
  RateLimited,
  StoreUnavailable
]

/** Whether `u` is one of these errors (by class: other libraries have errors of the same tags). @since 0.1.0 @category guards */
export const isSendlineError = (u: unknown): u is SendlineError => classes.some((error) => u instanceof error)
