import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { assert, describe, it } from "@effect/vitest"
import type { SenderIdStore as Port, Stores } from "@sendline/core"
import { SenderIdStore } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { Database, Registrations } from "@sendline/store-sql"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer, Option, Redacted } from "effect"

/**
 * A store, and how to read its plans: what shows that a statement reads the text index, walks an
 * index in the list's order, or sorts.
 */
interface Planner {
  readonly name: string
  readonly layer: () => Layer.Layer<SqlClient.SqlClient | Stores.Stores, unknown>
  readonly dialect: (sql: SqlClient.SqlClient) => Database.Dialect
  readonly explain: (
    sql: SqlClient.SqlClient,
    text: string,
    params: ReadonlyArray<unknown>
  ) => Effect.Effect<string, unknown>
  readonly textIndex: RegExp
  readonly walks: (index: string) => RegExp
  readonly sorts: RegExp
}

const reachable = await Effect.runPromise(TestDatabase.probe)
const planners: ReadonlyArray<Planner> = [
  {
    name: "sqlite",
    layer: () => SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" }))),
    dialect: SqliteStore.dialect,
    explain: (sql, text, params) =>
      Effect.map(
        sql.unsafe<{ readonly detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params),
        (rows) => rows.map((row) => row.detail).join("\n")
      ),
    // FTS5's MATCH (`M`, then the column): `SCAN sendline_operator_registrations_search VIRTUAL TABLE INDEX 0:M3`
    textIndex: /SCAN sendline_operator_registrations_search VIRTUAL TABLE INDEX \d+:M/,
    walks: (index) =>
      new RegExp(`SEARCH sendline_operator_registrations USING INDEX ${index} \\(network=\\? AND market=\\?`),
    sorts: /TEMP B-TREE/
  },
  ...Option.match(reachable, {
    onNone: () => [],
    onSome: (url): ReadonlyArray<Planner> => [{
      name: "postgres",
      layer: () =>
        PgStore.layer.pipe(Layer.provideMerge(Layer.unwrapScoped(
          Effect.map(TestDatabase.scopedSchema(url), (inSchema) => PgClient.layer({ url: Redacted.make(inSchema) }))
        ))),
      dialect: PgStore.dialect,
      // On a table this small a scan is cheapest: forbid it, to see which index the planner picks
      // (the trigram index or a walk of the list's, by their costs; at 1M rows it picks the same).
      explain: (sql, text, params) =>
        sql.withTransaction(Effect.zipRight(
          sql`SET LOCAL enable_seqscan = off`,
          Effect.map(
            sql.unsafe<{ readonly "QUERY PLAN": string }>(`EXPLAIN ${text}`, params),
            (rows) => rows.map((row) => row["QUERY PLAN"]).join("\n")
          )
        )),
      textIndex: /Bitmap Index Scan on sendline_operator_registrations_search_brand_name/,
      walks: (index) => new RegExp(`Index Scan Backward using ${index} on sendline_operator_registrations`),
      sorts: /Sort/
    }]
  })
]

/** How many rows the plans are read over: the fewest at which PostgreSQL's planner weighs its indexes as at 1M (at 5,000 it takes any index for a scan). */
const rows = 20_000
/** The one row whose brand holds "Zyxquor" (in AU). */
const rare = rows / 2 + 1
/** When the middle row was submitted. */
const middle = Fixtures.T + (rows / 2) * 1000

/**
 * `rows` registrations of one record on the network `telstra`, in one statement (a recursive CTE,
 * which both databases run): a fifth in NZ, the rest in AU, every brand name but one's holding
 * "Pty", each status and submitter type in turn, one a second from `Fixtures.T` on.
 */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const accountId = yield* Fixtures.freshAccount
  const record = Fixtures.makeSubmittedSenderId(accountId)
  yield* (yield* SenderIdStore.SenderIdStore).insert(record, [], [])
  const literal = (value: number) => sql.literal(String(value))
  yield* sql`WITH RECURSIVE k (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${literal(rows)})
    INSERT INTO sendline_operator_registrations (id, sid_id, network, market, sender_id, brand_id, brand_name,
      identifier_type, identifier_value, status, use_case, match_type, match_value, submitter_account_id,
      submitter_type, submitter_name, submitted_at)
    SELECT 'opreg_' || (${
    literal(1_000_000)
  } + i), ${record.id}, 'telstra', CASE WHEN i % 5 = 0 THEN 'NZ' ELSE 'AU' END,
      'S' || (i % 97), 'brand_acme',
      CASE WHEN i = ${literal(rare)} THEN 'Zyxquor Holdings' ELSE 'Brand ' || (i % 89) || ' Pty Ltd' END,
      'ABN', '51824753556',
      CASE i % 5 WHEN 1 THEN 'approved' WHEN 2 THEN 'rejected' WHEN 3 THEN 'info_requested' WHEN 4 THEN 'resubmitted'
        ELSE 'pending_operator_review' END,
      'Alerts', 'business_name', 'Acme', ${accountId},
      CASE i % 3 WHEN 0 THEN 'brand' WHEN 1 THEN 'aggregator' ELSE 'cpaas' END, 'Acme Messaging',
      ${literal(Fixtures.T)} + i * 1000
    FROM k`
  // Statistics, as a database that has lived with these rows would have them.
  yield* sql`ANALYZE`
})

