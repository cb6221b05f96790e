/**
 * The PostgreSQL store: every storage port of `@sendline/core` on one `SqlClient` (`@effect/sql-pg`),
 * with its own migrations (table `sendline_migrations`). Several processes may share one database:
 * migrations are serialised, idempotency keys are a unique constraint, and workers claim messages
 * with `FOR UPDATE SKIP LOCKED`.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { Account, AccountType, ApiKey, OwnedIdentifier } from "@sendline/core/Account"
import { AccountStore } from "@sendline/core/AccountStore"
import * as Batcher from "@sendline/core/Batcher"
import { StoreUnavailable } from "@sendline/core/Errors"
import type { Event, EventType } from "@sendline/core/Event"
import { EventStore } from "@sendline/core/EventStore"
import { IdempotencyStore } from "@sendline/core/IdempotencyStore"
import type { IdempotencyRecord, StoredResponse } from "@sendline/core/IdempotencyStore"
import type { Message, MessageStatus } from "@sendline/core/Message"
import type { ClaimWork } from "@sendline/core/MessageStore"
import { MessageStore } from "@sendline/core/MessageStore"
import type { Permission } from "@sendline/core/Permission"
import type { SenderIdRecord, SenderIdStatus } from "@sendline/core/SenderId"
import { SenderIdStore } from "@sendline/core/SenderIdStore"
import { SubscriptionStore } from "@sendline/core/SubscriptionStore"
import type { ConfigError, Redacted, Scope } from "effect"
import { Config, Context, Effect, Layer, Option } from "effect"

// ---------------------------------------------------------------------------------------------
// migrations
// ---------------------------------------------------------------------------------------------

// The tables, names and columns of the SQLite store, in PostgreSQL types: timestamps are BIGINT
// epoch milliseconds (as SQLite's INTEGER), JSON-shaped fields are TEXT holding JSON, not JSONB:
// nothing queries inside them, TEXT keeps the bytes as written (JSONB reorders keys and drops
// whitespace) and the driver hands back a string either store maps with the same JSON.parse.
const statements = (...ddl: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(ddl, (text) => sql.unsafe(text), { discard: true }))

const migrations = Migrator.fromRecord({
  "0001_initial": statements(
    `CREATE TABLE sendline_accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      admin_email TEXT NOT NULL,
      network TEXT,
      markets TEXT NOT NULL,
      identifiers TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE sendline_api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      digest TEXT NOT NULL UNIQUE,
      permissions TEXT NOT NULL,
      expires_at BIGINT,
      revoked_at BIGINT,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX sendline_api_keys_account ON sendline_api_keys (account_id)`,
    `CREATE TABLE sendline_sender_ids (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      sender_id TEXT NOT NULL,
      market TEXT NOT NULL,
      brand_name TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      registered_at BIGINT,
      expires_at BIGINT
    )`,
    `CREATE INDEX sendline_sender_ids_lookup ON sendline_sender_ids (account_id, sender_id, market, status)`,
    `CREATE TABLE sendline_messages (
      id TEXT PRIMARY KEY,
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
      created_at BIGINT NOT NULL,
      scheduled_at BIGINT,
      sent_at BIGINT,
      delivered_at BIGINT
    )`,
    // Ascending, unlike SQLite's DESC list index: a B-tree scanned backwards gives the newest-first
    // order, and PostgreSQL uses the keyset's row comparison `(created_at, id) < (…)` as an index
    // bound only on columns of one direction.
    `CREATE INDEX sendline_messages_list ON sendline_messages (account_id, created_at, id)`,
    `CREATE INDEX sendline_messages_status ON sendline_messages (account_id, status, created_at, id)`,
    `CREATE INDEX sendline_messages_market ON sendline_messages (account_id, market, created_at, id)`,
    `CREATE INDEX sendline_messages_sender_id ON sendline_messages (account_id, sender_id, created_at, id)`,
    `CREATE INDEX sendline_messages_reference ON sendline_messages (account_id, reference, created_at, id)`,
    `CREATE TABLE sendline_events (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX sendline_events_subject ON sendline_events (account_id, subject_id, created_at)`,
    `CREATE TABLE sendline_webhook_subscriptions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      secret TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX sendline_webhook_subscriptions_account
      ON sendline_webhook_subscriptions (account_id, status, created_at)`,
    `CREATE TABLE sendline_idempotency_keys (
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      response_status INTEGER,
      response_body TEXT,
      PRIMARY KEY (account_id, key)
    )`,
    `CREATE INDEX sendline_idempotency_keys_created ON sendline_idempotency_keys (created_at)`
  ),
  // Work claiming: a message is held by a worker until `claimed_until`; the partial indexes hold
  // only the rows that can be due, in the order they are claimed.
  "0002_claims": statements(
    `ALTER TABLE sendline_messages ADD COLUMN claimed_until BIGINT`,
    `CREATE INDEX sendline_messages_dispatch ON sendline_messages (created_at, id) WHERE status = 'queued'`,
    `CREATE INDEX sendline_messages_schedule ON sendline_messages (scheduled_at, id) WHERE status = 'scheduled'`
  )
})

const MIGRATIONS_TABLE = "sendline_migrations"

/**
 * Effect's Migrator locks its table while it migrates, but creates that table first, outside the
 * lock: two processes starting on an empty database both see no table and one `CREATE TABLE`
 * fails. So the whole run holds a transaction-scoped advisory lock (per schema), and the table is
 * created under it, with the Migrator's own columns, before the Migrator looks for it.
 */
