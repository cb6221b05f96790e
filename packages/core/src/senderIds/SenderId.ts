/**
 * Sender ID records (CONTRACT §6): registered through the flow (`SenderIds.register`, one operator
 * registration per network of the market) or imported as registered elsewhere (`sids import`). A
 * record's status is derived from its registrations (`Registration.derive`); `version` counts its
 * changes, so that a change is written only over the version it was made from.
 *
 * @since 0.1.0
 */
import { MatchType, SenderIdStatus } from "@sendline/api/senderIds/SenderIdJson"
import { Schema } from "effect"

export {
  /** The kinds of name match a registration claims (CONTRACT §6). @since 0.1.0 @category models */
  MatchType,
  /** Sender ID statuses of CONTRACT §6. @since 0.1.0 @category models */
  SenderIdStatus
} from "@sendline/api/senderIds/SenderIdJson"

/**
 * A Sender ID record `sid_…`. Registered ones have `brandId`, `useCase`, `matchType` and
 * `matchValue`; imported ones only the brand's name. `identifierType` and `identifierValue` name
 * the legal entity it is held for (`Holder`); `brandName` is for people to read, never compared.
 * `warnedExpiresAt` is the `expiresAt` of the term whose `sid.expiring` was emitted (a renewal
 * starts a term that has not been warned).
 */
export const SenderIdRecord = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  senderId: Schema.String,
  market: Schema.String,
  brandName: Schema.String,
  identifierType: Schema.String,
  identifierValue: Schema.String,
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
  record.status !== "rejected" && record.status !== "expired" &&
  (record.expiresAt === undefined || record.expiresAt > now)

/**
 * The legal entity that holds a Sender ID string in a market (CONTRACT §6): a brand's identifier,
 * type and value, never its name, which its provider may change. A Sender ID imported before
 * migration 0018 without an identifier is held under the type `imported_brand_name` and the brand
 * name it was imported with (docs/decisions.md, "Sender IDs held by legal identity"), a type no
 * brand has, so that no brand can take it by its name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Holder {
  readonly identifierType: string
  readonly identifierValue: string
}

/** The identifier type of a Sender ID imported without an identifier before migration 0018: its value is the brand name. @since 0.1.0 @category constants */
export const importedBrandName = "imported_brand_name"

/** Whether two holders are one legal entity: the same identifier type and value. @since 0.1.0 @category checks */
export const sameHolder = (a: Holder, b: Holder): boolean =>
  a.identifierType === b.identifierType && a.identifierValue === b.identifierValue

/**
 * The confusable characters of the Sender ID alphabet (letters, digits, space), in lower case, each
 * to what it is taken for (`skeleton`). Unicode TR39's confusables.txt maps four characters of that
 * alphabet: `0` → `O`, `1` → `l`, `I` → `l`, `m` → `rn`; case being folded, `i` is `I`, so `l`
 * too. CONTRACT §6 adds `S`/`5` and issue 29 `B`/`8`, which TR39 does not list. No mapping's
 * result holds a character mapped, so the mappings may be applied one after another.
 *
 * @since 0.1.0
 * @category keys
 */
export const confusables: Readonly<Record<string, string>> = { "0": "o", "1": "l", i: "l", m: "rn", "5": "s", "8": "b" }

/**
 * The form in which Sender ID strings are held and compared (CONTRACT §6): case folded, spaces
 * removed, each confusable character mapped (`confusables`), so that `Sendline`, `SENDLINE`,
 * `Send line`, `SendIine`, `Sendl1ne` and `5endline` are one string and any of them held holds
 * them all.
 *
 * @since 0.1.0
 * @category keys
 */
export const skeleton = (senderId: string): string =>
  Object.entries(confusables).reduce(
    (text, [from, to]) => text.replaceAll(from, to),
    senderId.toLowerCase().replaceAll(" ", "")
  )

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
