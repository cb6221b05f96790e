/**
 * The SQLite store: every storage port of `@sendline/core` on one `SqlClient`, with its own
 * migrations (table `sendline_migrations`).
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { OwnedIdentifier } from "@sendline/core/Account"
import type { Account, AccountType, ApiKey } from "@sendline/core/Account"
import { AccountStore } from "@sendline/core/AccountStore"
import * as Batcher from "@sendline/core/Batcher"
import { StoreUnavailable } from "@sendline/core/Errors"
import type { Event, EventType } from "@sendline/core/Event"
import { EventStore } from "@sendline/core/EventStore"
import { IdempotencyStore } from "@sendline/core/IdempotencyStore"
import type { IdempotencyRecord, StoredResponse } from "@sendline/core/IdempotencyStore"
import type { Message, MessageStatus } from "@sendline/core/Message"
import { MessageStore } from "@sendline/core/MessageStore"
import type { Permission } from "@sendline/core/Permission"
import type { SenderIdRecord, SenderIdStatus } from "@sendline/core/SenderId"
import { SenderIdStore } from "@sendline/core/SenderIdStore"
import { SubscriptionStore } from "@sendline/core/SubscriptionStore"
import type { ConfigError, Scope } from "effect"
import { Config, Context, Effect, Layer, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"

// ---------------------------------------------------------------------------------------------
// migrations
// ---------------------------------------------------------------------------------------------

const statements = (...ddl: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(ddl, (text) => sql.unsafe(text), { discard: true }))

const migrations = Migrator.fromRecord({
  "0001_initial": statements(
    `CREATE TABLE sendline_accounts (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      admin_email TEXT NOT NULL,
      network TEXT,
      markets TEXT NOT NULL,
      identifiers TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT`,
    `CREATE TABLE sendline_api_keys (
      id TEXT PRIMARY KEY NOT NULL,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      digest TEXT NOT NULL UNIQUE,
      permissions TEXT NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER,
      created_at INTEGER NOT NULL
    ) STRICT`,
    `CREATE INDEX sendline_api_keys_account ON sendline_api_keys (account_id)`,
    `CREATE TABLE sendline_sender_ids (
      id TEXT PRIMARY KEY NOT NULL,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      sender_id TEXT NOT NULL,
      market TEXT NOT NULL,
      brand_name TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      registered_at INTEGER,
      expires_at INTEGER
    ) STRICT`,
    `CREATE INDEX sendline_sender_ids_lookup ON sendline_sender_ids (account_id, sender_id, market, status)`,
    `CREATE TABLE sendline_messages (
      id TEXT PRIMARY KEY NOT NULL,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      status TEXT NOT NULL,
      recipient TEXT NOT NULL,
      sender_id TEXT NOT NULL,
      body TEXT NOT NULL,
      segments INTEGER NOT NULL,
      encoding TEXT NOT NULL,
      market TEXT NOT NULL,
      reference TEXT,
      callback_url TEXT,
      price TEXT NOT NULL,
      error TEXT,
      created_at INTEGER NOT NULL,
      scheduled_at INTEGER,
      sent_at INTEGER,
      delivered_at INTEGER
    ) STRICT`,
    `CREATE INDEX sendline_messages_list ON sendline_messages (account_id, created_at DESC, id DESC)`,
    `CREATE INDEX sendline_messages_status ON sendline_messages (account_id, status, created_at, id)`,
    `CREATE INDEX sendline_messages_market ON sendline_messages (account_id, market, created_at, id)`,
    `CREATE INDEX sendline_messages_sender_id ON sendline_messages (account_id, sender_id, created_at, id)`,
    `CREATE INDEX sendline_messages_reference ON sendline_messages (account_id, reference, created_at, id)`,
    `CREATE TABLE sendline_events (
      id TEXT PRIMARY KEY NOT NULL,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT`,
    `CREATE INDEX sendline_events_subject ON sendline_events (account_id, subject_id, created_at)`,
    `CREATE TABLE sendline_webhook_subscriptions (
      id TEXT PRIMARY KEY NOT NULL,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      secret TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT`,
    `CREATE INDEX sendline_webhook_subscriptions_account
      ON sendline_webhook_subscriptions (account_id, status, created_at)`,
    `CREATE TABLE sendline_idempotency_keys (
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      response_status INTEGER,
      response_body TEXT,
      PRIMARY KEY (account_id, key)
    ) STRICT, WITHOUT ROWID`,
    `CREATE INDEX sendline_idempotency_keys_created ON sendline_idempotency_keys (created_at)`
  ),
  "0002_claims": statements(
    `ALTER TABLE sendline_messages ADD COLUMN claimed_until INTEGER`,
    `CREATE INDEX sendline_messages_dispatch ON sendline_messages (created_at, id) WHERE status = 'queued'`,
    `CREATE INDEX sendline_messages_schedule ON sendline_messages (scheduled_at, id) WHERE status = 'scheduled'`
  )
})

const migrate = Migrator.make({})({ loader: migrations, table: "sendline_migrations" })

// ---------------------------------------------------------------------------------------------
// rows ↔ domain
// ---------------------------------------------------------------------------------------------

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

const AccountRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.Literal("brand", "aggregator", "cpaas", "operator"),
  admin_email: Schema.String,
  network: Schema.NullOr(Schema.String),
  markets: Schema.parseJson(Schema.Array(Schema.String)),
  identifiers: Schema.parseJson(Schema.Array(OwnedIdentifier)),
  created_at: Schema.Number
})

const accountFromRow = (row: typeof AccountRow.Type): Account => {
  const account: Mutable<Account> = {
    id: row.id,
    name: row.name,
    type: row.type satisfies AccountType,
    adminEmail: row.admin_email,
    markets: row.markets,
    identifiers: row.identifiers,
    createdAt: row.created_at
  }
  if (row.network !== null) account.network = row.network
  return account
}

interface ApiKeyRow {
  readonly id: string
  readonly account_id: string
  readonly digest: string
  readonly permissions: string
  readonly expires_at: number | null
  readonly revoked_at: number | null
  readonly created_at: number
}

const apiKeyFromRow = (row: ApiKeyRow): ApiKey => {
  const key: Mutable<ApiKey> = {
    id: row.id,
    accountId: row.account_id,
    digest: row.digest,
    permissions: JSON.parse(row.permissions) as ReadonlyArray<Permission>,
    createdAt: row.created_at
  }
  if (row.expires_at !== null) key.expiresAt = row.expires_at
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at
  return key
}

interface SenderIdRow {
  readonly id: string
  readonly account_id: string
  readonly sender_id: string
  readonly market: string
  readonly brand_name: string
  readonly status: string
  readonly created_at: number
  readonly registered_at: number | null
  readonly expires_at: number | null
}

const senderIdFromRow = (row: SenderIdRow): SenderIdRecord => {
  const record: Mutable<SenderIdRecord> = {
    id: row.id,
    accountId: row.account_id,
    senderId: row.sender_id,
    market: row.market,
    brandName: row.brand_name,
    status: row.status as SenderIdStatus,
    createdAt: row.created_at
  }
  if (row.registered_at !== null) record.registeredAt = row.registered_at
  if (row.expires_at !== null) record.expiresAt = row.expires_at
  return record
}

interface MessageRow {
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
  readonly created_at: number
  readonly scheduled_at: number | null
  readonly sent_at: number | null
  readonly delivered_at: number | null
}

const messageFromRow = (row: MessageRow): Message => {
  const message: Mutable<Message> = {
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
    createdAt: row.created_at
  }
  if (row.reference !== null) message.reference = row.reference
  if (row.callback_url !== null) message.callbackUrl = row.callback_url
  if (row.scheduled_at !== null) message.scheduledAt = row.scheduled_at
  if (row.sent_at !== null) message.sentAt = row.sent_at
  if (row.delivered_at !== null) message.deliveredAt = row.delivered_at
  if (row.error !== null) message.error = JSON.parse(row.error) as NonNullable<Message["error"]>
  return message
}

/** The price and error as stored: compact JSON with a fixed key order. */
const priceJson = (price: Message["price"]) => JSON.stringify({ amount: price.amount, currency: price.currency })
const errorJson = (error: Message["error"]) =>
  error === undefined ? null : JSON.stringify({ code: error.code, message: error.message })

