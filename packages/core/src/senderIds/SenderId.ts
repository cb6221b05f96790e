/**
 * Sender ID records. For now only the admin import creates them (CONTRACT §10); the registration
 * flow with brands and operators comes later.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Sender ID statuses of CONTRACT §6. @since 0.1.0 @category models */
export const SenderIdStatus = Schema.Literal("pending", "info_requested", "registered", "rejected", "expired")
/** A Sender ID status. @since 0.1.0 @category models */
export type SenderIdStatus = typeof SenderIdStatus.Type

/** A Sender ID record `sid_…`. @since 0.1.0 @category models */
export const SenderIdRecord = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  senderId: Schema.String,
  market: Schema.String,
  brandName: Schema.String,
  status: SenderIdStatus,
  createdAt: Schema.Number,
  registeredAt: Schema.optional(Schema.Number),
  expiresAt: Schema.optional(Schema.Number)
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

/** The key of one (account, Sender ID, market) registration lookup, for maps and caches. @since 0.1.0 @category keys */
export const lookupKey = (accountId: string, senderId: string, market: string): string =>
  `${accountId}\u0000${senderId}\u0000${market}`
