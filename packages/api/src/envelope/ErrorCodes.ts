/**
 * The one table of CONTRACT §8: every `code` the API answers with, its HTTP status and what it
 * means. The error envelope's status (the server's `ErrorResponse`), the OpenAPI descriptions
 * (`ApiDocs`) and the typed client's error schemas (`WireErrors`) all derive from it; the error
 * classes (`Errors`) carry their code, and the CLI prints it.
 *
 * @since 0.1.0
 */
import type * as Errors from "../Errors.js"

/** The codes only the HTTP edge gives: no use case fails with them (no error class carries them). @since 0.1.0 @category models */
export type EdgeCode = "method_not_allowed" | "payload_too_large" | "unsupported_media_type" | "internal_error"

/** Every code of the API. @since 0.1.0 @category models */
export type Code = Errors.Code | EdgeCode

/** A code's row: its status and what it means, for the OpenAPI document. @since 0.1.0 @category models */
export interface Row {
  readonly status: number
  readonly description: string
}

const rule = (description: string): Row => ({ status: 422, description })

/** The table: a row for every code, checked complete against the error classes' codes by the compiler. @since 0.1.0 @category table */
export const table: { readonly [C in Code]: Row } = {
  invalid_request: { status: 400, description: "the request is malformed (body, JSON, header)" },
  invalid_parameter: { status: 400, description: "a query parameter or field is not valid" },
  invalid_cursor: { status: 400, description: "the cursor is not valid for this list and these filters" },
  unauthenticated: { status: 401, description: "the API key is missing, malformed, unknown, expired or revoked" },
  permission_denied: { status: 403, description: "the API key lacks the permission named in the message" },
  brand_relationship_pending: { status: 403, description: "the brand's relationship with you is still pending" },
  not_found: { status: 404, description: "no such resource in this account, or no such route" },
  method_not_allowed: { status: 405, description: "the path exists for other methods, named in Allow" },
  idempotency_conflict: { status: 409, description: "the Idempotency-Key was used with another request" },
  idempotency_in_progress: { status: 409, description: "a request with this Idempotency-Key is still running" },
  invalid_state_transition: { status: 409, description: "the resource's status does not allow this" },
  sender_id_taken: {
    status: 409,
    description: "another legal entity holds this Sender ID, or one that looks like it, in the market"
  },
  payload_too_large: { status: 413, description: "the body is over the largest size accepted" },
  unsupported_media_type: { status: 415, description: "the body is not sent as application/json" },
  invalid_market: rule("market is not an ISO 3166-1 alpha-2 code"),
  unsupported_market: rule("the market is not configured"),
  invalid_phone_number: rule("to is not a valid E.164 number"),
  not_a_mobile_number: rule("to is not a mobile number"),
  phone_market_mismatch: rule("to is not a number of the market"),
  invalid_sender_id: rule(
    "sender_id is not 1–11 letters, digits or spaces with a letter, or breaks its market's Sender ID rules (named in the message)"
  ),
  sender_id_not_registered: rule("the Sender ID is not registered to you for the market"),
  empty_body: rule("body is empty"),
  body_too_long: rule("body needs more segments than allowed"),
  reference_too_long: rule("reference is over 255 characters"),
  invalid_callback_url: rule("callback_url is not an https URL on a public host, or is over 2,048 characters"),
  no_signing_secret: rule("callback_url needs an active webhook subscription"),
  schedule_in_past: rule("scheduled_at is not in the future"),
  schedule_too_far: rule("scheduled_at is too far ahead"),
  invalid_identifier: rule(
    "the legal identifier is of a type the market does not use, fails its format or check digits, is degenerate (the digits that number the entity all zero), or is owned by another Brand Owner"
  ),
  invalid_contact: rule(
    "the contact's e-mail is not an address at a domain name, its phone not E.164, the website not an http(s) URL, or one of them holds a control, bidi or zero-width character"
  ),
  invalid_characters: rule(
    "a text field (a brand's name, a Sender ID's use_case or match_value) holds a control, bidi or zero-width character"
  ),
  immutable_field: rule("the field cannot be changed once the resource exists (a brand's identifier and market)"),
  sender_id_domain_mismatch: rule(
    "a domain match needs the brand's website, and the Sender ID in its registrable domain's label"
  ),
  pending_sender_id_limit_reached: rule(
    "the account has as many Sender IDs pending or info_requested as it may have at once"
  ),
  webhook_url_not_allowed: rule(
    "the webhook url is not an https URL on a public host (unless the server allows http or private hosts)"
  ),
  unknown_event_type: rule("events names a type that is not one of the event types"),
  webhook_subscription_limit_reached: rule(
    "the account has as many webhook subscriptions as it may (active or disabled); delete one first"
  ),
  recipient_opted_out: rule("the recipient is on the account's opt-out list"),
  spending_limit_reached: rule(
    "the message would take the account's spend this month past its limit in the currency (the message names both)"
  ),
  missing_variable: rule(
    "the body has a {{placeholder}} that the message's variables do not fill (the message names it)"
  ),
  batch_rejected: rule("no message of the batch is valid; details names each message's field and code"),
  rate_limited: { status: 429, description: "too many requests; retry after Retry-After seconds" },
  internal_error: { status: 500, description: "something went wrong on our side; it has been logged" },
  unavailable: { status: 503, description: "the store is unavailable; retry after Retry-After seconds" }
}

/** The status of `code`. @since 0.1.0 @category table */
export const status = (code: Code): number => table[code].status

/** The codes answered with `status`, in the table's order. @since 0.1.0 @category table */
export const codesOf = (status: number): ReadonlyArray<Code> =>
  (Object.keys(table) as Array<Code>).filter((code) => table[code].status === status)

/** Every status of the table, ascending. @since 0.1.0 @category table */
export const statuses: ReadonlyArray<number> = [...new Set(Object.values(table).map((row) => row.status))].sort((
  a,
  b
) => a - b)