const migrate = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || ${MIGRATIONS_TABLE}))`
    yield* sql`CREATE TABLE IF NOT EXISTS ${sql(MIGRATIONS_TABLE)} (
      migration_id integer primary key,
      created_at timestamp with time zone not null default now(),
      name text not null
    )`
    return yield* Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })
  })).pipe(Effect.provideService(SqlClient.SqlClient, sql))

// ---------------------------------------------------------------------------------------------
// rows ↔ domain
// ---------------------------------------------------------------------------------------------

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * A BIGINT as a number. node-postgres returns int8 as a string (it may exceed 2^53; our epoch
 * milliseconds never do), unless the embedder's client parses it: both are accepted.
 */
type Int8 = number | string

const int8 = (value: Int8): number => typeof value === "number" ? value : Number(value)

interface AccountRow {
  readonly id: string
  readonly name: string
  readonly type: string
  readonly admin_email: string
  readonly network: string | null
  readonly markets: string
  readonly identifiers: string
  readonly created_at: Int8
}

const accountFromRow = (row: AccountRow): Account => {
  const account: Mutable<Account> = {
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

interface ApiKeyRow {
  readonly id: string
  readonly account_id: string
  readonly digest: string
  readonly permissions: string
  readonly expires_at: Int8 | null
  readonly revoked_at: Int8 | null
  readonly created_at: Int8
}

const apiKeyFromRow = (row: ApiKeyRow): ApiKey => {
  const key: Mutable<ApiKey> = {
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

interface SenderIdRow {
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

const senderIdFromRow = (row: SenderIdRow): SenderIdRecord => {
  const record: Mutable<SenderIdRecord> = {
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
  readonly created_at: Int8
  readonly scheduled_at: Int8 | null
  readonly sent_at: Int8 | null
  readonly delivered_at: Int8 | null
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
    createdAt: int8(row.created_at)
  }
  if (row.reference !== null) message.reference = row.reference
  if (row.callback_url !== null) message.callbackUrl = row.callback_url
  if (row.scheduled_at !== null) message.scheduledAt = int8(row.scheduled_at)
  if (row.sent_at !== null) message.sentAt = int8(row.sent_at)
  if (row.delivered_at !== null) message.deliveredAt = int8(row.delivered_at)
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
  readonly created_at: Int8
}

const eventFromRow = (row: EventRow): Event => ({
  id: row.id,
  accountId: row.account_id,
  type: row.type as EventType,
  subjectId: row.subject_id,
  createdAt: int8(row.created_at),
  data: JSON.parse(row.data) as Record<string, unknown>
})

interface IdempotencyRow {
  readonly account_id: string
  readonly key: string
  readonly fingerprint: string
  readonly created_at: Int8
  readonly response_status: number | null
  readonly response_body: string | null
}

const idempotencyFromRow = (row: IdempotencyRow): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  fingerprint: row.fingerprint,
  createdAt: int8(row.created_at),
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

/** The most items one batched statement carries (17 columns × 256 stays far below the 65,535 parameters of one statement). */
const batchLimit = 256

/** The order in which each kind of work is claimed: oldest first. */
const claimOrder = (work: ClaimWork) => (a: Message, b: Message): number => {
  const at = (m: Message) => work === "schedule" ? m.scheduledAt ?? 0 : m.createdAt
  return at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

// ---------------------------------------------------------------------------------------------
// the store
// ---------------------------------------------------------------------------------------------

const unavailable = (cause: SqlError) => new StoreUnavailable({ message: "The PostgreSQL store failed", cause })

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
  yield* migrate(sql)

  // Unlike SQLite (one connection, a transaction per write), a write that is one statement runs
  // on its own: PostgreSQL makes each statement atomic, and a transaction would cost a pinned pool
  // connection and two more round trips. Statements that must see each other share a transaction.
  const run = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, StoreUnavailable> =>
    Effect.mapError(effect, unavailable)

  const transaction = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, StoreUnavailable> =>
    Effect.mapError(sql.withTransaction(effect), unavailable)

  const first = <R, A>(rows: ReadonlyArray<R>, f: (row: R) => A): Option.Option<A> =>
    rows.length === 0 ? Option.none() : Option.some(f(rows[0]!))

  // --- batched hot paths ----------------------------------------------------------------------
  // Every send authenticates a key, looks up its Sender ID and inserts a message with its event.
  // Concurrent requests share one statement for each (see Batcher): fewer round trips and fewer
  // statements for the server to plan, under load.

  const keysByDigest = yield* Batcher.make({
    maxBatch: batchLimit,
    run: (digests: ReadonlyArray<string>) =>
      run(Effect.map(
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
      run(Effect.map(
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
  // The messages and events of many concurrent sends in one statement: atomic for the batch, and
  // when a batch fails the Batcher runs each of its items alone.
  const messageInserts = yield* Batcher.make({
    maxBatch: batchLimit,
    run: (batch: ReadonlyArray<NewMessage>) => {
      const events = batch.flatMap(({ event }) => (Option.isSome(event) ? [event.value] : []))
      const insertMessages = sql`INSERT INTO sendline_messages ${sql.insert(batch.map(({ message }) => messageRow(message)))}`
      return run(
        events.length === 0
          ? insertMessages
          : sql`WITH messages AS (${insertMessages}) INSERT INTO sendline_events ${sql.insert(events.map(eventRow))}`
      ).pipe(Effect.as(batch.map(() => undefined)))
    }
  })

  // --- accounts and keys ---------------------------------------------------------------------

  const accounts = AccountStore.of({
    insertAccount: (account) =>
      run(Effect.asVoid(sql`INSERT INTO sendline_accounts
        (id, name, type, admin_email, network, markets, identifiers, created_at)
        VALUES (${account.id}, ${account.name}, ${account.type}, ${account.adminEmail}, ${orNull(account.network)},
          ${JSON.stringify(account.markets)},
          ${JSON.stringify(account.identifiers.map((i) => ({ identifierType: i.identifierType, identifierValue: i.identifierValue })))},
          ${account.createdAt})`)),
    findAccount: (id) =>
      run(Effect.map(
        sql<AccountRow>`SELECT * FROM sendline_accounts WHERE id = ${id}`,
        (rows) => first(rows, accountFromRow)
      )),
    insertKey: (key) =>
      run(Effect.asVoid(sql`INSERT INTO sendline_api_keys
        (id, account_id, digest, permissions, expires_at, revoked_at, created_at)
        VALUES (${key.id}, ${key.accountId}, ${key.digest}, ${JSON.stringify(key.permissions)},
          ${orNull(key.expiresAt)}, ${orNull(key.revokedAt)}, ${key.createdAt})`)),
    findKeyByDigest: keysByDigest.submit,
    revokeKey: (id, at) =>
      run(Effect.map(
        sql`UPDATE sendline_api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`,
        (rows) => rows.length > 0
      ))
  })

  // --- Sender IDs ----------------------------------------------------------------------------

  const senderIds = SenderIdStore.of({
    insert: (record) =>
      run(Effect.asVoid(sql`INSERT INTO sendline_sender_ids
        (id, account_id, sender_id, market, brand_name, status, created_at, registered_at, expires_at)
        VALUES (${record.id}, ${record.accountId}, ${record.senderId}, ${record.market}, ${record.brandName},
          ${record.status}, ${record.createdAt}, ${orNull(record.registeredAt)}, ${orNull(record.expiresAt)})`)),
    findById: (accountId, id) =>
      run(Effect.map(
        sql<SenderIdRow>`SELECT * FROM sendline_sender_ids WHERE id = ${id} AND account_id = ${accountId}`,
        (rows) => first(rows, senderIdFromRow)
      )),
    findRegistered: (accountId, senderId, market) => registeredSenderIds.submit({ accountId, senderId, market })
  })

  // --- messages and events -------------------------------------------------------------------

  /** The event's row as a `SELECT` list, so that a statement can insert it from another's result. */
  const eventValues = (event: Event) =>
    sql`${event.id}, ${event.accountId}, ${event.type}, ${event.subjectId}, ${JSON.stringify(event.data)},
      ${event.createdAt}::bigint`

  // Clears `claimed_until`: a claim is for the work of the status it was taken in, so a message
  // that moves on (scheduled → queued) is at once free for its next work.
  const updateMessage = (m: Message, from: MessageStatus) =>
    sql`UPDATE sendline_messages SET
        status = ${m.status}, recipient = ${m.to}, sender_id = ${m.senderId}, body = ${m.body},
        segments = ${m.segments}, encoding = ${m.encoding}, market = ${m.market}, reference = ${orNull(m.reference)},
        callback_url = ${orNull(m.callbackUrl)}, price = ${priceJson(m.price)}, error = ${errorJson(m.error)},
        scheduled_at = ${orNull(m.scheduledAt)}, sent_at = ${orNull(m.sentAt)}, delivered_at = ${orNull(m.deliveredAt)},
        claimed_until = NULL
      WHERE id = ${m.id} AND account_id = ${m.accountId} AND status = ${from}
      RETURNING id`

  // The outbox writes (the batched insert above, the transition below) are one statement each:
  // PostgreSQL's data-modifying WITH runs the message write and the event insert atomically in one
  // round trip (SQLite has no such WITH and wraps two statements in a transaction instead).
  const messages = MessageStore.of({
    insert: (message, event) => messageInserts.submit({ message, event }),
    findById: (accountId, id) =>
      run(Effect.map(
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
      return run(Effect.map(
        sql<MessageRow>`SELECT * FROM sendline_messages WHERE ${sql.and(where)}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        (rows) => rows.map(messageFromRow)
      ))
    },
    transition: (m, from, event) =>
      run(Effect.map(
        Option.isNone(event)
          ? updateMessage(m, from)
          : sql`WITH message AS (${updateMessage(m, from)}),
              event AS (
                INSERT INTO sendline_events (id, account_id, type, subject_id, data, created_at)
                SELECT ${eventValues(event.value)} FROM message
              )
              SELECT id FROM message`,
        (rows) => rows.length > 0
      )),
    // One statement, so one short transaction: the inner SELECT locks the due rows it picks and
    // skips rows another claimer has locked, so concurrent claimers (here or in other processes)
    // never pick the same row; the lease then keeps them out of later claims until it ends.
    claim: (work, now, limit, leaseUntil) =>
      run(Effect.map(
        sql<MessageRow>`WITH due AS (
            SELECT id FROM sendline_messages
            WHERE ${
          work === "dispatch"
            ? sql`status = 'queued'`
            : sql`status = 'scheduled' AND scheduled_at <= ${now}`
        }
              AND (claimed_until IS NULL OR claimed_until <= ${now})
            ORDER BY ${work === "dispatch" ? sql`created_at, id` : sql`scheduled_at, id`}
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          UPDATE sendline_messages SET claimed_until = ${leaseUntil}
          FROM due WHERE sendline_messages.id = due.id
          RETURNING sendline_messages.*`,
        // RETURNING follows no order: sort the claimed rows oldest first, as they were picked.
        (rows) => rows.map(messageFromRow).sort(claimOrder(work))
      ))
  })

  const events = EventStore.of({
    listBySubject: (accountId, subjectId) =>
      run(Effect.map(
        sql<EventRow>`SELECT * FROM sendline_events WHERE account_id = ${accountId} AND subject_id = ${subjectId}
          ORDER BY created_at, id`,
        (rows) => rows.map(eventFromRow)
      ))
  })

  // --- webhook subscriptions -----------------------------------------------------------------

  const subscriptions = SubscriptionStore.of({
    hasActive: (accountId) =>
      run(Effect.map(
        sql`SELECT 1 FROM sendline_webhook_subscriptions WHERE account_id = ${accountId} AND status = 'active' LIMIT 1`,
        (rows) => rows.length > 0
      ))
  })

  // --- idempotency keys ----------------------------------------------------------------------

  /** Some(row) when `record` reserved nothing: the holder's row, or none when that row vanished. */
  const reserveOnce = (record: IdempotencyRecord, expiredBefore: number): Effect.Effect<
    Option.Option<Option.Option<IdempotencyRecord>>,
    SqlError
  > =>
    Effect.flatMap(
      // One upsert claims the key, or takes over a stale row; RETURNING yields a row only when this
      // call wrote it. The primary key makes a concurrent insert of the same key wait for the first
      // and then take the conflict branch, which locks the holder's row even when its WHERE is
      // false: the read-back in the same transaction finds it, and no one can release it meanwhile.
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
          ? Effect.succeed(Option.some(Option.none()))
          : Effect.map(
            sql<IdempotencyRow>`SELECT * FROM sendline_idempotency_keys
              WHERE account_id = ${record.accountId} AND key = ${record.key}`,
            (rows) => rows.length === 0 ? Option.none() : Option.some(Option.some(idempotencyFromRow(rows[0]!)))
          )
    )

  // An empty read-back would mean the holder vanished between the two statements, which the row
  // lock rules out; it is still never reported as a reservation (that would run the request
  // twice): the reserve is tried again, a few times at most.
  const reserve = (
    record: IdempotencyRecord,
    expiredBefore: number,
    attempts = 3
  ): Effect.Effect<Option.Option<IdempotencyRecord>, StoreUnavailable> =>
    Effect.flatMap(
      transaction(reserveOnce(record, expiredBefore)),
      Option.match({
        onSome: Effect.succeed,
        onNone: () =>
          attempts > 1
            ? reserve(record, expiredBefore, attempts - 1)
            : Effect.fail(new StoreUnavailable({ message: "The idempotency key could not be reserved" }))
      })
    )

  const idempotency = IdempotencyStore.of({
    reserve: (record, expiredBefore) => reserve(record, expiredBefore),
    complete: (accountId, key, response) =>
      run(Effect.asVoid(
        sql`UPDATE sendline_idempotency_keys SET response_status = ${response.status}, response_body = ${response.body}
          WHERE account_id = ${accountId} AND key = ${key}`
      )),
    release: (accountId, key) =>
      run(Effect.asVoid(sql`DELETE FROM sendline_idempotency_keys WHERE account_id = ${accountId} AND key = ${key}`))
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
    SqlError: (cause) => Effect.fail(new StoreUnavailable({ message: "The PostgreSQL store could not start", cause })),
    MigrationError: (cause) =>
      Effect.fail(new StoreUnavailable({ message: "The PostgreSQL store could not migrate", cause }))
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

/** @since 0.1.0 @category models */
export interface PgOptions {
  /** `postgres://user[:password]@host[:port]/database[?options=-c%20search_path%3Dschema]` */
  readonly url: Redacted.Redacted<string>
  /** The pool size (node-postgres' default is 10). */
  readonly maxConnections?: number | undefined
}

/**
 * All six storage ports on a PostgreSQL database of their own: a `PgClient` pool on `url`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPg = (options: PgOptions): Layer.Layer<
  AccountStore | SenderIdStore | MessageStore | EventStore | SubscriptionStore | IdempotencyStore,
  StoreUnavailable
> =>
  Layer.provide(
    layer,
    PgClient.layer({
      url: options.url,
      maxConnections: options.maxConnections,
      applicationName: "sendline"
    }).pipe(
      Layer.catchAll((cause) =>
        Layer.fail(new StoreUnavailable({ message: "The PostgreSQL store could not connect", cause }))
      )
    )
  )

/**
 * `layerPg` with its settings read from configuration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options: Config.Config.Wrap<PgOptions>): Layer.Layer<
  AccountStore | SenderIdStore | MessageStore | EventStore | SubscriptionStore | IdempotencyStore,
  StoreUnavailable | ConfigError.ConfigError
> => Layer.unwrapEffect(Effect.map(Config.unwrap(options), layerPg))