interface EventRow {
  readonly id: string
  readonly account_id: string
  readonly type: string
  readonly subject_id: string
  readonly data: string
  readonly created_at: number
}

const eventFromRow = (row: EventRow): Event => ({
  id: row.id,
  accountId: row.account_id,
  type: row.type as EventType,
  subjectId: row.subject_id,
  createdAt: row.created_at,
  data: JSON.parse(row.data) as Record<string, unknown>
})

interface IdempotencyRow {
  readonly account_id: string
  readonly key: string
  readonly fingerprint: string
  readonly created_at: number
  readonly response_status: number | null
  readonly response_body: string | null
}

const idempotencyFromRow = (row: IdempotencyRow): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  fingerprint: row.fingerprint,
  createdAt: row.created_at,
  response: row.response_status === null || row.response_body === null
    ? Option.none()
    : Option.some<StoredResponse>({ status: row.response_status, body: row.response_body })
})

const orNull = <A>(value: A | undefined): A | null => value === undefined ? null : value

/** A message as the columns of its row. */
const messageRow = (m: Message) => ({
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
  delivered_at: orNull(m.deliveredAt)
})

/** An event as the columns of its row. */
const eventRow = (e: Event) => ({
  id: e.id,
  account_id: e.accountId,
  type: e.type,
  subject_id: e.subjectId,
  data: JSON.stringify(e.data),
  created_at: e.createdAt
})

