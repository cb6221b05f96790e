/**
 * The migrations of the Sendline stores: one set of tables, columns and indexes, written once, with
 * the few words of DDL where SQLite and PostgreSQL differ passed in by each store (`Ddl`).
 *
 * The ids (`0001_initial`, `0002_claims`, `0003_message_idempotency_keys`, `0004_sender_id_holders`,
 * `0005_message_idempotency_keys_unique`, `0006_idempotency_recompute`, `0007_owned_identifiers`,
 * `0008_mails`, `0009_brands`, `0010_brand_idempotency_keys`, `0011_sender_id_holds`,
 * `0012_sender_id_registrations`, `0013_registration_text_statistics`, `0014_webhook_subscriptions`,
 * `0015_webhook_deliveries`, `0016_carrier_message_ids`, `0017_webhook_limits`,
 * `0018_sender_id_identities`, `0019_message_carriers`, `0020_opt_outs`, `0021_spending`,
 * `0022_batches`)
 * and the statements are those every existing database was migrated with: change neither, add a migration (and list its tables in `tables`). `ids` and `tables` are what both
 * stores' tests expect of a migrated database.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { SenderId } from "@sendline/core"
import { Clock, Effect } from "effect"

/**
 * The words of DDL that differ between the databases.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ddl {
  /** The type of an epoch-millisecond timestamp column. */
  readonly int8: string
  /** The type and constraint of a text primary key column. */
  readonly textKey: string
  /** What follows the closing parenthesis of a table with a text primary key column. */
  readonly tableOptions: string
  /** What follows the closing parenthesis of a table keyed by several columns. */
  readonly keyedTableOptions: string
  /** The columns of the message list index after `account_id`, with their directions. */
  readonly listIndex: string
  /**
   * Creates what lets the database find the rows of `index.table` whose `index.columns` contain a
   * text of three characters or more, in any case, without reading every row (see `TextIndex`).
   */
  readonly textIndex: (index: TextIndex) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  /**
   * Makes the planner's statistics of the `index.columns` of `index.table` fine enough to tell a
   * text few rows hold from a common one, where the planner weighs the text index by them (see
   * `0013_registration_text_statistics`); nothing where the store chooses by itself.
   */
  readonly textStatistics: (index: TextIndex) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
}

/**
 * A text index: what finds the rows of `table` whose `columns` contain a given text, in any case,
 * by the trigrams (three-character runs) of their values. Each store builds it its own way
 * (`Ddl.textIndex`) under the name `name`, and its `Dialect` reads it.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextIndex {
  readonly name: string
  readonly table: string
  /** The table's text primary key, by which an indexed row is found again. */
  readonly key: string
  readonly columns: ReadonlyArray<string>
}

/** The table in which the Migrator records what has run. @since 0.1.0 @category constants */
export const table = "sendline_migrations"

/**
 * A unique index, as a store's dialect recognises a write that violates it.
 *
 * @since 0.1.0
 * @category models
 */
export interface UniqueIndex {
  readonly name: string
  readonly table: string
  readonly columns: ReadonlyArray<string>
}

/**
 * One idempotency key per account among its messages (created by `0005`: never change it, add a
 * migration).
 *
 * @since 0.1.0
 * @category constants
 */
export const messageIdempotencyKeys: UniqueIndex = {
  name: "sendline_messages_idempotency_key_unique",
  table: "sendline_messages",
  columns: ["account_id", "idempotency_key"]
}

/**
 * One idempotency key per account among its batches (created by `0022`: never change it, add a
 * migration).
 *
 * @since 0.3.0
 * @category constants
 */
export const batchIdempotencyKeys: UniqueIndex = {
  name: "sendline_batches_idempotency_key_unique",
  table: "sendline_batches",
  columns: ["account_id", "idempotency_key"]
}

/**
 * One owner per legal identifier: the primary key of `sendline_owned_identifiers` (created by
 * `0007`: never change it, add a migration).
 *
 * @since 0.1.0
 * @category constants
 */
export const ownedIdentifiers: UniqueIndex = {
  name: "sendline_owned_identifiers_key",
  table: "sendline_owned_identifiers",
  columns: ["identifier_type", "identifier_value"]
}

/**
 * One idempotency key per provider among its brand relationships, where a relationship has one
 * (created by `0010`: never change it, add a migration).
 *
 * @since 0.1.0
 * @category constants
 */
export const brandIdempotencyKeys: UniqueIndex = {
  name: "sendline_brand_relationships_idempotency_key_unique",
  table: "sendline_brand_relationships",
  columns: ["provider_account_id", "idempotency_key"]
}

/**
 * One legal entity per Sender ID string and its look-alikes in a market (CONTRACT §6): the primary
 * key of `sendline_sender_id_holds`, its `sender_id_key` a `SenderId.skeleton` and its holder
 * `identifier_type` and `identifier_value` since `0018` (created by `0011`: never change it, add a
 * migration).
 *
 * @since 0.1.0
 * @category constants
 */
