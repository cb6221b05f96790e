/**
 * Sender ID records (CONTRACT §6): registered through the flow (`SenderIds.register`, one operator
 * registration per network of the market) or imported as registered elsewhere (`sids import`). A
 * record's status is derived from its registrations (`Registration.derive`); `version` counts its
 * changes, so that a change is written only over the version it was made from.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Sender ID statuses of CONTRACT §6. @since 0.1.0 @category models */
export const SenderIdStatus = Schema.Literal("pending", "info_requested", "registered", "rejected", "expired")
/** A Sender ID status. @since 0.1.0 @category models */
export type SenderIdStatus = typeof SenderIdStatus.Type

/** The kinds of name match a registration claims (CONTRACT §6). @since 0.1.0 @category models */
export const MatchType = Schema.Literal("business_name", "company_name", "trading_name", "trademark", "domain")
/** A kind of name match. @since 0.1.0 @category models */
export type MatchType = typeof MatchType.Type

/**
 * A Sender ID record `sid_…`. Registered ones have `brandId`, `useCase`, `matchType` and
 * `matchValue`; imported ones only the brand's name. `warnedExpiresAt` is the `expiresAt` of the
 * term whose `sid.expiring` was emitted (a renewal starts a term that has not been warned).
 */
export const SenderIdRecord = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  senderId: Schema.String,
  market: Schema.String,
  brandName: Schema.String,
  brandId: Schema.optional(Schema.String),
  useCase: Schema.optional(Schema.String),
  matchType: Schema.optional(MatchType),
  matchValue: Schema.optional(Schema.String),
  status: SenderIdStatus,
  createdAt: Schema.Number,
  registeredAt: Schema.optional(Schema.Number),
  expiresAt: Schema.optional(Schema.Number),
  warnedExpiresAt: Schema.optional(Schema.Number),
  version: Schema.Number
})
/** A Sender ID record `sid_…`. @since 0.1.0 @category models */
export type SenderIdRecord = typeof SenderIdRecord.Type

const format = /^[A-Za-z0-9 ]{1,11}$/
const letter = /[A-Za-z]/

/** Whether `value` is 1–11 letters, digits and spaces, with a letter and no outer space. @since 0.1.0 @category checks */
export const isValidFormat = (value: string): boolean =>
  format.test(value) && letter.test(value) && value[0] !== " " && value[value.length - 1] !== " "

/** What a request with a `sender_id` of the wrong format is told. @since 0.1.0 @category constants */
export const invalidFormatMessage =
  "sender_id must be 1–11 letters, digits or spaces, with at least one letter and no leading or trailing space."

/** Whether a record may send at `now`: `registered` and not past `expiresAt`. @since 0.1.0 @category checks */
export const canSend = (record: SenderIdRecord, now: number): boolean =>
  record.status === "registered" && (record.expiresAt === undefined || record.expiresAt > now)

/** Whether a record still holds its Sender ID string at `now`: not `rejected`, not `expired` by status or by date. @since 0.1.0 @category checks */
export const holdsAt = (record: SenderIdRecord, now: number): boolean =>
  record.status !== "rejected" && record.status !== "expired" && (record.expiresAt === undefined || record.expiresAt > now)

/** The form in which Sender ID strings are held and compared, as regulators compare them: lower case (`SENDLINE` is `Sendline`). @since 0.1.0 @category keys */
export const holdKey = (senderId: string): string => senderId.toLowerCase()

/** A Sender ID term: 365 days. @since 0.1.0 @category constants */
export const termMillis = 365 * 86_400_000

/** How long before `expiresAt` the `sid.expiring` warning is due: 30 days. @since 0.1.0 @category constants */
export const warningMillis = 30 * 86_400_000

/**
 * When the expiry watcher must look at `record` next: for a registered record, 30 days before its
 * `expiresAt` while that term is not warned, else at `expiresAt`; never for any other status.
 *
 * @since 0.1.0
 * @category expiry
 */
export const watchAt = (record: SenderIdRecord): number | undefined =>
  record.status !== "registered" || record.expiresAt === undefined
    ? undefined
    : record.warnedExpiresAt === record.expiresAt
    ? record.expiresAt
    : record.expiresAt - warningMillis

/** The key of one (account, Sender ID, market) registration lookup, for maps and caches. @since 0.1.0 @category keys */
export const lookupKey = (accountId: string, senderId: string, market: string): string =>
  `${accountId}\u0000${senderId}\u0000${market}`
