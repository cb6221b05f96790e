/**
 * The rows of the Sendline tables and their mapping to and from the domain of `@sendline/core`:
 * the same on SQLite and PostgreSQL (the tables have the same names and columns in both).
 *
 * @since 0.1.0
 */
import type { Account, AccountType, ApiKey, OwnedIdentifier } from "@sendline/core/Account"
import type { Event, EventType } from "@sendline/core/Event"
import type { IdempotencyRecord, StoredResponse } from "@sendline/core/IdempotencyStore"
import type { Message, MessageStatus } from "@sendline/core/Message"
import type { Permission } from "@sendline/core/Permission"
import type { SenderIdRecord, SenderIdStatus } from "@sendline/core/SenderId"
import type { Types } from "effect"
import { Option } from "effect"

/**
 * An epoch-millisecond timestamp as a driver returns it: SQLite's INTEGER as a number,
 * PostgreSQL's BIGINT as a string (node-postgres keeps int8 exact, as it may exceed 2^53; our
 * timestamps never do) unless the embedder's client parses it.
 *
 * @since 0.1.0
 * @category models
 */
export type Int8 = number | string

/** An `Int8` as a number. @since 0.1.0 @category mapping */
export const int8 = (value: Int8): number => typeof value === "number" ? value : Number(value)

/** An optional field as a nullable column. @since 0.1.0 @category mapping */
export const orNull = <A>(value: A | undefined): A | null => value === undefined ? null : value

/** The first row, mapped, if there is one. @since 0.1.0 @category mapping */
export const first = <R, A>(rows: ReadonlyArray<R>, f: (row: R) => A): Option.Option<A> =>
  rows.length === 0 ? Option.none() : Option.some(f(rows[0]!))

/** A row of `sendline_accounts`. @since 0.1.0 @category models */
export interface AccountRow {
  readonly id: string
  readonly name: string
  readonly type: string
  readonly admin_email: string
  readonly network: string | null
  readonly markets: string
  readonly identifiers: string
  readonly created_at: Int8
}

/** An account from its row. @since 0.1.0 @category mapping */
export const accountFromRow = (row: AccountRow): Account => {
  const account: Types.Mutable<Account> = {
    id: row.id,
    name: row.name,
    type: row.type as AccountType,
    adminEmail: row.admin_email,
    markets: JSON.parse(row.markets) as ReadonlyArray<string>,
    identifiers: JSON.parse(row.identifiers) as ReadonlyArray<OwnedIdentifier>,
    createdAt: int8(row.created_at)
  }
  if (row.network !== null) account.network = row.network
  return account
}

/** A row of `sendline_api_keys`. @since 0.1.0 @category models */
export interface ApiKeyRow {
  readonly id: string
  readonly account_id: string
  readonly digest: string
  readonly permissions: string
  readonly expires_at: Int8 | null
  readonly revoked_at: Int8 | null
  readonly created_at: Int8
}

/** An API key from its row. @since 0.1.0 @category mapping */
export const apiKeyFromRow = (row: ApiKeyRow): ApiKey => {
  const key: Types.Mutable<ApiKey> = {
    id: row.id,
    accountId: row.account_id,
    digest: row.digest,
    permissions: JSON.parse(row.permissions) as ReadonlyArray<Permission>,
    createdAt: int8(row.created_at)
  }
  if (row.expires_at !== null) key.expiresAt = int8(row.expires_at)
  if (row.revoked_at !== null) key.revokedAt = int8(row.revoked_at)
  return key
}

/** A row of `sendline_sender_ids`. @since 0.1.0 @category models */
export interface SenderIdRow {
  readonly id: string
  readonly account_id: string
  readonly sender_id: string
  readonly market: string
  readonly brand_name: string
  readonly status: string
  readonly created_at: Int8
  readonly registered_at: Int8 | null
  readonly expires_at: Int8 | null
}

/** A Sender ID record from its row. @since 0.1.0 @category mapping */
export const senderIdFromRow = (row: SenderIdRow): SenderIdRecord => {
  const record: Types.Mutable<SenderIdRecord> = {
    id: row.id,
    accountId: row.account_id,
    senderId: row.sender_id,
    market: row.market,
    brandName: row.brand_name,
    status: row.status as SenderIdStatus,
    createdAt: int8(row.created_at)
  }
  if (row.registered_at !== null) record.registeredAt = int8(row.registered_at)
  if (row.expires_at !== null) record.expiresAt = int8(row.expires_at)
  return record
}

