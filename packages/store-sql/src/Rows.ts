/**
 * The rows of the Sendline tables and their mapping to and from the domain of `@sendline/core`:
 * the same on SQLite and PostgreSQL (the tables have the same names and columns in both). Rows
 * are decoded with their schema: a row that is not what this version wrote (a status it does not
 * know, JSON that does not parse) fails `StoreUnavailable` naming its table, never wrong data.
 *
 * @since 0.1.0
 */
import type { IdempotencyStore } from "@sendline/core"
import { Account, Errors, Event, Message, Permission, SenderId } from "@sendline/core"
import type { Types } from "effect"
import { Effect, Option, ParseResult, Schema } from "effect"

/**
 * An epoch-millisecond timestamp as a driver returns it: SQLite's INTEGER as a number,
 * PostgreSQL's BIGINT as a string (node-postgres keeps int8 exact, as it may exceed 2^53; our
 * timestamps never do) unless the embedder's client parses it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Int8 = Schema.declare(
  (u: unknown): u is number | string => typeof u === "number" || (typeof u === "string" && /^-?[0-9]+$/.test(u)),
  { identifier: "Int8", description: "an integer, or its digits as PostgreSQL's BIGINT arrives" }
).pipe(Schema.transform(Schema.Number, { strict: true, decode: Number, encode: (n) => n }))

/** An optional field as a nullable column. @since 0.1.0 @category mapping */
export const orNull = <A>(value: A | undefined): A | null => value === undefined ? null : value

/**
 * Decodes the rows of `table` with `row` and maps each to the domain with `f`; a row that does not
 * decode fails `StoreUnavailable`, naming the table and the first problem.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decoder = <R, I, A>(table: string, row: Schema.Schema<R, I>, f: (row: R) => A) => {
  const decode = Schema.decodeUnknownEither(Schema.Array(row), { onExcessProperty: "ignore" })
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, Errors.StoreUnavailable> => {
    const decoded = decode(rows)
    if (decoded._tag === "Right") return Effect.succeed(decoded.right.map(f))
    const [issue] = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
    const column = issue === undefined ? "" : ` column ${issue.path.slice(1).join(".")}:`
    return Effect.fail(
      new Errors.StoreUnavailable({
        message: `A row of ${table} is not what this version of Sendline stores:${column} ${issue?.message ?? "unreadable"}`,
        cause: decoded.left
      })
    )
  }
}

/** The first of the decoded rows, if any. @since 0.1.0 @category decoding */
export const first = <A>(decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, Errors.StoreUnavailable>) =>
(rows: ReadonlyArray<unknown>): Effect.Effect<Option.Option<A>, Errors.StoreUnavailable> =>
  Effect.map(decode(rows.slice(0, 1)), (decoded) => Option.fromNullable(decoded[0]))

/** A row of `sendline_accounts`. @since 0.1.0 @category schemas */
export const AccountRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Account.Account.fields.type,
  admin_email: Schema.String,
  network: Schema.NullOr(Schema.String),
  markets: Schema.parseJson(Schema.Array(Schema.String)),
  identifiers: Schema.parseJson(Schema.Array(Account.OwnedIdentifier)),
  created_at: Int8
})

/** Accounts from their rows. @since 0.1.0 @category decoding */
export const accounts = decoder("sendline_accounts", AccountRow, (row): Account.Account => {
  const account: Types.Mutable<Account.Account> = {
    id: row.id,
    name: row.name,
    type: row.type,
    adminEmail: row.admin_email,
    markets: row.markets,
    identifiers: row.identifiers,
    createdAt: row.created_at
  }
  if (row.network !== null) account.network = row.network
  return account
})

/** A row of `sendline_api_keys`. @since 0.1.0 @category schemas */
export const ApiKeyRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  digest: Schema.String,
  permissions: Schema.parseJson(Schema.Array(Permission.Permission)),
  expires_at: Schema.NullOr(Int8),
  revoked_at: Schema.NullOr(Int8),
  created_at: Int8
})

/** API keys from their rows. @since 0.1.0 @category decoding */
export const apiKeys = decoder("sendline_api_keys", ApiKeyRow, (row): Account.ApiKey => {
  const key: Types.Mutable<Account.ApiKey> = {
    id: row.id,
    accountId: row.account_id,
    digest: row.digest,
    permissions: row.permissions,
    createdAt: row.created_at
  }
  if (row.expires_at !== null) key.expiresAt = row.expires_at
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at
  return key
})

/** A row of `sendline_sender_ids`. @since 0.1.0 @category schemas */
export const SenderIdRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  sender_id: Schema.String,
  market: Schema.String,
  brand_name: Schema.String,
  status: SenderId.SenderIdStatus,
  created_at: Int8,
  registered_at: Schema.NullOr(Int8),
  expires_at: Schema.NullOr(Int8)
})

