import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import type { Account, Message } from "@sendline/core"
import { AccountStore, Errors, MessageStore, Readiness, SenderId, SenderIdStore } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { SharedDatabaseSuite, StoreSuite } from "@sendline/core/testing/suites"
import { Accounts, Migrations, Rows, SenderIds } from "@sendline/store-sql"
import { SqliteStore } from "@sendline/store-sqlite"
import { Cause, Clock, Context, Effect, Exit, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as SqliteTableReader from "./SqliteTableReader.js"

const temporaryFiles: Array<string> = []
const temporaryDatabase = (label: string) => {
  const filename = join(tmpdir(), `sendline-${label}-${randomUUID()}.db`)
  temporaryFiles.push(filename)
  return filename
}
afterAll(() => {
  for (const file of temporaryFiles) {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(file + suffix, { force: true })
  }
})

/** Migration 0020's table: gone before any earlier one is taken back (either chain may take it). */
const undoOptOuts = `DROP TABLE IF EXISTS sendline_opt_outs`

/** Back to a database before migration 0022: no batches (its table, indexes and column, each if there). */
const undoBatches = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql.unsafe(`DROP TABLE IF EXISTS sendline_batches`)
    yield* sql.unsafe(`DROP INDEX IF EXISTS sendline_messages_batch`)
    yield* sql.unsafe(`DROP INDEX IF EXISTS sendline_messages_batch_status`)
    const [column] = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM pragma_table_info('sendline_messages')
      WHERE name = 'batch_id'`
    if (column !== undefined && column.n > 0) yield* sql.unsafe(`ALTER TABLE sendline_messages DROP COLUMN batch_id`)
  })

/**
 * Back to a database before migration 0016: no carrier message ids (nor 0019's carriers, 0020's
 * opt-outs or 0021's spending). Run just before migrating again, after the test has written its
 * old rows (the store writes the columns).
 */
const undoCarrierMessageIds = (sql: SqlClient.SqlClient) =>
  Effect.zipRight(
    undoBatches(sql),
    Effect.forEach(
      [
        `DROP TABLE sendline_spend`, // 0021_spending
        `DROP TABLE sendline_spending_limits`,
        undoOptOuts,
        `ALTER TABLE sendline_messages DROP COLUMN carrier`,
        `DROP INDEX sendline_messages_carrier_message_id`,
        `ALTER TABLE sendline_messages DROP COLUMN carrier_message_id`
      ],
      (statement) => sql.unsafe(statement),
      { discard: true }
    )
  )

/** Migrates again what a test took back, from before 0016 at least. */
const migrateAgain = (sql: SqlClient.SqlClient) => Effect.zipRight(undoCarrierMessageIds(sql), SqliteStore.make)

/**
 * Back to a database before migration 0018: Sender ID records without their legal entity and
 * skeleton, the holds without their entity, and 0011's index of the records by lower case (the
 * holds' keys stay skeletons: 0018 takes them all again).
 */
const undoSenderIdIdentities = (sql: SqlClient.SqlClient) =>
  Effect.forEach([
    undoOptOuts,
    `DROP INDEX sendline_sender_ids_skeleton`,
    `DROP INDEX sendline_sender_ids_status`,
    `CREATE INDEX sendline_sender_ids_held ON sendline_sender_ids (market, lower(sender_id))`,
    ...["identifier_type", "identifier_value", "skeleton"].map((column) =>
      `ALTER TABLE sendline_sender_ids DROP COLUMN ${column}`
    ),
    ...["identifier_type", "identifier_value"].map((column) =>
      `ALTER TABLE sendline_sender_id_holds DROP COLUMN ${column}`
    )
  ], (statement) =>
    sql.unsafe(statement), { discard: true })

/** Back to a database before migration 0017: no redelivery requests, nor the index of an event's pending deliveries (nor anything later). */
const undoWebhookLimits = (sql: SqlClient.SqlClient) =>
  Effect.zipRight(
    undoSenderIdIdentities(sql),
    Effect.forEach(
      [
        `DROP TABLE sendline_redelivery_requests`,
        `DROP INDEX sendline_webhook_deliveries_pending_event`
      ],
      (statement) => sql.unsafe(statement),
      { discard: true }
    )
  )

/** Back to a database before migration 0015: no webhook deliveries, nor the events' mark of their fan-out (nor anything later). */
const undoWebhookDeliveries = (sql: SqlClient.SqlClient) =>
  Effect.zipRight(
    undoWebhookLimits(sql),
    Effect.forEach(
      [
        `DROP TABLE sendline_webhook_deliveries`, // its indexes with the table
        `DROP INDEX sendline_events_pending`,
        `DROP INDEX sendline_events_list`,
        `DROP INDEX sendline_events_type`,
        `ALTER TABLE sendline_events DROP COLUMN fanned_out_at`
      ],
      (statement) => sql.unsafe(statement),
      { discard: true }
    )
  )

/** Back to a database before migration 0014: the webhook subscriptions without the columns it adds (nor anything later). */
const undoWebhookSubscriptions = (sql: SqlClient.SqlClient) =>
  Effect.forEach([
    `DROP INDEX sendline_webhook_subscriptions_list`,
    ...["previous_secret", "secret_replaced_at", "deleted_at"].map(
      (column) => `ALTER TABLE sendline_webhook_subscriptions DROP COLUMN ${column}`
    )
  ], (statement) =>
    sql.unsafe(statement), { discard: true }).pipe(Effect.zipRight(undoWebhookDeliveries(sql)))

/** Back to a database before migration 0012: no registrations, nor the columns of the records' own (nor anything later). */
const undoSenderIdRegistrations = (sql: SqlClient.SqlClient) =>
  Effect.forEach([
    `DROP TABLE ${Migrations.registrationSearch.name}`, // its triggers with the table
    `DROP TABLE sendline_operator_registrations`,
    `DROP INDEX sendline_sender_ids_watch`,
    `DROP INDEX sendline_sender_ids_list`,
    ...[
      "brand_id",
      "use_case",
      "match_type",
      "match_value",
      "warned_expires_at",
      "version",
      "watch_at",
      "claimed_until"
    ].map(
      (column) => `ALTER TABLE sendline_sender_ids DROP COLUMN ${column}`
    )
  ], (statement) =>
    sql.unsafe(statement), { discard: true }).pipe(Effect.zipRight(undoWebhookSubscriptions(sql)))

/** Back to a database before migration 0011: no Sender ID holds (nor anything later). */
const undoSenderIdHolds = (sql: SqlClient.SqlClient) =>
  Effect.zipRight(
    undoSenderIdRegistrations(sql),
    Effect.zipRight(sql`DROP TABLE sendline_sender_id_holds`, sql`DROP INDEX sendline_sender_ids_held`)
  )

/**
 * A database migrated, then taken back to before migration `id` by `undo` (its and every later
 * migration's changes), with a CPaaS account `acct_a`: the stores of its last migration, and its client.
 */
const migratedBefore = (id: number, undo: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const stores = yield* SqliteStore.make
    yield* undo(sql)
    yield* sql`DELETE FROM sendline_migrations WHERE migration_id >= ${id}`
    yield* Context.get(stores, AccountStore.AccountStore).insertAccount(cpaasAccount("acct_a", "A", []))
    return { sql, stores }
  })

/** The row of `record` as a database before migration 0012 held it: the columns of 0001. */
const rowBefore0012 = (record: SenderId.SenderIdRecord) => {
  const { account_id, brand_name, created_at, expires_at, id, market, registered_at, sender_id, status } = SenderIds
    .senderIds
    .encode(record)
  return { id, account_id, sender_id, market, brand_name, status, created_at, registered_at, expires_at }
}

/** A CPaaS account with no identifiers, created at time 0. */

const cpaasAccount = (id: string, name: string, markets: ReadonlyArray<string>): Account.Account => ({
  id,
  name,
  type: "cpaas",
  adminEmail: "ops@example.com",
  markets,
  identifiers: [],
  createdAt: 0
})

// A `:memory:` database is its connection's own: the suite's reader of the tables reads on the store's client.
StoreSuite.suite(
  "sqlite :memory:",
  Layer.merge(SqliteStore.layer, SqliteTableReader.layer).pipe(
    Layer.provide(SqliteClient.layer({ filename: ":memory:" }))
  )
)

// A file is read on a connection of the reader's own, opened once the store has made the file.
const suiteFile = temporaryDatabase("suite")
StoreSuite.suite(
  "sqlite file",
  SqliteTableReader.layerFile(suiteFile).pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: suiteFile })))
)

// Built once per process of the suite: a connection of its own to one file.
SharedDatabaseSuite.suite("sqlite file", SqliteStore.layerSqlite({ filename: temporaryDatabase("shared") }))

describe("SqliteStore", () => {
  const tables = (sql: SqlClient.SqlClient) =>
    Effect.map(
      // ordinary tables: not the text index (an FTS5 virtual table) nor its shadow tables
      sql<
        { name: string }
      >`SELECT name FROM pragma_table_list WHERE type = 'table' AND name LIKE 'sendline_%' ORDER BY name`,
      (rows) => rows.map((row) => row.name)
    )

  it.effect("a database that cannot be opened fails with Errors.StoreUnavailable naming it and the reason, never a defect", () =>
    Effect.gen(function*() {
      const notADatabase = temporaryDatabase("text")
      writeFileSync(
        notADatabase,
        "this is a text file, not a SQLite database, and long enough to have a header".repeat(10)
      )
      const cases = [
        [join(tmpdir(), `sendline-missing-${randomUUID()}`, "db.sqlite"), /directory does not exist/],
        [tmpdir(), /unable to open/],
        [notADatabase, /not a database/]
      ] as const
      for (const [filename, reason] of cases) {
        const exit = yield* Effect.exit(Layer.build(SqliteStore.layerSqlite({ filename })).pipe(Effect.scoped))
        assert.isTrue(exit._tag === "Failure" && exit.cause._tag === "Fail", `${filename}: a failure, not a defect`)
        const error = (exit as { cause: { error: unknown } }).cause.error
        assert.instanceOf(error, Errors.StoreUnavailable)
        assert.include((error as Errors.StoreUnavailable).message, `Cannot open SQLite at ${filename} (`)
        assert.match((error as Errors.StoreUnavailable).message, reason)
      }
    }))

  it.effect("a file store is ready while its file is its database: not once the file is gone or another, ready again once it is back", () =>
    Effect.gen(function*() {
      const filename = temporaryDatabase("ready")
      const stores = yield* Layer.build(SqliteStore.layerSqlite({ filename }))
      const readiness = Context.get(stores, Readiness.Readiness)
      assert.deepStrictEqual(yield* readiness.check, { migration: Migrations.ids.at(-1)! })
      // the store's connection holds its files open: moved aside, they are still its own
      const files = ["", "-wal", "-shm"].map((suffix) => filename + suffix).filter((file) => existsSync(file))
      const aside = (done: boolean) => {
        for (const file of files) {
          if (done) renameSync(`${file}.aside`, file)
          else renameSync(file, `${file}.aside`)
        }
      }
      aside(false)
      const gone = yield* Effect.flip(readiness.check)
      writeFileSync(filename, "this is a text file, not a SQLite database, and long enough to have a header".repeat(10))
      const another = yield* Effect.flip(readiness.check)
      aside(true)
      for (const error of [gone, another]) {
        assert.deepStrictEqual([error.reason, error.message], [
          "Unreachable",
          "The SQLite store cannot be reached or read"
        ])
      }
      assert.deepStrictEqual(yield* readiness.check, { migration: Migrations.ids.at(-1)! })
      // an in-memory database is the connection's own: its readiness asks that connection
      const memory = yield* Layer.build(SqliteStore.layerSqlite({ filename: ":memory:" }))
      assert.deepStrictEqual(yield* Context.get(memory, Readiness.Readiness).check, {
        migration: Migrations.ids.at(-1)!
      })
    }).pipe(Effect.scoped))

  it.effect("a database file it creates is readable by its owner only, and so are its -wal and -shm", () =>
    Effect.gen(function*() {
      const filename = temporaryDatabase("private")
      // while it is open, after the migration's writes: its -wal and -shm exist then
      yield* Effect.scoped(Effect.zipRight(
        Layer.build(SqliteStore.layerSqlite({ filename })),
        Effect.sync(() => {
          for (const suffix of ["", "-wal", "-shm"]) {
            assert.strictEqual((statSync(filename + suffix).mode & 0o777).toString(8), "600", suffix)
          }
        })
      ))
      const shared = temporaryDatabase("shared")
      writeFileSync(shared, "", { mode: 0o644 })
      yield* Layer.build(SqliteStore.layerSqlite({ filename: shared })).pipe(Effect.scoped)
      assert.strictEqual((statSync(shared).mode & 0o777).toString(8), "644", "an existing file keeps its mode")
    }))

  it.effect("migrations are idempotent: make runs twice on one file, and again on a new connection", () =>
    Effect.gen(function*() {
      const filename = temporaryDatabase("migrate")
      const once = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* SqliteStore.make
        yield* SqliteStore.make
        return { migrations: yield* Migrations.recorded, tables: yield* tables(sql) }
      }).pipe(Effect.scoped, Effect.provide(SqliteClient.layer({ filename })))
      const first = yield* once
      const second = yield* once
      assert.deepStrictEqual(first, { migrations: Migrations.ids, tables: Migrations.tables })
      assert.deepStrictEqual(second, first)
    }))

  it.effect("migration 0005 leaves each account's idempotency key on its newest message only, then keeps it unique", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const stores = yield* SqliteStore.make
      // back to a database of 0004 whose keys were sent again after their 24 hours
      yield* sql`DROP INDEX ${sql(Migrations.messageIdempotencyKeys.name)}`
      yield* sql`CREATE INDEX sendline_messages_idempotency_key ON sendline_messages (account_id, idempotency_key, created_at)
        WHERE idempotency_key IS NOT NULL`
      // and of every later migration: the Migrator runs only those after the last one recorded
      yield* undoSenderIdHolds(sql) // 0012, 0011
      yield* sql`DROP TABLE sendline_brand_relationships` // 0009
      yield* sql`DROP TABLE sendline_brands`
      yield* sql`DROP TABLE sendline_mails` // 0008
      yield* sql`DROP TABLE sendline_owned_identifiers` // 0007, which runs again too
      yield* sql`ALTER TABLE sendline_idempotency_keys DROP COLUMN response_recompute`
      yield* sql`DELETE FROM sendline_migrations WHERE migration_id >= 5`
      const messages = Context.get(stores, MessageStore.MessageStore)
      for (const id of ["acct_a", "acct_b"]) {
        yield* Context.get(stores, AccountStore.AccountStore).insertAccount(cpaasAccount(id, id, []))
      }
      const message = (id: string, accountId: string, createdAt: number, idempotencyKey?: string): Message.Message =>
        Fixtures.makeMessage(accountId, id, {
          status: "sent",
          createdAt,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey })
        })
      const old = [
        message("msg_1", "acct_a", 1, "k"),
        message("msg_2", "acct_a", 3, "k"),
        message("msg_3", "acct_a", 3, "k"), // as new as msg_2: the id decides
        message("msg_4", "acct_a", 1, "k2"),
        message("msg_5", "acct_b", 1, "k"),
        message("msg_6", "acct_a", 2)
      ]
      for (const m of old) yield* messages.insert(m, Option.none())

      yield* migrateAgain(sql)
      const keys = yield* sql<
        { id: string; idempotency_key: string | null }
      >`SELECT id, idempotency_key FROM sendline_messages ORDER BY id`
      assert.deepStrictEqual(keys.map((row) => [row.id, row.idempotency_key]), [
        ["msg_1", null],
        ["msg_2", null],
        ["msg_3", "k"],
        ["msg_4", "k2"],
        ["msg_5", "k"],
        ["msg_6", null]
      ])
      const error = yield* Effect.flip(messages.insert(message("msg_7", "acct_a", 4, "k"), Option.none()))
      assert.deepStrictEqual(error, new MessageStore.IdempotencyKeyTaken({ accountId: "acct_a", key: "k" }))
    }).pipe(Effect.scoped, Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it.effect("migration 0007 gives each identifier the brand accounts list to the oldest one, normalised, then keeps it theirs", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const stores = yield* SqliteStore.make
      // back to a database of 0006, whose brand accounts list identifiers unchecked, some twice
      yield* undoSenderIdHolds(sql) // 0012, 0011, which run again too
      yield* sql`DROP TABLE sendline_brand_relationships` // 0009, which runs again too
      yield* sql`DROP TABLE sendline_brands`
      yield* sql`DROP TABLE sendline_mails` // 0008, which runs again too: the Migrator runs those after the last one recorded
      yield* sql`DROP TABLE sendline_owned_identifiers`
      yield* sql`DELETE FROM sendline_migrations WHERE migration_id >= 7`
      const account = (
        id: string,
        createdAt: number,
        identifiers: ReadonlyArray<readonly [string, string]>,
        type: Account.AccountType = "brand"
      ) =>
        ({
          ...cpaasAccount(id, id, []),
          type,
          identifiers: identifiers.map(([identifierType, identifierValue]) => ({ identifierType, identifierValue })),
          createdAt
        }) satisfies Account.Account
      const old = [
        account("acct_old", 1, [["ABN", "51 824 753 556"], ["CRN", "sc123456"]]),
        account("acct_new", 2, [["ABN", "51824753556"], ["ACN", "010 499 966"]]),
        account("acct_new_too", 2, [["ACN", "010499966"]]), // as new as acct_new: the id decides
        account("acct_cpaas", 0, [["UEN", "196800306E"]], "cpaas")
      ]
      for (const a of old) yield* sql`INSERT INTO sendline_accounts ${sql.insert(Accounts.accounts.encode(a))}`

      yield* migrateAgain(sql)
      const accounts = Context.get(stores, AccountStore.AccountStore)
      const owners = yield* Effect.forEach(
        [["ABN", "51824753556"], ["CRN", "SC123456"], ["ACN", "010499966"], ["UEN", "196800306E"]] as const,
        ([type, value]) => Effect.map(accounts.findBrandOwner(type, value), Option.getOrNull)
      )
      assert.deepStrictEqual(owners, ["acct_old", "acct_old", "acct_new", null])
      const listed = yield* Effect.forEach(
        old,
        (a) =>
          Effect.map(
            accounts.findAccount(a.id),
            Option.match({
              onNone: () => [],
              onSome: (found) => found.identifiers.map((i) => `${i.identifierType}:${i.identifierValue}`)
            })
          )
      )
      assert.deepStrictEqual(listed, [["ABN:51824753556", "CRN:SC123456"], ["ACN:010499966"], [], ["UEN:196800306E"]])
      const taken = yield* Effect.flip(accounts.insertAccount(account("acct_late", 3, [["ABN", "51824753556"]])))
      assert.deepStrictEqual(taken, new AccountStore.IdentifierTaken({ accountId: "acct_late" }))
    }).pipe(Effect.scoped, Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it.effect("migration 0011 gives each live Sender ID string the brand of its oldest live record, in any case, then holds it theirs", () =>
    Effect.gen(function*() {
      // back to a database of 0010, whose records of one string may be live under several brands
      const { sql, stores } = yield* migratedBefore(11, undoSenderIdHolds)
      const now = yield* Clock.currentTimeMillis
      const record = (
        id: string,
        senderId: string,
        brandName: string,
        createdAt: number,
        fields: Partial<SenderId.SenderIdRecord> = {}
      ) => Fixtures.makeSenderId("acct_a", { id, senderId, brandName, ...fields }, createdAt)
      const old = [
        record("sid_1", "Acme", "Acme Pty", now + 2),
        record("sid_2", "ACME", "Rival Pty", now + 1), // live under a second brand: a warning, no hold
        record("sid_3", "Acme", "Acme Pty", now), // the oldest live record of "acme" in AU: its brand holds it
        record("sid_4", "Bolt", "Bolt Pty", now, { status: "rejected" }), // holds nothing
        record("sid_5", "Bolt", "Late Pty", now + 1),
        record("sid_6", "Cove", "Gone Pty", now - SenderId.termMillis), // overdue: holds nothing
        record("sid_7", "Acme", "Acme Pty", now, { market: "NZ" })
      ]
      for (const r of old) yield* sql`INSERT INTO sendline_sender_ids ${sql.insert(rowBefore0012(r))}`

      yield* migrateAgain(sql) // 0018 too: the keys are skeletons since, the holders legal entities
      const holds = yield* sql<
        { market: string; sender_id_key: string; brand_name: string }
      >`SELECT market, sender_id_key, brand_name
        FROM sendline_sender_id_holds ORDER BY market, sender_id_key`
      assert.deepStrictEqual(holds.map((h) => [h.market, h.sender_id_key, h.brand_name]), [
        ["AU", "acrne", "Acme Pty"],
        ["AU", "bolt", "Late Pty"],
        ["NZ", "acrne", "Acme Pty"]
      ])
      const senderIds = Context.get(stores, SenderIdStore.SenderIdStore)
      const taken = yield* Effect.flip(senderIds.insert(record("sid_8", "aCME", "Rival Pty", now + 3), [], []))
      assert.deepStrictEqual(taken, new SenderIdStore.SenderIdTaken({ senderId: "aCME", market: "AU" }))
      yield* senderIds.insert(record("sid_9", "Cove", "New Pty", now + 3), [], [])
    }).pipe(Effect.scoped, Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it.effect("migration 0012 reads every older record at version 0, the registered ones watched 30 days before they expire", () =>
    Effect.gen(function*() {
      // back to a database of 0011, of records imported before registrations
      const { sql, stores } = yield* migratedBefore(12, undoSenderIdRegistrations)
      const registered = Fixtures.makeSenderId("acct_a", { id: "sid_1" }, Fixtures.T)
      const pending = Fixtures.makeSenderId("acct_a", { id: "sid_2", senderId: "Bolt", status: "pending" }, Fixtures.T)
      for (const r of [registered, pending]) yield* sql`INSERT INTO sendline_sender_ids ${sql.insert(rowBefore0012(r))}`

      yield* migrateAgain(sql)
      const senderIds = Context.get(stores, SenderIdStore.SenderIdStore)
      // imported without an identifier, as then: 0018 holds them for their brand name
      const migrated = (r: SenderId.SenderIdRecord) => ({
        ...r,
        identifierType: SenderId.importedBrandName,
        identifierValue: r.brandName
      })
      for (const r of [registered, pending]) {
        assert.deepStrictEqual(yield* senderIds.findById(r.id), Option.some({ record: migrated(r), registrations: [] }))
      }
      const watchAt = registered.expiresAt! - SenderId.warningMillis
      assert.deepStrictEqual(yield* senderIds.claimWatched(watchAt - 1, 10, watchAt + 1), [], "not due yet")
      assert.deepStrictEqual(
        yield* senderIds.claimWatched(watchAt, 10, watchAt + 1),
        [migrated(registered)],
        "due, and the pending one never"
      )
    }).pipe(Effect.scoped, Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it.effect("migration 0018 holds each live Sender ID for its brand's legal identifier, by skeleton; an import without one for its brand name, apart; a rename then takes nothing", () =>
    Effect.gen(function*() {
      // back to a database of 0016, whose holds are by brand name, in lower case
      const { sql, stores } = yield* migratedBefore(
        18,
        (sql) =>
          Effect.zipRight(
            Effect.all([
              undoBatches(sql),
              sql.unsafe(`DROP TABLE sendline_spend`),
              sql.unsafe(`DROP TABLE sendline_spending_limits`),
              sql.unsafe(`ALTER TABLE sendline_messages DROP COLUMN carrier`)
            ]),
            undoSenderIdIdentities(sql)
          )
      )
      const now = yield* Clock.currentTimeMillis
      const brand = (id: string, name: string, identifierType: string, identifierValue: string) =>
        sql`INSERT INTO sendline_brands ${
          sql.insert({
            id,
            name,
            identifier_type: identifierType,
            identifier_value: identifierValue,
            market: "AU",
            status: "verified",
            contact: "{}",
            website: null,
            created_at: now
          })
        }`
      yield* brand("brand_a", "Sendline Demo Pty Ltd", "ABN", "51824753556")
      yield* brand("brand_b", "Bolt Pty Ltd", "ACN", "010499966")
      const submitted = (
        id: string,
        senderId: string,
        brandId: string,
        brandName: string,
        createdAt: number,
        fields: Partial<SenderId.SenderIdRecord> = {}
      ) => Fixtures.makeSubmittedSenderId("acct_a", { id, senderId, brandId, brandName, ...fields }, createdAt)
      const imported = (id: string, senderId: string, brandName: string, createdAt: number) =>
        Fixtures.makeSenderId("acct_a", { id, senderId, brandName }, createdAt)
      const old = [
        submitted("sid_1", "Sendline", "brand_a", "Sendline Demo Pty Ltd", now),
        submitted("sid_2", "Send Line", "brand_b", "Bolt Pty Ltd", now + 1), // a look-alike under another entity: a warning, no hold
        submitted("sid_3", "Bolt", "brand_b", "Bolt Pty Ltd", now, { market: "NZ" }),
        imported("sid_4", "Cove", "Cove Pty", now),
        submitted("sid_5", "Dune", "brand_a", "Sendline Demo Pty Ltd", now, { status: "rejected" }) // holds nothing
      ]
      for (const r of old) {
        const { identifier_type, identifier_value, skeleton, ...before } = SenderIds.row(r)
        yield* sql`INSERT INTO sendline_sender_ids ${sql.insert(before)}`
      }
      for (
        const [market, key, brandName] of [
          ["AU", "sendline", "Sendline Demo Pty Ltd"],
          ["AU", "send line", "Bolt Pty Ltd"],
          ["NZ", "bolt", "Bolt Pty Ltd"],
          ["AU", "cove", "Cove Pty"]
        ]
      ) {
        yield* sql`INSERT INTO sendline_sender_id_holds ${
          sql.insert({ market: market!, sender_id_key: key!, brand_name: brandName! })
        }`
      }

      yield* SqliteStore.make
      const holds = yield* sql<
        { market: string; sender_id_key: string; identifier_type: string; identifier_value: string }
      >`SELECT market,
        sender_id_key, identifier_type, identifier_value FROM sendline_sender_id_holds ORDER BY market, sender_id_key`
      assert.deepStrictEqual(holds.map((h) => [h.market, h.sender_id_key, h.identifier_type, h.identifier_value]), [
        ["AU", "cove", "imported_brand_name", "Cove Pty"],
        ["AU", "sendllne", "ABN", "51824753556"],
        ["NZ", "bolt", "ACN", "010499966"]
      ])
      const senderIds = Context.get(stores, SenderIdStore.SenderIdStore)
      const found = yield* senderIds.findById("sid_2")
      assert.deepStrictEqual(
        Option.map(found, ({ record }) => [record.identifierType, record.identifierValue]),
        Option.some(["ACN", "010499966"])
      )
      // another entity under the holder's brand name, as a rename makes it: taken, in any look-alike
      const renamed = { brandName: "Sendline Demo Pty Ltd", identifierType: "ACN", identifierValue: "010499966" }
      for (const senderId of ["Sendline", "SendIine"]) {
        assert.deepStrictEqual(
          yield* Effect.flip(
            senderIds.insert(Fixtures.makeSenderId("acct_a", { senderId, ...renamed }, now + 2), [], [])
          ),
          new SenderIdStore.SenderIdTaken({ senderId, market: "AU" })
        )
      }
      // the import's hold is its brand name's, which no brand shares
      const cove = { brandName: "Cove Pty", identifierType: "ABN", identifierValue: "51824753556" }
      assert.deepStrictEqual(
        yield* Effect.flip(
          senderIds.insert(Fixtures.makeSenderId("acct_a", { senderId: "COVE", ...cove }, now + 2), [], [])
        ),
        new SenderIdStore.SenderIdTaken({ senderId: "COVE", market: "AU" })
      )
      // the holders themselves, renamed since
      yield* senderIds.insert(
        Fixtures.makeSenderId("acct_a", {
          senderId: "Sendline",
          brandName: "Sendline Group",
          identifierType: "ABN",
          identifierValue: "51824753556"
        }, now + 2),
        [],
        []
      )
      yield* senderIds.insert(Fixtures.makeSenderId("acct_a", { senderId: "Dune", ...renamed }, now + 2), [], [])
    }).pipe(Effect.scoped, Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it.effect("the text index follows its table: a registration is found by its Sender ID and brand name as they are now, and gone once deleted", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const senderIds = yield* SenderIdStore.SenderIdStore
      yield* (yield* AccountStore.AccountStore).insertAccount(cpaasAccount("acct_text", "Text", ["AU"]))
      const record = Fixtures.makeSubmittedSenderId("acct_text", { senderId: "Alpha" })
      const made = Fixtures.makeRegistration(record, "telstra")
      const registration = { ...made, brand: { ...made.brand, name: "Alpha Pty" } }
      yield* senderIds.insert(record, [registration], [])
      const found = (filter: { readonly senderId?: string; readonly brandName?: string }) =>
        Effect.map(
          senderIds.listRegistrations({ network: "telstra", markets: ["AU"], ...filter }, Option.none(), 10),
          (page) => page.map((r) => r.id)
        )
      const indexed = Effect.map(
        sql<{ sender_id: string; brand_name: string }>`SELECT sender_id, brand_name FROM ${
          sql(Migrations.registrationSearch.name)
        } WHERE id = ${registration.id}`,
        (rows) => rows.map((row) => [row.sender_id, row.brand_name])
      )
      assert.deepStrictEqual(yield* found({ brandName: "alpha" }), [registration.id])
      assert.deepStrictEqual(yield* indexed, [["Alpha", "Alpha Pty"]])

      yield* sql`UPDATE sendline_operator_registrations SET status = 'approved' WHERE id = ${registration.id}`
      assert.deepStrictEqual(yield* indexed, [["Alpha", "Alpha Pty"]], "another column changed: the copy as it was")
      yield* sql`UPDATE sendline_operator_registrations SET brand_name = 'Omega Pty', sender_id = 'Omega' WHERE id = ${registration.id}`
      assert.deepStrictEqual(yield* indexed, [["Omega", "Omega Pty"]])
      assert.deepStrictEqual(yield* found({ brandName: "alpha" }), [])
      assert.deepStrictEqual(yield* found({ brandName: "omega pty", senderId: "OMEGA" }), [registration.id])

      yield* sql`DELETE FROM sendline_operator_registrations WHERE id = ${registration.id}`
      assert.deepStrictEqual(yield* indexed, [])
      assert.deepStrictEqual(yield* found({ brandName: "omega" }), [])
    }).pipe(Effect.provide(SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" }))))))

  it.effect("a file database runs in WAL mode with foreign keys on", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [journal] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
      const [foreignKeys] = yield* sql<{ foreign_keys: number }>`PRAGMA foreign_keys`
      const [synchronous] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
      assert.strictEqual(journal?.journal_mode, "wal")
      assert.strictEqual(foreignKeys?.foreign_keys, 1)
      assert.strictEqual(synchronous?.synchronous, 1, "NORMAL")
    }).pipe(
      Effect.provide(
        SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename: temporaryDatabase("wal") })))
      )
    ))

  it.effect("with synchronous full the connection syncs every commit", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [synchronous] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
      assert.strictEqual(synchronous?.synchronous, 2, "FULL")
    }).pipe(
      Effect.provide(
        SqliteStore.layerWith({ synchronous: "full" }).pipe(
          Layer.provideMerge(SqliteClient.layer({ filename: temporaryDatabase("full") }))
        )
      )
    ))

  it.effect("a failing statement is Errors.StoreUnavailable, without SQL text, the cause kept", () =>
    Effect.gen(function*() {
      const accounts = yield* AccountStore.AccountStore
      const account = cpaasAccount("acct_duplicate", "Twice", [])
      yield* accounts.insertAccount(account)
      const error = yield* Effect.flip(accounts.insertAccount(account))
      assert.instanceOf(error, Errors.StoreUnavailable)
      assert.notMatch(error.message, /INSERT|sendline_/)
      assert.instanceOf(error.cause, SqlError)
    }).pipe(Effect.provide(SqliteStore.layerSqlite({ filename: ":memory:" }))))

  it.effect("a row that is not what Sendline stores is a defect naming its table and column, never wrong data nor StoreUnavailable", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const accounts = yield* AccountStore.AccountStore
      const account = cpaasAccount("acct_corrupt", "Corrupt", ["AU"])
      yield* accounts.insertAccount(account)
      assert.deepStrictEqual(yield* accounts.findAccount(account.id), Option.some(account))
      for (
        const [column, value, says] of [
          ["type", "alien", /^A row of sendline_accounts .*: column type: expected "brand" \| "aggregator"/],
          ["markets", "[AU", /^A row of sendline_accounts .*: column markets: expected/],
          ["markets", "[1]", /^A row of sendline_accounts .*: column markets: expected/]
        ] as const
      ) {
        yield* sql`UPDATE sendline_accounts SET ${sql(column)} = ${value} WHERE id = ${account.id}`
        const exit = yield* Effect.exit(accounts.findAccount(account.id))
        const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
        assert.isTrue(Option.isSome(defect), `${column}: a defect, not a failure`)
        const error = Option.getOrThrow(defect)
        assert.instanceOf(error, Rows.UnreadableRow, column)
        assert.match(error.message, says)
        assert.notInclude(error.message, value, "never the value it holds")
        yield* sql`UPDATE sendline_accounts SET type = 'cpaas', markets = '["AU"]' WHERE id = ${account.id}`
      }
    }).pipe(Effect.provide(SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" }))))))

  it.effect("the message list uses an index for every filter, never a sort or a table scan", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const filters = [
        "",
        "AND market = 'AU'",
        "AND status = 'queued'",
        "AND sender_id = 'Acme'",
        "AND reference = 'r'"
      ]
      for (const filter of filters) {
        const plan = yield* sql.unsafe<{ detail: string }>(
          `EXPLAIN QUERY PLAN SELECT * FROM sendline_messages
           WHERE account_id = 'acct' ${filter} AND created_at >= 1 AND (created_at, id) < (5, 'msg')
           ORDER BY created_at DESC, id DESC LIMIT 50`
        )
        const details = plan.map((row) => row.detail).join(" | ")
        assert.match(details, /USING INDEX sendline_messages_/, details)
        assert.notMatch(details, /TEMP B-TREE|SCAN sendline_messages(?! USING)/, details)
      }
    }).pipe(
      Effect.provide(SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" }))))
    ))
})
