import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import type { Account, Message } from "@sendline/core"
import { AccountStore, Errors, IdempotencyStore, MessageStore } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { SharedDatabaseSuite, StoreSuite } from "@sendline/core/testing/suites"
import { PgPool, PgStore } from "@sendline/store-postgres"
import { FreezingProxy, TestDatabase } from "@sendline/store-postgres/testing"
import { Messages, Migrations } from "@sendline/store-sql"
import { Clock, Context, Deferred, Duration, Effect, Fiber, Layer, Option, Redacted } from "effect"
import * as net from "node:net"
import { afterAll } from "vitest"
import * as PgTableReader from "./PgTableReader.js"

// One schema for this file (dropped afterwards), so that runs and other files never collide.
// No server: one loud line and the tests are skipped, or under CI=true the file fails here.
const database = await Effect.runPromise(TestDatabase.probe)

if (Option.isNone(database)) {
  describe.skip("PgStore (no PostgreSQL server: see the line above)", () => {
    it("runs StoreSuite on PostgreSQL", () => {})
  })
} else {
  const base = database.value
  const schemas: Array<string> = []
  const freshSchema = Effect.tap(TestDatabase.createSchema(base), (schema) => Effect.sync(() => schemas.push(schema)))
  afterAll(() =>
    Effect.runPromise(Effect.forEach(schemas, (schema) => TestDatabase.dropSchema(base, schema), { discard: true }))
  )
  const suiteUrl = TestDatabase.withSchema(base, await Effect.runPromise(freshSchema))

  /** A client on the suite's schema (its own pool, as another process would have). */
  const client = (url = suiteUrl) => PgClient.layer({ url: Redacted.make(url) })
  const SuiteClient = client()
  const OnSuiteClient = PgStore.layer.pipe(Layer.provideMerge(SuiteClient))

  // with the suite's reader of the tables, on a pool of its own
  StoreSuite.suite(
    "postgres",
    Layer.merge(PgStore.layerPg({ url: Redacted.make(suiteUrl) }), PgTableReader.layer(suiteUrl))
  )

  // Built once per process of the suite: a pool of its own on the suite's schema.
  SharedDatabaseSuite.suite("postgres", PgStore.layerPg({ url: Redacted.make(suiteUrl) }))

  const account = (id: string): Account.Account => ({
    id,
    name: "Acme",
    type: "cpaas",
    adminEmail: "ops@example.com",
    markets: [],
    identifiers: [],
    createdAt: 0
  })

  const tables = (sql: SqlClient.SqlClient) =>
    Effect.map(
      sql<{ tablename: string }>`SELECT tablename FROM pg_tables
        WHERE schemaname = current_schema() AND tablename LIKE 'sendline_%' ORDER BY tablename`,
      (rows) => rows.map((row) => row.tablename)
    )

  describe("PgStore", () => {
    it.effect("runs in its own schema, set through the URL", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
        assert.match(row!.schema, /^sendline_test_[0-9a-z]+$/)
      }).pipe(Effect.provide(SuiteClient)))

    it.effect("four concurrent migrations of one fresh schema all succeed, once, and again later", () =>
      Effect.gen(function*() {
        const url = TestDatabase.withSchema(base, yield* freshSchema)
        // Each with its own pool: four processes starting at once on an empty database.
        const migrateOnce = Effect.provide(Effect.scoped(PgStore.make), client(url))
        yield* Effect.all(Array.from({ length: 4 }, () => migrateOnce), { concurrency: "unbounded" })
        yield* migrateOnce
        const migrated = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return { migrations: yield* Migrations.recorded, tables: yield* tables(sql) }
        }).pipe(Effect.provide(client(url)))
        assert.deepStrictEqual(migrated, { migrations: Migrations.ids, tables: Migrations.tables })
      }))

    it.effect("a failing statement is Errors.StoreUnavailable, without SQL text, the cause kept", () =>
      Effect.gen(function*() {
        const accounts = yield* AccountStore.AccountStore
        const duplicate = account(`acct_dup${TestDatabase.schemaName()}`)
        yield* accounts.insertAccount(duplicate)
        const error = yield* Effect.flip(accounts.insertAccount(duplicate))
        assert.instanceOf(error, Errors.StoreUnavailable)
        assert.notMatch(error.message, /INSERT|sendline_/)
        assert.instanceOf(error.cause, SqlError)
      }).pipe(Effect.provide(OnSuiteClient)))

    it.effect("an unreachable server is Errors.StoreUnavailable when the layer is built, naming where and why, never the credentials", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          Effect.provide(
            AccountStore.AccountStore,
            PgStore.layerPg({ url: Redacted.make("postgres://postgres:s3cret@127.0.0.1:1/none") })
          )
        )
        assert.instanceOf(error, Errors.StoreUnavailable)
        assert.match(error.message, /^Cannot use PostgreSQL at 127\.0\.0\.1:1\/none \(.*ECONNREFUSED.*\)$/)
        assert.notMatch(error.message, /postgres@|s3cret/)
      }))

    it.live("a server that accepts connections but never answers fails Errors.StoreUnavailable after connectTimeout", () =>
      Effect.gen(function*() {
        const silent = net.createServer(() => {}) // holds every connection, says nothing
        yield* Effect.acquireRelease(
          Effect.async<void>((resume) => void silent.listen(0, "127.0.0.1", () => resume(Effect.void))),
          () => Effect.sync(() => silent.close())
        )
        const port = (silent.address() as net.AddressInfo).port
        const url = Redacted.make(`postgres://postgres@127.0.0.1:${port}/test`)
        const started = Date.now()
        const error = yield* Effect.flip(
          Effect.provide(AccountStore.AccountStore, PgStore.layerPg({ url, connectTimeout: "300 millis" }))
        )
        assert.instanceOf(error, Errors.StoreUnavailable)
        assert.isBelow(
          Date.now() - started,
          Duration.toMillis(PgPool.defaults.connectTimeout),
          "gave up after the timeout set, not the default"
        )
      }).pipe(Effect.scoped))

    it.live("a query on a connection whose server went silent fails Errors.StoreUnavailable after queryTimeout, and the next one gets a new connection", () =>
      Effect.gen(function*() {
        const proxy = yield* FreezingProxy.make(suiteUrl)
        // One connection, so that the query after the freeze meets the silenced one.
        const stores = yield* Layer.build(PgStore.layerPg({
          url: Redacted.make(proxy.url),
          maxConnections: 1,
          statementTimeout: "500 millis",
          queryTimeout: "1 second"
        }))
        const accounts = Context.get(stores, AccountStore.AccountStore)
        const id = `acct_${TestDatabase.schemaName()}`
        yield* accounts.insertAccount(account(id))
        const opened = yield* proxy.accepted
        yield* proxy.freeze
        const started = yield* Clock.currentTimeMillis
        const error = yield* Effect.flip(accounts.findAccount(id))
        const waited = (yield* Clock.currentTimeMillis) - started
        assert.instanceOf(error, Errors.StoreUnavailable)
        assert.instanceOf(error.cause, SqlError)
        assert.match(String(error.cause.cause), /PostgreSQL did not answer within 1000 ms; the connection is closed/)
        assert.isAtLeast(waited, 1_000)
        assert.isBelow(
          waited,
          Duration.toMillis(PgPool.defaults.queryTimeout),
          "failed at the query timeout set, not the default"
        )
        // The same store, not restarted, answers again: on a new connection (the silenced one is
        // still open at the proxy, and would never answer).
        assert.deepStrictEqual(yield* accounts.findAccount(id), Option.some(account(id)))
        assert.strictEqual(yield* proxy.accepted, opened + 1)
      }).pipe(Effect.scoped))

    it.live("the server cancels a statement past statementTimeout, and its connection stays in the pool", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const backend = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
        const before = yield* backend
        const error = yield* Effect.flip(sql`SELECT pg_sleep(3)`)
        assert.strictEqual((error.cause as { readonly code?: unknown }).code, "57014", "query_canceled")
        assert.deepStrictEqual(yield* backend, before)
      }).pipe(Effect.provide(PgPool.layer({
        url: Redacted.make(suiteUrl),
        maxConnections: 1,
        statementTimeout: "200 millis",
        queryTimeout: "2 seconds"
      }))))

    it("the default timeouts fail a request on a dead connection within 10 seconds, a slow statement first", () => {
      const millis = (name: keyof typeof PgPool.defaults) => Duration.toMillis(PgPool.defaults[name])
      assert.isBelow(millis("statementTimeout"), millis("queryTimeout"))
      assert.isBelow(millis("queryTimeout"), 10_000)
    })

    it.effect("the message list and the claims of messages and mails read an index for every filter, never a sort (the fair claim: of its candidates only)", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const plan = (query: string) =>
          sql.withTransaction(Effect.gen(function*() {
            // On an almost empty table a scan is cheapest: forbid it to see which index is picked.
            yield* sql`SET LOCAL enable_seqscan = off`
            yield* sql`SET LOCAL enable_bitmapscan = off`
            const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${query}`)
            return rows.map((row) => row["QUERY PLAN"]).join("\n")
          }))
        const filters = [
          "",
          "AND market = 'AU'",
          "AND status = 'queued'",
          "AND sender_id = 'Acme'",
          "AND reference = 'r'"
        ]
        for (const filter of filters) {
          const text = yield* plan(`SELECT * FROM sendline_messages
            WHERE account_id = 'acct' ${filter} AND created_at >= 1 AND (created_at, id) < (5, 'msg')
            ORDER BY created_at DESC, id DESC LIMIT 50`)
          assert.match(text, /Index Scan Backward using sendline_messages_/, text)
          assert.notMatch(text, /Sort|Seq Scan/, text)
        }
        const claims = [
          [
            "sendline_messages_dispatch",
            "sendline_messages",
            `status = 'queued' AND (claimed_until IS NULL OR claimed_until <= 5) ORDER BY created_at, id`
          ],
          [
            "sendline_messages_schedule",
            "sendline_messages",
            `status = 'scheduled' AND scheduled_at <= 5 AND (claimed_until IS NULL OR claimed_until <= 5)
           ORDER BY scheduled_at, id`
          ],
          [
            "sendline_mails_due",
            "sendline_mails",
            `status = 'pending' AND next_attempt_at <= 5 AND (claimed_until IS NULL OR claimed_until <= 5)
           ORDER BY next_attempt_at, id`
          ]
        ] as const
        for (const [index, table, where] of claims) {
          const text = yield* plan(`SELECT id FROM ${table} WHERE ${where} LIMIT 10 FOR UPDATE SKIP LOCKED`)
          assert.match(text, new RegExp(`Index Scan using ${index}`), text)
          assert.notMatch(text, /Sort|Seq Scan/, text)
        }
        // the fair dispatch claim: the accounts by a loose index scan (one seek each), each one's
        // oldest by an index range, the rest by the FIFO index; a sort of its candidates only
        for (const accounts of [2, 500]) {
          const [due, params] = Messages.fairDue(sql, PgStore.dialect(sql), 5, 100, accounts).compile()
          const text = yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`SET LOCAL enable_seqscan = off`
            yield* sql`SET LOCAL enable_bitmapscan = off`
            const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${due} FOR UPDATE SKIP LOCKED`, params)
            return rows.map((row) => row["QUERY PLAN"]).join("\n")
          }))
          assert.match(text, /Index Only Scan using sendline_messages_dispatch_accounts/, text)
          assert.match(text, /Index Scan using sendline_messages_\w+ on sendline_messages q\b/, text)
          assert.match(
            text,
            /Index Cond: \(\(account_id >= accounts(_\d+)?\.account_id\) AND \(account_id <= accounts(_\d+)?\.account_id\)/,
            text
          )
          assert.match(text, /Index Scan using sendline_messages_dispatch on sendline_messages f\b/, text)
          assert.notMatch(text, /Seq Scan/, text)
        }
      }).pipe(Effect.provide(OnSuiteClient)))

    it.live("claim skips a row that another connection holds locked, without waiting for it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const messages = yield* MessageStore.MessageStore
        const accounts = yield* AccountStore.AccountStore
        const suffix = TestDatabase.schemaName()
        yield* accounts.insertAccount(account(`acct_${suffix}`))
        // Everything claimable so far is leased away, so that only this test's messages are due.
        const far = 8_640_000_000_000_000
        while ((yield* messages.claim("dispatch", far - 1, 1_000, far)).length > 0) {
          // drained
        }
        const make = (id: string, createdAt: number): Message.Message =>
          Fixtures.makeMessage(`acct_${suffix}`, id, { createdAt })
        const locked = make(`msg_${suffix}a`, 1)
        const free = make(`msg_${suffix}b`, 2)
        yield* messages.insert(locked, Option.none())
        yield* messages.insert(free, Option.none())
        // Another connection locks one row, in a transaction held open until the claim is done.
        const isLocked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT id FROM sendline_messages WHERE id = ${locked.id} FOR UPDATE`
          yield* Deferred.succeed(isLocked, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(isLocked)
        // on the live clock (it.live): a claim that waited for the lock would fail here, not hang
        const claimed = yield* messages.claim("dispatch", 10, 10, 1_000).pipe(Effect.timeout("20 seconds"))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        assert.deepStrictEqual(claimed, [free])
        assert.deepStrictEqual(yield* messages.claim("dispatch", 10, 10, 1_000), [locked])
      }).pipe(Effect.provide(OnSuiteClient)))

    it.effect("reserves of one idempotency key through two pools at once: exactly one wins", () =>
      Effect.gen(function*() {
        const other = yield* Layer.build(PgStore.layerPg({ url: Redacted.make(suiteUrl) }))
        const here = yield* IdempotencyStore.IdempotencyStore
        const there = Context.get(other, IdempotencyStore.IdempotencyStore)
        const accountId = `acct_${TestDatabase.schemaName()}`
        yield* (yield* AccountStore.AccountStore).insertAccount(account(accountId))
        const key = `idem-${accountId}`
        const results = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? here : there).reserve(
              { accountId, key, fingerprint: `fp-${i}`, createdAt: i, response: Option.none() },
              { expired: -1, abandoned: -1 }
            )),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter(Option.isNone).length, 1)
        const holders = new Set(results.flatMap((r) => Option.isSome(r) ? [r.value.fingerprint] : []))
        assert.strictEqual(holders.size, 1)
      }).pipe(Effect.scoped, Effect.provide(OnSuiteClient)))
  })
}