/** A row of `sendline_messages` (without `claimed_until`, which is the store's own). @since 0.1.0 @category models */
export interface MessageRow {
  readonly id: string
  readonly account_id: string
  readonly status: string
  readonly recipient: string
  readonly sender_id: string
  readonly body: string
  readonly segments: number
  readonly encoding: string
  readonly market: string
  readonly reference: string | null
  readonly callback_url: string | null
  readonly price: string
  readonly error: string | null
  readonly created_at: Int8
  readonly scheduled_at: Int8 | null
  readonly sent_at: Int8 | null
  readonly delivered_at: Int8 | null
  readonly idempotency_key: string | null
}

/** A message from its row. @since 0.1.0 @category mapping */
export const messageFromRow = (row: MessageRow): Message => {
  const message: Types.Mutable<Message> = {
    id: row.id,
    accountId: row.account_id,
    status: row.status as MessageStatus,
    to: row.recipient,
    senderId: row.sender_id,
    body: row.body,
    segments: row.segments,
    encoding: row.encoding as Message["encoding"],
    market: row.market,
    price: JSON.parse(row.price) as Message["price"],
    createdAt: int8(row.created_at)
  }
  if (row.reference !== null) message.reference = row.reference
  if (row.callback_url !== null) message.callbackUrl = row.callback_url
  if (row.scheduled_at !== null) message.scheduledAt = int8(row.scheduled_at)
  if (row.sent_at !== null) message.sentAt = int8(row.sent_at)
  if (row.delivered_at !== null) message.deliveredAt = int8(row.delivered_at)
  if (row.error !== null) message.error = JSON.parse(row.error) as NonNullable<Message["error"]>
  if (row.idempotency_key !== null) message.idempotencyKey = row.idempotency_key
  return message
}

// A price as stored: compact JSON with a fixed key order.
const priceJson = (price: Message["price"]): string =>
  JSON.stringify({ amount: price.amount, currency: price.currency })

// An error as stored: compact JSON with a fixed key order, or NULL.
const errorJson = (error: Message["error"]): string | null =>
  error === undefined ? null : JSON.stringify({ code: error.code, message: error.message })

/** A message as the columns of its row. @since 0.1.0 @category mapping */
export const messageRow = (m: Message) => ({
  id: m.id,
  account_id: m.accountId,
  status: m.status,
  recipient: m.to,
  sender_id: m.senderId,
  body: m.body,
  segments: m.segments,
  encoding: m.encoding,
  market: m.market,
  reference: orNull(m.reference),
  callback_url: orNull(m.callbackUrl),
  price: priceJson(m.price),
  error: errorJson(m.error),
  created_at: m.createdAt,
  scheduled_at: orNull(m.scheduledAt),
  sent_at: orNull(m.sentAt),
  delivered_at: orNull(m.deliveredAt),
  idempotency_key: orNull(m.idempotencyKey)
})

/** A row of `sendline_events`. @since 0.1.0 @category models */
export interface EventRow {
  readonly id: string
  readonly account_id: string
  readonly type: string
  readonly subject_id: string
  readonly data: string
  readonly created_at: Int8
}

/** An event from its row. @since 0.1.0 @category mapping */
export const eventFromRow = (row: EventRow): Event => ({
  id: row.id,
  accountId: row.account_id,
  type: row.type as EventType,
  subjectId: row.subject_id,
  createdAt: int8(row.created_at),
  data: JSON.parse(row.data) as Record<string, unknown>
})

/** An event as the columns of its row. @since 0.1.0 @category mapping */
export const eventRow = (e: Event) => ({
  id: e.id,
  account_id: e.accountId,
  type: e.type,
  subject_id: e.subjectId,
  data: JSON.stringify(e.data),
  created_at: e.createdAt
})

/** A row of `sendline_idempotency_keys`. @since 0.1.0 @category models */
export interface IdempotencyRow {
  readonly account_id: string
  readonly key: string
  readonly fingerprint: string
  readonly created_at: Int8
  readonly response_status: number | null
  readonly response_body: string | null
}

/** An idempotency record from its row. @since 0.1.0 @category mapping */
export const idempotencyFromRow = (row: IdempotencyRow): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  fingerprint: row.fingerprint,
  createdAt: int8(row.created_at),
  response: row.response_status === null || row.response_body === null
    ? Option.none()
    : Option.some<StoredResponse>({ status: row.response_status, body: row.response_body })
})