/** The most items one batched statement carries (17 columns × 256 stays far below SQLite's variable limit). */
const batchLimit = 256

// ---------------------------------------------------------------------------------------------
// the store
// ---------------------------------------------------------------------------------------------

const unavailable = (cause: SqlError | ParseError) =>
  new StoreUnavailable({ message: "The SQLite store failed", cause })

/**
 * Migrates the database behind `SqlClient` and builds all six storage ports on it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<
  Context.Context<AccountStore | SenderIdStore | MessageStore | EventStore | SubscriptionStore | IdempotencyStore>,
  StoreUnavailable,
  SqlClient.SqlClient | Scope.Scope
> = Effect.gen(function*() {
  // Every query below names its snake_case columns itself, whatever transforms the client has.
  const sql = (yield* SqlClient.SqlClient).withoutTransforms()

  // Connection settings first: journal_mode cannot change inside a transaction (the migrator's).
  yield* sql`PRAGMA journal_mode = WAL`
  yield* sql`PRAGMA synchronous = NORMAL`
  yield* sql`PRAGMA busy_timeout = 5000`
  yield* sql`PRAGMA foreign_keys = ON`
  yield* migrate.pipe(Effect.provideService(SqlClient.SqlClient, sql))
  // Lets the query planner gather the statistics that pick the right list index (SQLite's advice
  // for long-lived connections).
  yield* sql`PRAGMA optimize = 0x10002`

  /** The one road for writes: a transaction, errors mapped. Group commit would go here. */
  const write = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, StoreUnavailable> =>
    Effect.mapError(sql.withTransaction(effect), unavailable)

  const read = <A>(effect: Effect.Effect<A, SqlError | ParseError>): Effect.Effect<A, StoreUnavailable> =>
    Effect.mapError(effect, unavailable)

  const first = <R, A>(rows: ReadonlyArray<R>, f: (row: R) => A): Option.Option<A> =>
    rows.length === 0 ? Option.none() : Option.some(f(rows[0]!))

  // --- batched hot paths ----------------------------------------------------------------------
  // Every send authenticates a key, looks up its Sender ID and inserts a message with its event.
  // Concurrent requests share one query or one transaction for each (see Batcher).

  const keysByDigest = yield* Batcher.make({
    maxBatch: batchLimit,
    run: (digests: ReadonlyArray<string>) =>
      read(Effect.map(
        sql<ApiKeyRow>`SELECT * FROM sendline_api_keys WHERE digest IN ${sql.in(digests)}`,
        (rows) => {
          const byDigest = new Map(rows.map((row) => [row.digest, row]))
          return digests.map((digest) => Option.map(Option.fromNullable(byDigest.get(digest)), apiKeyFromRow))
        }
      ))
  })

  interface RegisteredQuery {
    readonly accountId: string
    readonly senderId: string
    readonly market: string
  }
  const registeredKey = (q: RegisteredQuery) => `${q.accountId}\u0000${q.senderId}\u0000${q.market}`
  const registeredSenderIds = yield* Batcher.make({
    maxBatch: batchLimit,
    run: (queries: ReadonlyArray<RegisteredQuery>) =>
      read(Effect.map(
        sql<SenderIdRow>`SELECT * FROM sendline_sender_ids
          WHERE status = 'registered' AND (account_id, sender_id, market) IN (VALUES ${
          sql.csv(queries.map((q) => sql`(${q.accountId}, ${q.senderId}, ${q.market})`))
        })
          ORDER BY created_at DESC, id DESC`,
        (rows) => {
          // newest first: keep the first row seen for each (account, Sender ID, market)
          const newest = new Map<string, SenderIdRow>()
          for (const row of rows) {
            const key = registeredKey({ accountId: row.account_id, senderId: row.sender_id, market: row.market })
            if (!newest.has(key)) newest.set(key, row)
          }
          return queries.map((q) => Option.map(Option.fromNullable(newest.get(registeredKey(q))), senderIdFromRow))
        }
      ))
  })

  interface NewMessage {
    readonly message: Message
    readonly event: Option.Option<Event>
  }
  // Group commit: the messages and events of many concurrent sends in one transaction.
  const messageInserts = yield* Batcher.make({
    maxBatch: batchLimit,
    run: (batch: ReadonlyArray<NewMessage>) => {
      const events = batch.flatMap(({ event }) => (Option.isSome(event) ? [event.value] : []))
      return write(Effect.zipRight(
        sql`INSERT INTO sendline_messages ${sql.insert(batch.map(({ message }) => messageRow(message)))}`,
        events.length === 0 ? Effect.void : Effect.asVoid(sql`INSERT INTO sendline_events ${sql.insert(events.map(eventRow))}`)
      )).pipe(Effect.as(batch.map(() => undefined)))
    }
  })

  // --- accounts and keys ---------------------------------------------------------------------

  const findAccountRow = SqlSchema.findOne({
    Request: Schema.String,
    Result: AccountRow,
    execute: (id) => sql`SELECT * FROM sendline_accounts WHERE id = ${id}`
  })

  const accounts = AccountStore.of({
    insertAccount: (account) =>
      write(sql`INSERT INTO sendline_accounts
        (id, name, type, admin_email, network, markets, identifiers, created_at)
        VALUES (${account.id}, ${account.name}, ${account.type}, ${account.adminEmail}, ${orNull(account.network)},
          ${JSON.stringify(account.markets)},
          ${JSON.stringify(account.identifiers.map((i) => ({ identifierType: i.identifierType, identifierValue: i.identifierValue })))},
          ${account.createdAt})`),
    findAccount: (id) => read(Effect.map(findAccountRow(id), Option.map(accountFromRow))),
    insertKey: (key) =>
      write(sql`INSERT INTO sendline_api_keys
        (id, account_id, digest, permissions, expires_at, revoked_at, created_at)
        VALUES (${key.id}, ${key.accountId}, ${key.digest}, ${JSON.stringify(key.permissions)},
          ${orNull(key.expiresAt)}, ${orNull(key.revokedAt)}, ${key.createdAt})`),
    findKeyByDigest: keysByDigest.submit,
    revokeKey: (id, at) =>
      write(Effect.map(
        sql`UPDATE sendline_api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`,
        (rows) => rows.length > 0
      ))
  })

  // --- Sender IDs ----------------------------------------------------------------------------

  const senderIds = SenderIdStore.of({
    insert: (record) =>
      write(sql`INSERT INTO sendline_sender_ids
        (id, account_id, sender_id, market, brand_name, status, created_at, registered_at, expires_at)
        VALUES (${record.id}, ${record.accountId}, ${record.senderId}, ${record.market}, ${record.brandName},
          ${record.status}, ${record.createdAt}, ${orNull(record.registeredAt)}, ${orNull(record.expiresAt)})`),
    findById: (accountId, id) =>
      read(Effect.map(
        sql<SenderIdRow>`SELECT * FROM sendline_sender_ids WHERE id = ${id} AND account_id = ${accountId}`,
        (rows) => first(rows, senderIdFromRow)
      )),
    findRegistered: (accountId, senderId, market) => registeredSenderIds.submit({ accountId, senderId, market })
  })

  // --- messages and events -------------------------------------------------------------------

  const insertEvent = (event: Event) => sql`INSERT INTO sendline_events ${sql.insert(eventRow(event))}`

  const insertEventIfAny = (event: Option.Option<Event>): Effect.Effect<void, SqlError> =>
    Option.isSome(event) ? Effect.asVoid(insertEvent(event.value)) : Effect.void

  const messages = MessageStore.of({
    insert: (message, event) => messageInserts.submit({ message, event }),
    findById: (accountId, id) =>
      read(Effect.map(
        sql<MessageRow>`SELECT * FROM sendline_messages WHERE id = ${id} AND account_id = ${accountId}`,
        (rows) => first(rows, messageFromRow)
      )),
    list: (accountId, filter, after, limit) => {
      const where = [sql`account_id = ${accountId}`]
      if (filter.market !== undefined) where.push(sql`market = ${filter.market}`)
      if (filter.status !== undefined) where.push(sql`status = ${filter.status}`)
      if (filter.senderId !== undefined) where.push(sql`sender_id = ${filter.senderId}`)
      if (filter.reference !== undefined) where.push(sql`reference = ${filter.reference}`)
      if (filter.from !== undefined) where.push(sql`created_at >= ${filter.from}`)
      if (filter.to !== undefined) where.push(sql`created_at <= ${filter.to}`)
      if (Option.isSome(after)) where.push(sql`(created_at, id) < (${after.value.createdAt}, ${after.value.id})`)
      return read(Effect.map(
        sql<MessageRow>`SELECT * FROM sendline_messages WHERE ${sql.and(where)}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        (rows) => rows.map(messageFromRow)
      ))
    },
    transition: (m, from, event) =>
      write(Effect.flatMap(
        sql`UPDATE sendline_messages SET
            status = ${m.status}, recipient = ${m.to}, sender_id = ${m.senderId}, body = ${m.body},
            segments = ${m.segments}, encoding = ${m.encoding}, market = ${m.market}, reference = ${orNull(m.reference)},
            callback_url = ${orNull(m.callbackUrl)}, price = ${priceJson(m.price)}, error = ${errorJson(m.error)},
            scheduled_at = ${orNull(m.scheduledAt)}, sent_at = ${orNull(m.sentAt)}, delivered_at = ${orNull(m.deliveredAt)},
            claimed_until = NULL
          WHERE id = ${m.id} AND account_id = ${m.accountId} AND status = ${from}
          RETURNING id`,
        (rows) => rows.length === 0 ? Effect.succeed(false) : Effect.as(insertEventIfAny(event), true)
      )),
    // One statement: SQLite has a single writer, so the select and the update cannot interleave
    // with another claimer's (PostgreSQL needs FOR UPDATE SKIP LOCKED for the same guarantee).
    claim: (work, now, limit, leaseUntil) =>
      write(Effect.map(
        sql<MessageRow>`UPDATE sendline_messages SET claimed_until = ${leaseUntil}
          WHERE id IN (
            SELECT id FROM sendline_messages
            WHERE ${
          work === "dispatch"
            ? sql`status = 'queued'`
            : sql`status = 'scheduled' AND scheduled_at <= ${now}`
        } AND (claimed_until IS NULL OR claimed_until <= ${now})
            ORDER BY ${work === "dispatch" ? sql`created_at` : sql`scheduled_at`}, id
            LIMIT ${limit})
          RETURNING *`,
        (rows) =>
          rows.map(messageFromRow).sort((a, b) =>
            work === "dispatch"
              ? a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)
              : a.scheduledAt! - b.scheduledAt! || (a.id < b.id ? -1 : 1)
          )
      ))
  })

  const events = EventStore.of({
    listBySubject: (accountId, subjectId) =>
      read(Effect.map(
        sql<EventRow>`SELECT * FROM sendline_events WHERE account_id = ${accountId} AND subject_id = ${subjectId}
          ORDER BY created_at, id`,
        (rows) => rows.map(eventFromRow)
      ))
  })

  // --- webhook subscriptions -----------------------------------------------------------------

  const subscriptions = SubscriptionStore.of({
    hasActive: (accountId) =>
      read(Effect.map(
        sql`SELECT 1 FROM sendline_webhook_subscriptions WHERE account_id = ${accountId} AND status = 'active' LIMIT 1`,
        (rows) => rows.length > 0
      ))
  })

  // --- idempotency keys ----------------------------------------------------------------------

  const idempotency = IdempotencyStore.of({
    // One upsert claims the key, or takes over a stale row; RETURNING yields a row only when this
    // call wrote it. Otherwise the holder is read back in the same transaction.
    reserve: (record, expiredBefore) =>
      write(Effect.flatMap(
        sql`INSERT INTO sendline_idempotency_keys
            (account_id, key, fingerprint, created_at, response_status, response_body)
          VALUES (${record.accountId}, ${record.key}, ${record.fingerprint}, ${record.createdAt}, NULL, NULL)
          ON CONFLICT (account_id, key) DO UPDATE SET
            fingerprint = excluded.fingerprint, created_at = excluded.created_at,
            response_status = NULL, response_body = NULL
          WHERE sendline_idempotency_keys.created_at < ${expiredBefore}
          RETURNING key`,
        (written) =>
          written.length > 0
            ? Effect.succeedNone
            : Effect.map(
              sql<IdempotencyRow>`SELECT * FROM sendline_idempotency_keys
                WHERE account_id = ${record.accountId} AND key = ${record.key}`,
              (rows) => first(rows, idempotencyFromRow)
            )
      )),
    complete: (accountId, key, response) =>
      write(sql`UPDATE sendline_idempotency_keys SET response_status = ${response.status}, response_body = ${response.body}
        WHERE account_id = ${accountId} AND key = ${key}`),
    release: (accountId, key) =>
      write(sql`DELETE FROM sendline_idempotency_keys WHERE account_id = ${accountId} AND key = ${key}`)
  })

  return Context.make(AccountStore, accounts).pipe(
    Context.add(SenderIdStore, senderIds),
    Context.add(MessageStore, messages),
    Context.add(EventStore, events),
    Context.add(SubscriptionStore, subscriptions),
    Context.add(IdempotencyStore, idempotency)
  )
}).pipe(
  Effect.catchTags({
    SqlError: (cause) => Effect.fail(new StoreUnavailable({ message: "The SQLite store could not start", cause })),
    MigrationError: (cause) =>
      Effect.fail(new StoreUnavailable({ message: "The SQLite store could not migrate", cause }))
  })
)

/**
 * All six storage ports on the embedder's `SqlClient` (migrated when built).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  AccountStore | SenderIdStore | MessageStore | EventStore | SubscriptionStore | IdempotencyStore,
  StoreUnavailable,
  SqlClient.SqlClient
> = Layer.scopedContext(make)

/**
 * All six storage ports on a SQLite database file of their own (`:memory:` for tests).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: { readonly filename: string }): Layer.Layer<
  AccountStore | SenderIdStore | MessageStore | EventStore | SubscriptionStore | IdempotencyStore,
  StoreUnavailable | ConfigError.ConfigError
> => Layer.provide(layer, SqliteClient.layer({ filename: options.filename }))

/**
 * `layerSqlite` with its file name read from configuration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options: { readonly filename: Config.Config<string> }): Layer.Layer<
  AccountStore | SenderIdStore | MessageStore | EventStore | SubscriptionStore | IdempotencyStore,
  StoreUnavailable | ConfigError.ConfigError
> => Layer.unwrapEffect(Effect.map(Config.unwrap(options), layerSqlite))