/** The plan of each statement a page of `filter` runs, in order, and the page. */
const plansOf = (planner: Planner, filter: Partial<Port.RegistrationFilter>) =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const db = Database.make(planner.name, sql, planner.dialect(sql))
    const ran: Array<Statement.Statement<unknown>> = []
    const page = yield* Registrations.list(db, { network: "telstra", markets: ["AU"], ...filter }, Option.none(), 50)
      .pipe(
        Statement.withTransformer((statement) => Effect.sync(() => (ran.push(statement), statement)))
      )
    const plans = yield* Effect.forEach(ran, (statement) => {
      const [text, params] = statement.compile()
      return planner.explain(sql, text, params)
    })
    return { plans, page }
  })

for (const planner of planners) {
  describe(`the operators' list reads an index for every filter (${planner.name}, ${rows} rows)`, () => {
    it.effect("unfiltered, and by each filter but the texts, a page walks an index in the list's order, never a sort", () =>
      Effect.gen(function*() {
        yield* seed
        const cases: ReadonlyArray<readonly [string, Partial<Port.RegistrationFilter>]> = [
          ["sendline_operator_registrations_list", {}],
          ["sendline_operator_registrations_list", { market: "AU" }],
          ["sendline_operator_registrations_list", { submittedAfter: middle }],
          ["sendline_operator_registrations_list", { submittedBefore: middle }],
          ["sendline_operator_registrations_status", { status: "approved" }],
          ["sendline_operator_registrations_submitter", { submitterType: "brand" }]
        ]
        for (const [index, filter] of cases) {
          const { page, plans } = yield* plansOf(planner, filter)
          const plan = plans.join("\n")
          assert.strictEqual(plans.length, 1, plan)
          assert.match(plan, planner.walks(index), `${JSON.stringify(filter)}: ${plan}`)
          assert.notMatch(plan, planner.sorts, `${JSON.stringify(filter)}: ${plan}`)
          assert.strictEqual(page.length, 50)
        }
      }).pipe(Effect.provide(planner.layer())))

    it.effect("a brand name few rows hold is found through the text index; one most rows hold, by walking the list's index", () =>
      Effect.gen(function*() {
        yield* seed
        const rarely = yield* plansOf(planner, { brandName: "zyxQUOR" })
        assert.deepStrictEqual(rarely.page.map((r) => r.id), [`opreg_${1_000_000 + rare}`])
        assert.isTrue(rarely.plans.some((plan) => planner.textIndex.test(plan)), rarely.plans.join("\n---\n"))
        assert.notMatch(
          rarely.plans.at(-1)!,
          planner.walks("sendline_operator_registrations_list"),
          "the page reads the rows found"
        )

        const commonly = yield* plansOf(planner, { brandName: "pty" })
        const page = commonly.plans.at(-1)!
        assert.strictEqual(commonly.page.length, 50)
        assert.match(page, planner.walks("sendline_operator_registrations_list"), page)
        assert.notMatch(page, planner.sorts, page)
      }).pipe(Effect.provide(planner.layer())))

    // SQLite's store asks its text index for a text's rarest-looking trigrams first ("Bra", "Pty"):
    // here every row holds them, so it asks again for the whole text, which 1 row in 89 holds.
    if (planner.name === "sqlite") {
      it.effect("a text few rows hold, whose every trigram most rows hold, is still found through the text index", () =>
        Effect.gen(function*() {
          yield* seed
          const { page, plans } = yield* plansOf(planner, { brandName: "brand 7 pty" })
          assert.strictEqual(plans.length, 3, plans.join("\n---\n"))
          assert.match(plans[0]!, planner.textIndex)
          assert.match(plans[1]!, planner.textIndex)
          assert.notMatch(
            plans[2]!,
            planner.walks("sendline_operator_registrations_list"),
            "the page reads the rows found"
          )
          assert.strictEqual(page.length, 50)
          assert.isTrue(
            page.every((r) => r.brand.name.startsWith("Brand 7 Pty")),
            page.map((r) => r.brand.name).join(", ")
          )
        }).pipe(Effect.provide(planner.layer())))
    }
  })
}