export const senderIdHolds: UniqueIndex = {
  name: "sendline_sender_id_holds_key",
  table: "sendline_sender_id_holds",
  columns: ["market", "sender_id_key"]
}

/**
 * The text index of the operator registrations, by Sender ID and by brand name (created by
 * `0012`: never change it, add a migration).
 *
 * @since 0.1.0
 * @category constants
 */
export const registrationSearch: TextIndex = {
  name: "sendline_operator_registrations_search",
  table: "sendline_operator_registrations",
  key: "id",
  columns: ["sender_id", "brand_name"]
}

/**
 * How long before a registered Sender ID's `expires_at` `0012` set its `watch_at`: 30 days, core's
 * `SenderId.warningMillis` when it was written (never change it: a later rule is a new migration).
 */
const warningMillisOf0012 = 2_592_000_000

/** The tables the migrations create, and the Migrator's own, by name. @since 0.1.0 @category constants */
export const tables: ReadonlyArray<string> = [
  "sendline_accounts",
  "sendline_api_keys",
  "sendline_batches",
  "sendline_brand_relationships",
  "sendline_brands",
  "sendline_events",
  "sendline_idempotency_keys",
  "sendline_mails",
  "sendline_messages",
  table,
  "sendline_operator_registrations",
  "sendline_opt_outs",
  "sendline_owned_identifiers",
  "sendline_redelivery_requests",
  "sendline_sender_id_holds",
  "sendline_sender_ids",
  "sendline_spend",
  "sendline_spending_limits",
  "sendline_webhook_deliveries",
  "sendline_webhook_subscriptions"
]

const statements = (...ddl: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(ddl, (text) => sql.unsafe(text), { discard: true }))