/** Sender ID records from their rows. @since 0.1.0 @category decoding */
export const senderIds = decoder("sendline_sender_ids", SenderIdRow, (row): SenderId.SenderIdRecord => {
  const record: Types.Mutable<SenderId.SenderIdRecord> = {
    id: row.id,
    accountId: row.account_id,
    senderId: row.sender_id,
    market: row.market,
    brandName: row.brand_name,
    status: row.status,
    createdAt: row.created_at
  }
  if (row.registered_at !== null) record.registeredAt = row.registered_at
  if (row.expires_at !== null) record.expiresAt = row.expires_at
  return record
})

/** A row of `sendline_messages` (`claimed_until`, the store's own, is not read). @since 0.1.0 @category schemas */
export const MessageRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  status: Message.MessageStatus,
  recipient: Schema.String,
  sender_id: Schema.String,
  body: Schema.String,
  segments: Schema.Number,
  encoding: Message.Encoding,
  market: Schema.String,
  reference: Schema.NullOr(Schema.String),
  callback_url: Schema.NullOr(Schema.String),
  price: Schema.parseJson(Message.Price),
  error: Schema.NullOr(Schema.parseJson(Message.MessageError)),
  created_at: Int8,
  scheduled_at: Schema.NullOr(Int8),
  sent_at: Schema.NullOr(Int8),
  delivered_at: Schema.NullOr(Int8),
  idempotency_key: Schema.NullOr(Schema.String)
})

/** Messages from their rows. @since 0.1.0 @category decoding */
export const messages = decoder("sendline_messages", MessageRow, (row): Message.Message => {
  const message: Types.Mutable<Message.Message> = {
    id: row.id,
    accountId: row.account_id,
    status: row.status,
    to: row.recipient,
    senderId: row.sender_id,
    body: row.body,
    segments: row.segments,
    encoding: row.encoding,
    market: row.market,
    price: row.price,
    createdAt: row.created_at
  }
  if (row.reference !== null) message.reference = row.reference
  if (row.callback_url !== null) message.callbackUrl = row.callback_url
  if (row.scheduled_at !== null) message.scheduledAt = row.scheduled_at
  if (row.sent_at !== null) message.sentAt = row.sent_at
  if (row.delivered_at !== null) message.deliveredAt = row.delivered_at
  if (row.error !== null) message.error = row.error
  if (row.idempotency_key !== null) message.idempotencyKey = row.idempotency_key
  return message
})

// A price as stored: compact JSON with a fixed key order.
const priceJson = (price: Message.Message["price"]): string =>
  JSON.stringify({ amount: price.amount, currency: price.currency })

// An error as stored: compact JSON with a fixed key order, or NULL.
const errorJson = (error: Message.Message["error"]): string | null =>
  error === undefined ? null : JSON.stringify({ code: error.code, message: error.message })

/** A message as the columns of its row. @since 0.1.0 @category mapping */
export const messageRow = (m: Message.Message) => ({
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

/** A row of `sendline_events`. @since 0.1.0 @category schemas */
export const EventRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  type: Event.EventType,
  subject_id: Schema.String,
  data: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  created_at: Int8
})

/** Events from their rows. @since 0.1.0 @category decoding */
export const events = decoder("sendline_events", EventRow, (row): Event.Event => ({
  id: row.id,
  accountId: row.account_id,
  type: row.type,
  subjectId: row.subject_id,
  createdAt: row.created_at,
  data: row.data
}))

/** An event as the columns of its row. @since 0.1.0 @category mapping */
export const eventRow = (e: Event.Event) => ({
  id: e.id,
  account_id: e.accountId,
  type: e.type,
  subject_id: e.subjectId,
  data: JSON.stringify(e.data),
  created_at: e.createdAt
})

/** A row of `sendline_idempotency_keys`. @since 0.1.0 @category schemas */
export const IdempotencyRow = Schema.Struct({
  account_id: Schema.String,
  key: Schema.String,
  fingerprint: Schema.String,
  created_at: Int8,
  response_status: Schema.NullOr(Schema.Number),
  response_body: Schema.NullOr(Schema.String)
})

/** Idempotency records from their rows. @since 0.1.0 @category decoding */
export const idempotencyRecords = decoder("sendline_idempotency_keys", IdempotencyRow, (row): IdempotencyStore.IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  fingerprint: row.fingerprint,
  createdAt: row.created_at,
  response: row.response_status === null || row.response_body === null
    ? Option.none()
    : Option.some({ status: row.response_status, body: row.response_body })
}))