/** The migrations by id, each in a dialect's DDL. */
const migrations: Record<string, (d: Ddl) => Effect.Effect<void, SqlError, SqlClient.SqlClient>> = {
  "0001_initial": (d) =>
    statements(
      `CREATE TABLE sendline_accounts (
      id ${d.textKey},
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      admin_email TEXT NOT NULL,
      network TEXT,
      markets TEXT NOT NULL,
      identifiers TEXT NOT NULL,
      created_at ${d.int8} NOT NULL
    )${d.tableOptions}`,
      `CREATE TABLE sendline_api_keys (
      id ${d.textKey},
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      digest TEXT NOT NULL UNIQUE,
      permissions TEXT NOT NULL,
      expires_at ${d.int8},
      revoked_at ${d.int8},
      created_at ${d.int8} NOT NULL
    )${d.tableOptions}`,
      `CREATE INDEX sendline_api_keys_account ON sendline_api_keys (account_id)`,
      `CREATE TABLE sendline_sender_ids (
      id ${d.textKey},
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      sender_id TEXT NOT NULL,
      market TEXT NOT NULL,
      brand_name TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at ${d.int8} NOT NULL,
      registered_at ${d.int8},
      expires_at ${d.int8}
    )${d.tableOptions}`,
      `CREATE INDEX sendline_sender_ids_lookup ON sendline_sender_ids (account_id, sender_id, market, status)`,
      `CREATE TABLE sendline_messages (
      id ${d.textKey},
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
      created_at ${d.int8} NOT NULL,
      scheduled_at ${d.int8},
      sent_at ${d.int8},
      delivered_at ${d.int8}
    )${d.tableOptions}`,
      // Keyset pagination, newest first: every filter of the list has an index ending in
      // (created_at, id), so a page is an index range, never a sort.
      `CREATE INDEX sendline_messages_list ON sendline_messages (account_id, ${d.listIndex})`,
      `CREATE INDEX sendline_messages_status ON sendline_messages (account_id, status, created_at, id)`,
      `CREATE INDEX sendline_messages_market ON sendline_messages (account_id, market, created_at, id)`,
      `CREATE INDEX sendline_messages_sender_id ON sendline_messages (account_id, sender_id, created_at, id)`,
      `CREATE INDEX sendline_messages_reference ON sendline_messages (account_id, reference, created_at, id)`,
      `CREATE TABLE sendline_events (
      id ${d.textKey},
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at ${d.int8} NOT NULL
    )${d.tableOptions}`,
      `CREATE INDEX sendline_events_subject ON sendline_events (account_id, subject_id, created_at)`,
      `CREATE TABLE sendline_webhook_subscriptions (
      id ${d.textKey},
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      secret TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at ${d.int8} NOT NULL
    )${d.tableOptions}`,
      `CREATE INDEX sendline_webhook_subscriptions_account
      ON sendline_webhook_subscriptions (account_id, status, created_at)`,
      `CREATE TABLE sendline_idempotency_keys (
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      created_at ${d.int8} NOT NULL,
      response_status INTEGER,
      response_body TEXT,
      PRIMARY KEY (account_id, key)
    )${d.keyedTableOptions}`,
      `CREATE INDEX sendline_idempotency_keys_created ON sendline_idempotency_keys (created_at)`
    ),
  // Work claiming: a message is held by a worker until `claimed_until`; the partial indexes hold
  // only the rows that can be due, in the order they are claimed.
  "0002_claims": (d) =>
    statements(
      `ALTER TABLE sendline_messages ADD COLUMN claimed_until ${d.int8}`,
      `CREATE INDEX sendline_messages_dispatch ON sendline_messages (created_at, id) WHERE status = 'queued'`,
      `CREATE INDEX sendline_messages_schedule ON sendline_messages (scheduled_at, id) WHERE status = 'scheduled'`
    ),
  // The idempotency key a message was sent with: a retry whose first answer was lost in a crash
  // finds the message instead of sending it again. Not unique: a key may be used again after its
  // 24 hours (the reservation in sendline_idempotency_keys is what admits one request at a time).
  // 0005 replaces this index with a unique one.
  "0003_message_idempotency_keys": () =>
    statements(
      `ALTER TABLE sendline_messages ADD COLUMN idempotency_key TEXT`,
      `CREATE INDEX sendline_messages_idempotency_key ON sendline_messages (account_id, idempotency_key, created_at)
        WHERE idempotency_key IS NOT NULL`
    ),
  // Who holds a Sender ID string in a market, whatever the account (one brand per market, CONTRACT §6).
  "0004_sender_id_holders": () =>
    statements(
      `CREATE INDEX sendline_sender_ids_holders ON sendline_sender_ids (sender_id, market)`
    ),
  // A message's idempotency key unique per account, so that two processes sending with one key
  // at once create one message (0003's index was not unique). An old database may hold a key
  // sent again after its 24 hours: all but the account's newest message with it give it up first.
  "0005_message_idempotency_keys_unique": () =>
    statements(
      `UPDATE sendline_messages SET idempotency_key = NULL
      WHERE idempotency_key IS NOT NULL AND EXISTS (
        SELECT 1 FROM sendline_messages newer
        WHERE newer.account_id = sendline_messages.account_id
          AND newer.idempotency_key = sendline_messages.idempotency_key
          AND (newer.created_at, newer.id) > (sendline_messages.created_at, sendline_messages.id)
      )`,
      `DROP INDEX sendline_messages_idempotency_key`,
      `CREATE UNIQUE INDEX ${messageIdempotencyKeys.name}
        ON ${messageIdempotencyKeys.table} (${messageIdempotencyKeys.columns.join(", ")})
        WHERE idempotency_key IS NOT NULL`
    ),
  // A response too large to keep (over Idempotency.maxKeptBytes) is kept as what recomputes it:
  // its request id, time and digest, as JSON, with no body.
  "0006_idempotency_recompute": () =>
    statements(
      `ALTER TABLE sendline_idempotency_keys ADD COLUMN response_recompute TEXT`
    ),
  // Who owns a legal identifier (CONTRACT §2): one brand account per (type, value), a key of the
  // database so that two accounts created at once cannot both own one. Filled from the brand
  // accounts' own lists, oldest account first, each value normalised as `Identifier.normalise`
  // did when this was written (whitespace removed, upper case); an identifier an older account
  // already owns is taken off the newer account's list, with a warning naming both.
  "0007_owned_identifiers": (d) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`CREATE TABLE ${ownedIdentifiers.table} (
      identifier_type TEXT NOT NULL,
      identifier_value TEXT NOT NULL,
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      CONSTRAINT ${ownedIdentifiers.name} PRIMARY KEY (${ownedIdentifiers.columns.join(", ")})
    )${d.keyedTableOptions}`)
      const brands = yield* sql<{ readonly id: string; readonly identifiers: string }>`SELECT id, identifiers
          FROM sendline_accounts WHERE type = 'brand' ORDER BY created_at, id`
      const owners = new Map<string, string>()
      for (const brand of brands) {
        const listed: ReadonlyArray<{ readonly identifierType: string; readonly identifierValue: string }> = JSON.parse(
          brand.identifiers
        )
        const kept: Array<{ readonly identifierType: string; readonly identifierValue: string }> = []
        for (const { identifierType, identifierValue } of listed) {
          const value = identifierValue.replace(/\s+/g, "").toUpperCase()
          const key = JSON.stringify([identifierType, value])
          const owner = owners.get(key)
          if (owner !== undefined) {
            if (owner !== brand.id) {
              yield* Effect.logWarning(
                `Migration 0007: ${identifierType} ${value} is owned by account ${owner}, so taken off the identifiers of account ${brand.id}`
              )
            }
            continue
          }
          owners.set(key, brand.id)
          kept.push({ identifierType, identifierValue: value })
          yield* sql`INSERT INTO sendline_owned_identifiers ${
            sql.insert({ identifier_type: identifierType, identifier_value: value, account_id: brand.id })
          }`
        }
        const identifiers = JSON.stringify(kept)
        if (
          identifiers !== brand.identifiers
        ) yield* sql`UPDATE sendline_accounts SET identifiers = ${identifiers} WHERE id = ${brand.id}`
      }
    }),
  // The mail outbox: each mail written with the change that causes it, sent by the MailSender,
  // which claims it (`claimed_until`) and records each attempt. The partial index holds only the
  // pending mails, in the order they are due.
  "0008_mails": (d) =>
    statements(
      `CREATE TABLE sendline_mails (
      id ${d.textKey},
      recipient TEXT NOT NULL,
      subject TEXT NOT NULL,
      body TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      next_attempt_at ${d.int8} NOT NULL,
      sent_at ${d.int8},
      last_error TEXT,
      created_at ${d.int8} NOT NULL,
      claimed_until ${d.int8}
    )${d.tableOptions}`,
      `CREATE INDEX sendline_mails_due ON sendline_mails (next_attempt_at, id) WHERE status = 'pending'`
    ),
  // Brands and their relationships (CONTRACT §5): a brand is found by its identifier (its Brand
  // Owner's brands), a relationship by its brand (one each) and by its provider, newest first;
  // a Brand Owner's identifiers by its account.
  "0009_brands": (d) =>
    statements(
      `CREATE TABLE sendline_brands (
      id ${d.textKey},
      name TEXT NOT NULL,
      identifier_type TEXT NOT NULL,
      identifier_value TEXT NOT NULL,
      market TEXT NOT NULL,
      status TEXT NOT NULL,
      contact TEXT NOT NULL,
      website TEXT,
      created_at ${d.int8} NOT NULL
    )${d.tableOptions}`,
      `CREATE INDEX sendline_brands_identifier ON sendline_brands (identifier_type, identifier_value)`,
      `CREATE TABLE sendline_brand_relationships (
      id ${d.textKey},
      brand_id TEXT NOT NULL UNIQUE REFERENCES sendline_brands (id),
      provider_account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      provider_name TEXT NOT NULL,
      provider_type TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at ${d.int8} NOT NULL,
      decided_at ${d.int8}
    )${d.tableOptions}`,
      `CREATE INDEX sendline_brand_relationships_provider
      ON sendline_brand_relationships (provider_account_id, status, created_at, id)`,
      `CREATE INDEX sendline_owned_identifiers_account ON sendline_owned_identifiers (account_id)`
    ),
  // The idempotency key a brand was created under, kept on its relationship (the provider's
  // key): a retry whose first answer was lost in a crash finds the brand instead of creating
  // another. Unique per provider, so that two processes creating under one key create one brand.
  "0010_brand_idempotency_keys": () =>
    statements(
      `ALTER TABLE sendline_brand_relationships ADD COLUMN idempotency_key TEXT`,
      `CREATE UNIQUE INDEX ${brandIdempotencyKeys.name}
        ON ${brandIdempotencyKeys.table} (${brandIdempotencyKeys.columns.join(", ")})
        WHERE idempotency_key IS NOT NULL`
    ),
  // Who holds a Sender ID string in a market (CONTRACT §6: one brand while not rejected or
  // expired), a key of the database so that two brands registering or importing one string at
  // once cannot both hold it; in lower case, as regulators compare Sender IDs. A record inserts
  // or takes over the hold in the transaction that writes it (`SenderIds`); the records of a
  // string are found by the same lower case. Filled from the records that hold now, oldest first:
  // a string live under several brands is held by the oldest one's, with a warning naming both.
  "0011_sender_id_holds": (d) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* statements(
        `CREATE TABLE ${senderIdHolds.table} (
      market TEXT NOT NULL,
      sender_id_key TEXT NOT NULL,
      brand_name TEXT NOT NULL,
      CONSTRAINT ${senderIdHolds.name} PRIMARY KEY (${senderIdHolds.columns.join(", ")})
    )${d.keyedTableOptions}`,
        `CREATE INDEX sendline_sender_ids_held ON sendline_sender_ids (market, lower(sender_id))`
      )
      const now = yield* Clock.currentTimeMillis
      const live = yield* sql<
        { readonly id: string; readonly sender_id: string; readonly market: string; readonly brand_name: string }
      >`
          SELECT id, sender_id, market, brand_name FROM sendline_sender_ids
          WHERE status NOT IN ('rejected', 'expired') AND (expires_at IS NULL OR expires_at > ${now})
          ORDER BY created_at, id`
      const holders = new Map<string, string>()
      for (const record of live) {
        const senderIdKey = record.sender_id.toLowerCase()
        const key = JSON.stringify([record.market, senderIdKey])
        const holder = holders.get(key)
        if (holder === undefined) {
          holders.set(key, record.brand_name)
          yield* sql`INSERT INTO sendline_sender_id_holds ${
            sql.insert({ market: record.market, sender_id_key: senderIdKey, brand_name: record.brand_name })
          }`
        } else if (holder !== record.brand_name) {
          yield* Effect.logWarning(
            `Migration 0011: Sender ID ${record.sender_id} in ${record.market} is held by brand ${holder}, not by ${record.brand_name} of record ${record.id}`
          )
        }
      }
    }),
  // Sender ID registration (CONTRACT §6): a record's brand, use and match, the term whose
  // expiry warning went out (`warned_expires_at`), its `version` (a change is written only over
  // the version it was made from; older rows are version 0), and the expiry watcher's work:
  // `watch_at`, when it must look at the record next (the store's own, computed from the record
  // by `SenderId.watchAt`; filled here for the registered records, none of which was warned), and
  // `claimed_until`, its claim's lease. One operator registration per network, as submitted to
  // it; the operators' list reads it by network and market, newest first, by every filter (an
  // index ending in (submitted_at, id) each: a page is an index range, never a sort), and by the
  // text of its Sender ID and brand name (`registrationSearch`). An account's records are listed
  // newest first.
  "0012_sender_id_registrations": (d) =>
    Effect.zipRight(
      statements(
        `ALTER TABLE sendline_sender_ids ADD COLUMN brand_id TEXT`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN use_case TEXT`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN match_type TEXT`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN match_value TEXT`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN warned_expires_at ${d.int8}`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN version ${d.int8} NOT NULL DEFAULT 0`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN watch_at ${d.int8}`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN claimed_until ${d.int8} NOT NULL DEFAULT 0`,
        `UPDATE sendline_sender_ids SET watch_at = expires_at - ${warningMillisOf0012}
        WHERE status = 'registered' AND expires_at IS NOT NULL`,
        `CREATE INDEX sendline_sender_ids_watch ON sendline_sender_ids (watch_at, id) WHERE watch_at IS NOT NULL`,
        `CREATE INDEX sendline_sender_ids_list ON sendline_sender_ids (account_id, ${d.listIndex})`,
        `CREATE TABLE ${registrationSearch.table} (
      id ${d.textKey},
      sid_id TEXT NOT NULL REFERENCES sendline_sender_ids (id),
      network TEXT NOT NULL,
      market TEXT NOT NULL,
      sender_id TEXT NOT NULL,
      brand_id TEXT NOT NULL,
      brand_name TEXT NOT NULL,
      identifier_type TEXT NOT NULL,
      identifier_value TEXT NOT NULL,
      status TEXT NOT NULL,
      use_case TEXT NOT NULL,
      match_type TEXT NOT NULL,
      match_value TEXT NOT NULL,
      submitter_account_id TEXT NOT NULL,
      submitter_type TEXT NOT NULL,
      submitter_name TEXT NOT NULL,
      submitted_at ${d.int8} NOT NULL,
      decided_at ${d.int8},
      reason TEXT,
      message TEXT
    )${d.tableOptions}`,
        `CREATE INDEX sendline_operator_registrations_sid ON sendline_operator_registrations (sid_id)`,
        // The texts last, so that a walk of the list by a text filter tests each row in the index,
        // reading only the rows that match (SQLite; PostgreSQL reads each row, and weighs the
        // text index against it).
        `CREATE INDEX sendline_operator_registrations_list
        ON sendline_operator_registrations (network, market, submitted_at, id, sender_id, brand_name)`,
        `CREATE INDEX sendline_operator_registrations_status
        ON sendline_operator_registrations (network, market, status, submitted_at, id)`,
        `CREATE INDEX sendline_operator_registrations_submitter
        ON sendline_operator_registrations (network, market, submitter_type, submitted_at, id)`
      ),
      d.textIndex(registrationSearch)
    ),
  // The statistics by which a planner weighs the text index of the operators' list against a walk
  // of its ordered index (`Ddl.textStatistics`): with a sample too small, the planner may take a
  // text 3 % of the rows hold for one a hundred rows hold, and read them all through the text
  // index (at 3M rows 684 ms, against 1.6 for the walk: `docs/performance.md`).
  "0013_registration_text_statistics": (d) => d.textStatistics(registrationSearch),
  // Webhook subscriptions (CONTRACT §7): the secret a change replaced and when, which signs
  // beside the new one for 24 hours (core's `Signature`); `deleted_at`, a deletion kept without
  // its secrets, so that the delivery log still names the subscription; an account's live
  // subscriptions listed newest first, the deleted left out of the index.
  "0014_webhook_subscriptions": (d) =>
    statements(
      `ALTER TABLE sendline_webhook_subscriptions ADD COLUMN previous_secret TEXT`,
      `ALTER TABLE sendline_webhook_subscriptions ADD COLUMN secret_replaced_at ${d.int8}`,
      `ALTER TABLE sendline_webhook_subscriptions ADD COLUMN deleted_at ${d.int8}`,
      `CREATE INDEX sendline_webhook_subscriptions_list
        ON sendline_webhook_subscriptions (account_id, ${d.listIndex}) WHERE deleted_at IS NULL`
    ),
  // Webhook deliveries (CONTRACT §7). The event log is the outbox of the deliveries: an event not
  // yet fanned out has no `fanned_out_at`. The events written before this migration are marked
  // fanned out at their own time: they occurred before there was a delivery engine, and sending
  // them now, perhaps months late, would surprise their receivers more than it would help.
  // A delivery row is one attempt (CONTRACT §7's delivery log); `destination`, the store's own,
  // is its subscription's id or else its callback URL, the key of the cap of attempts in flight
  // to one receiver; `claimed_until`, the store's own, its claim's lease (0: none).
  // - sendline_events_pending: the events not fanned out yet, oldest first (the outbox).
  // - sendline_events_list, _type: an account's event log, newest first, whole or by type.
  // - sendline_webhook_deliveries_due: the pending deliveries in the order they are claimed.
  // - sendline_webhook_deliveries_in_flight: the pending deliveries under a live claim, by
  //   destination: what a claim counts against each destination's cap.
  // - sendline_webhook_deliveries_list, _state, _event_type: a subscription's delivery log, newest
  //   first, whole, by state (also its pending deliveries, skipped when it ends) or by event type.
  // - sendline_webhook_deliveries_event: a subscription's deliveries of one event (redelivery).
  // The last four leave out the callbacks' deliveries (no subscription), which no log lists.
  "0015_webhook_deliveries": (d) =>
    statements(
      `ALTER TABLE sendline_events ADD COLUMN fanned_out_at ${d.int8}`,
      `UPDATE sendline_events SET fanned_out_at = created_at`,
      `CREATE INDEX sendline_events_pending ON sendline_events (created_at, id) WHERE fanned_out_at IS NULL`,
      `CREATE INDEX sendline_events_list ON sendline_events (account_id, ${d.listIndex})`,
      `CREATE INDEX sendline_events_type ON sendline_events (account_id, type, ${d.listIndex})`,
      `CREATE TABLE sendline_webhook_deliveries (
      id ${d.textKey},
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      event_id TEXT NOT NULL REFERENCES sendline_events (id),
      event_type TEXT NOT NULL,
      subscription_id TEXT REFERENCES sendline_webhook_subscriptions (id),
      callback_url TEXT,
      destination TEXT NOT NULL,
      attempt INTEGER NOT NULL,
      state TEXT NOT NULL,
      due_at ${d.int8} NOT NULL,
      created_at ${d.int8} NOT NULL,
      failing_since ${d.int8},
      attempted_at ${d.int8},
      url TEXT,
      status_code INTEGER,
      error TEXT,
      duration_ms ${d.int8},
      response_body TEXT,
      next_attempt_at ${d.int8},
      claimed_until ${d.int8} NOT NULL DEFAULT 0
    )${d.tableOptions}`,
      `CREATE INDEX sendline_webhook_deliveries_due ON sendline_webhook_deliveries (due_at, id) WHERE state = 'pending'`,
      `CREATE INDEX sendline_webhook_deliveries_in_flight
        ON sendline_webhook_deliveries (claimed_until, destination) WHERE state = 'pending'`,
      `CREATE INDEX sendline_webhook_deliveries_list
        ON sendline_webhook_deliveries (subscription_id, ${d.listIndex}) WHERE subscription_id IS NOT NULL`,
      `CREATE INDEX sendline_webhook_deliveries_state
        ON sendline_webhook_deliveries (subscription_id, state, ${d.listIndex}) WHERE subscription_id IS NOT NULL`,
      `CREATE INDEX sendline_webhook_deliveries_event_type
        ON sendline_webhook_deliveries (subscription_id, event_type, ${d.listIndex}) WHERE subscription_id IS NOT NULL`,
      `CREATE INDEX sendline_webhook_deliveries_event
        ON sendline_webhook_deliveries (subscription_id, event_id) WHERE subscription_id IS NOT NULL`
    ),
  // The carrier's id for each accepted message, stored by the Dispatcher's `sent` move: a
  // delivery report that names only that id (an SMPP receipt, after a restart) finds the message.
  "0016_carrier_message_ids": () =>
    statements(
      `ALTER TABLE sendline_messages ADD COLUMN carrier_message_id TEXT`,
      `CREATE INDEX sendline_messages_carrier_message_id ON sendline_messages (carrier_message_id)
        WHERE carrier_message_id IS NOT NULL`
    ),
  // The webhooks' limits per account (CONTRACT §7, core's `Limits`): each redelivery request an
  // account made in the last minute, by its time (older ones are deleted as the next one comes);
  // an event's pending deliveries, whichever their destination (a callback's too), which a
  // redelivery reads so as to start no second chain of it to one destination.
  "0017_webhook_limits": (d) =>
    statements(
      `CREATE TABLE sendline_redelivery_requests (
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      requested_at ${d.int8} NOT NULL
    )`,
      `CREATE INDEX sendline_redelivery_requests_account ON sendline_redelivery_requests (account_id, requested_at)`,
      `CREATE INDEX sendline_webhook_deliveries_pending_event ON sendline_webhook_deliveries (event_id) WHERE state = 'pending'`
    ),
  // Sender IDs held by legal identity (CONTRACT §6, issue 29): a brand name can be changed by its
  // provider, so it held nothing. Each record names the legal entity it is held for: its brand's
  // identifier (from sendline_brands), or, for a record imported without one, the pseudo-type
  // `imported_brand_name` and its brand name (no brand has that type: only such an import shares
  // its hold). `skeleton`, the store's own, is `SenderId.skeleton` of its Sender ID (case folded,
  // spaces removed, confusables mapped; computed here by `replace`, the mappings being
  // independent), by which its look-alikes are found. The holds are taken again from the records
  // that hold now, oldest first, by skeleton: a skeleton live under several entities is held by
  // the oldest record's, with a warning naming the others. An account's pending records are
  // counted by their status (`Limits.pendingSenderIds`).
  "0018_sender_id_identities": () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const skeleton = Object.entries(SenderId.confusables).reduce(
        (expression, [from, to]) => `replace(${expression}, '${from}', '${to}')`,
        `replace(lower(sender_id), ' ', '')`
      )
      yield* statements(
        `ALTER TABLE sendline_sender_ids ADD COLUMN identifier_type TEXT`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN identifier_value TEXT`,
        `ALTER TABLE sendline_sender_ids ADD COLUMN skeleton TEXT`,
        `UPDATE sendline_sender_ids SET
            identifier_type = (SELECT b.identifier_type FROM sendline_brands b WHERE b.id = sendline_sender_ids.brand_id),
            identifier_value = (SELECT b.identifier_value FROM sendline_brands b WHERE b.id = sendline_sender_ids.brand_id)
          WHERE brand_id IS NOT NULL`,
        `UPDATE sendline_sender_ids SET identifier_type = '${SenderId.importedBrandName}', identifier_value = brand_name
          WHERE identifier_type IS NULL`,
        `UPDATE sendline_sender_ids SET skeleton = ${skeleton}`,
        `DROP INDEX sendline_sender_ids_held`,
        `CREATE INDEX sendline_sender_ids_skeleton ON sendline_sender_ids (market, skeleton)`,
        `CREATE INDEX sendline_sender_ids_status ON sendline_sender_ids (account_id, status)`,
        `DELETE FROM ${senderIdHolds.table}`,
        `ALTER TABLE ${senderIdHolds.table} ADD COLUMN identifier_type TEXT NOT NULL DEFAULT ''`,
        `ALTER TABLE ${senderIdHolds.table} ADD COLUMN identifier_value TEXT NOT NULL DEFAULT ''`
      )
      const now = yield* Clock.currentTimeMillis
      const live = yield* sql<{
        readonly id: string
        readonly market: string
        readonly skeleton: string
        readonly brand_name: string
        readonly identifier_type: string
        readonly identifier_value: string
      }>`SELECT id, market, skeleton, brand_name, identifier_type, identifier_value FROM sendline_sender_ids
          WHERE status NOT IN ('rejected', 'expired') AND (expires_at IS NULL OR expires_at > ${now})
          ORDER BY created_at, id`
      const holders = new Map<string, { readonly id: string; readonly holder: SenderId.Holder }>()
      for (const record of live) {
        const key = JSON.stringify([record.market, record.skeleton])
        const holder = { identifierType: record.identifier_type, identifierValue: record.identifier_value }
        const held = holders.get(key)
        if (held === undefined) {
          holders.set(key, { id: record.id, holder })
          yield* sql`INSERT INTO ${sql(senderIdHolds.table)} ${
            sql.insert({
              market: record.market,
              sender_id_key: record.skeleton,
              brand_name: record.brand_name,
              identifier_type: holder.identifierType,
              identifier_value: holder.identifierValue
            })
          }`
        } else if (!SenderId.sameHolder(held.holder, holder)) {
          yield* Effect.logWarning(
            `Migration 0018: Sender ID ${record.skeleton} in ${record.market} is held for ${held.holder.identifierType} ${held.holder.identifierValue} (record ${held.id}), not for ${holder.identifierType} ${holder.identifierValue} of record ${record.id}`
          )
        }
      }
    }),
  // The carrier that accepted each message (CONTRACT §11), stored by the Dispatcher's `sent` move:
  // a receipt that names only the carrier's id is matched by carrier and id (two carriers may give
  // one id). Messages sent before it have none and match on the id alone, as before.
  "0019_message_carriers": () => statements(`ALTER TABLE sendline_messages ADD COLUMN carrier TEXT`),
  // Opt-outs (CONTRACT §12): an account lists a number once, so the key is (account_id, phone),
  // and a send's check is one lookup of it; the list index reads an account's newest first (in
  // the direction of each store's list index, `Ddl.listIndex`, the phone breaking ties).
  "0020_opt_outs": (d) =>
    statements(
      `CREATE TABLE sendline_opt_outs (
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      phone TEXT NOT NULL,
      reason TEXT,
      source TEXT NOT NULL,
      created_at ${d.int8} NOT NULL,
      CONSTRAINT sendline_opt_outs_key PRIMARY KEY (account_id, phone)
    )${d.keyedTableOptions}`,
      `CREATE INDEX sendline_opt_outs_list ON sendline_opt_outs (account_id, ${
        d.listIndex.replace(/\bid\b/g, "phone")
      })`
    ),
  // Spending limits and the month's spend (CONTRACT §12), amounts in integer ten-thousandths.
  // A month's row is changed only by conditional updates in the transaction of the message that
  // causes them (see `Spending`); `warned_80` and `warned_100` record the threshold mails, so that
  // each is written once a month.
  "0021_spending": (d) =>
    statements(
      `CREATE TABLE sendline_spending_limits (
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      currency TEXT NOT NULL,
      monthly ${d.int8} NOT NULL,
      PRIMARY KEY (account_id, currency)
    )${d.keyedTableOptions}`,
      `CREATE TABLE sendline_spend (
      account_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      month TEXT NOT NULL,
      amount ${d.int8} NOT NULL,
      messages ${d.int8} NOT NULL,
      segments ${d.int8} NOT NULL,
      warned_80 INTEGER NOT NULL,
      warned_100 INTEGER NOT NULL,
      PRIMARY KEY (account_id, month, currency)
    )${d.keyedTableOptions}`
    ),
  // Batches (CONTRACT §13): a batch's record with what each of its messages came to (`results`,
  // JSON: the answer an idempotent retry is given again), its key unique per account as a
  // message's is. Each message keeps its batch: the list filter's index ends in (created_at, id) as
  // the other filters' do, and the batch's counts by status are read from an index of
  // (batch_id, status) alone. Both partial: the messages sent one by one are in neither.
  "0022_batches": (d) =>
    statements(
      `CREATE TABLE sendline_batches (
      id ${d.textKey},
      account_id TEXT NOT NULL REFERENCES sendline_accounts (id),
      accepted INTEGER NOT NULL,
      rejected INTEGER NOT NULL,
      results TEXT NOT NULL,
      idempotency_key TEXT,
      request_digest TEXT,
      created_at ${d.int8} NOT NULL
    )${d.tableOptions}`,
      `CREATE UNIQUE INDEX ${batchIdempotencyKeys.name}
        ON ${batchIdempotencyKeys.table} (${batchIdempotencyKeys.columns.join(", ")})
        WHERE idempotency_key IS NOT NULL`,
      `ALTER TABLE sendline_messages ADD COLUMN batch_id TEXT`,
      `CREATE INDEX sendline_messages_batch ON sendline_messages (account_id, batch_id, created_at, id)
        WHERE batch_id IS NOT NULL`,
      `CREATE INDEX sendline_messages_batch_status ON sendline_messages (batch_id, status)
        WHERE batch_id IS NOT NULL`
    )
}

/**
 * The ids of the migrations, in the order they run: what `table` records once they have, as
 * `recorded` reads it back.
 *
 * @since 0.1.0
 * @category constants
 */
export const ids: ReadonlyArray<string> = Object.keys(migrations).sort()

/**
 * The ids of the migrations recorded in `table` on the `SqlClient` of the context, in order.
 *
 * @since 0.1.0
 * @category queries
 */
export const recorded: Effect.Effect<ReadonlyArray<string>, SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.map(
      sql<{ readonly migration_id: number; readonly name: string }>`SELECT migration_id, name FROM ${sql(table)}
        ORDER BY migration_id`,
      (rows) => rows.map((row) => `${String(row.migration_id).padStart(4, "0")}_${row.name}`)
    )
)

/**
 * Runs the migrations not yet recorded in `table`, on the `SqlClient` of the context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const run = (d: Ddl) =>
  Migrator.make({})({
    loader: Migrator.fromRecord(
      Object.fromEntries(Object.entries(migrations).map(([id, migration]) => [id, migration(d)]))
    ),
    table
  })
