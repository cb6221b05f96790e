/**
 * The message list's flatness (CONTRACT §3's list, §13's `batch_id` filter): how long
 * `GET /v1/messaging/messages` takes (a page of 50) when the table holds 10,000 messages and when
 * it holds 1,000,000, for each filter the list takes alone (none, `status`, `market`, `sender_id`,
 * `reference`, `from`/`to`, `batch_id` once the store has the column), and the unfiltered fiftieth
 * page; on each store. Target: p99 at 1M at most twice p99 at 10k, on every row (as the operator
 * list's, `oplist.ts`, whose method this follows).
 *
 * The rows: `sendline serve --demo` makes and migrates a fresh database (a SQLite file; a fresh
 * schema of TEST_DATABASE_URL) and its demo account, then the bench writes the messages straight
 * through the driver (`message-rows.ts`; the table's secondary indexes dropped first and made again
 * from their own definitions afterwards, then VACUUM ANALYZE on PostgreSQL): ten accounts (the demo
 * account holds half the rows), spread over 90 days, 82 % delivered, 5 % sent, 7 % undelivered,
 * 6 % failed (none queued or scheduled, which the workers would take meanwhile), markets AU 70 %,
 * NZ 15 %, SG 10 %, GB 5 %, 20 Sender IDs, a reference on 30 %, and 60 % in batches of about
 * 1,000 of one account. Each filter's value is one the data holds: the filters select the same
 * share at both sizes, the reference one row, a batch about 1,000, the date range one day.
 *
 * What is timed: the request on `sendline serve --demo` as served (its workers asleep: a poll a
 * day), both sizes' servers running at once, from the bench's process, as the demo account. For
 * each row: the fiftieth page's cursor found by following `next_cursor` 49 times, 20 untimed
 * requests, then timed requests alternating between the sizes, at least 200 (at least 10 when they
 * take more than 20 s), and more up to 2,000 while the row has taken less than 3 s.
 *
 * Environment: BENCH_MSGLIST_SIZES (default `10000,1000000`: the smallest and largest compared),
 * BENCH_BATCH_STORES (`sqlite`, `pg`, default both), TEST_DATABASE_URL.
 */
import { Demo } from "@sendline/core"
import {
  demoKey,
  type FreshDatabase,
  getJson,
  percentile,
  sendlineServe,
  type StoreTarget,
  storeTargets
} from "./batch-kit.js"
import { idAt, messageRow, pgWriter, sqliteWriter, type Writer } from "./message-rows.js"
import { type RunningServer, startServer } from "./servers.js"

const sizes = (process.env["BENCH_MSGLIST_SIZES"] ?? "10000,1000000").split(",").map(Number)
const LIST_PATH = "/v1/messaging/messages"
const warmups = 20
const minRuns = 200
const maxRuns = 2000
const slowMs = 20_000
const fastMs = 3_000
const DAY = 86_400_000
const ACCOUNTS = 10
const SLICE = 10_000

/** The values each filter is timed with, from the data of one size. */
interface Probes {
  readonly reference: string
  readonly batchId: string
  readonly from: number
}

/** One row of the table: its query on top of `page_size=50`, and its SQL to count the demo account's rows it selects. */
interface Case {
  readonly name: string
  readonly query: (probes: Probes) => string
  readonly where: (probes: Probes) => string
  readonly page: number
  /** A column the store must have for the row to be timed. */
  readonly needs?: string
}

const iso = (millis: number) => new Date(millis).toISOString()

const cases: ReadonlyArray<Case> = [
  { name: "none, page 1", query: () => "", where: () => "TRUE", page: 1 },
  { name: "none, page 50", query: () => "", where: () => "TRUE", page: 50 },
  { name: "status (failed, 6 %)", query: () => "status=failed", where: () => "status = 'failed'", page: 1 },
  { name: "market (NZ, 15 %)", query: () => "market=NZ", where: () => "market = 'NZ'", page: 1 },
  { name: "sender_id (1 of 20)", query: () => "sender_id=Brand07", where: () => "sender_id = 'Brand07'", page: 1 },
  {
    name: "reference (1 row)",
    query: (p) => `reference=${p.reference}`,
    where: (p) => `reference = '${p.reference}'`,
    page: 1
  },
  {
    name: "from/to (one day)",
    query: (p) => `from=${encodeURIComponent(iso(p.from))}&to=${encodeURIComponent(iso(p.from + DAY - 1))}`,
    where: (p) => `created_at >= ${p.from} AND created_at <= ${p.from + DAY - 1}`,
    page: 1
  },
  {
    name: "batch_id (~1,000)",
    query: (p) => `batch_id=${p.batchId}`,
    where: (p) => `batch_id = '${p.batchId}'`,
    page: 1,
    needs: "batch_id"
  }
]

// ---------------------------------------------------------------------------------------------
// the data
// ---------------------------------------------------------------------------------------------

/** A deterministic pseudo-random number in [0, 1) for `i` and `salt` (an integer hash). */
const unit = (i: number, salt: number) => {
  let h = (i * 2654435761 + salt * 40503) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

const pick = <A>(u: number, weighted: ReadonlyArray<readonly [A, number]>): A => {
  let sum = 0
  for (const [value, weight] of weighted) if (u < (sum += weight)) return value
  return weighted.at(-1)![0]
}

const statuses = [["delivered", 0.82], ["sent", 0.05], ["undelivered", 0.07], ["failed", 0.06]] as const
const markets = [["AU", 0.7], ["NZ", 0.15], ["SG", 0.1], ["GB", 0.05]] as const
const prefixes: Record<string, string> = { AU: "+6141", NZ: "+6421", SG: "+659", GB: "+447700" }

/**
 * Writes `size` messages through `writer` (a migrated database whose demo account is `demo`),
 * with nine more accounts, and returns the probes of the demo account's data.
 */
const fill = async (writer: Writer, demo: string, size: number, store: StoreTarget["name"]): Promise<Probes> => {
  const accountColumns = await writer.columns("sendline_accounts")
  const accounts = [demo]
  for (let n = 1; n < ACCOUNTS; n++) {
    const id = `acct_msglistbench${n}`
    const cells = accountColumns.map((c) =>
      c === "id" ? `'${id}'` : c === "name" || c === "admin_email" ? `${c} || '.${n}'` : c
    )
    await writer.run(
      `INSERT INTO sendline_accounts (${accountColumns.join(", ")}) SELECT ${
        cells.join(", ")
      } FROM sendline_accounts WHERE id = '${demo}'`
    )
    accounts.push(id)
  }
  const indexes = store === "SQLite"
    ? await writer.query(`SELECT name, sql AS definition FROM sqlite_master
        WHERE type = 'index' AND tbl_name = 'sendline_messages' AND sql IS NOT NULL`)
    : await writer.query(`SELECT i.indexname AS name, i.indexdef AS definition
        FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = current_schema()::regnamespace
        WHERE i.schemaname = current_schema() AND i.tablename = 'sendline_messages'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)`)
  for (const index of indexes) await writer.run(`DROP INDEX ${String(index["name"])}`)

  const start = Date.now() - 91 * DAY
  const span = 90 * DAY
  const middle = Math.floor(size / 2)
  let reference: string | undefined
  let batchId: string | undefined
  const batchOf = new Map<string, string>()
  const rowOf = (i: number) => {
    const createdAt = start + Math.floor((i * span) / size)
    const a = unit(i, 1) < 0.5 ? 0 : 1 + Math.floor(unit(i, 2) * (ACCOUNTS - 1))
    const block = Math.floor(i / 2000)
    const batched = block % 5 < 3
    const key = `${block}:${a}`
    let batch: string | null = null
    if (batched) {
      batch = batchOf.get(key) ?? idAt("bat", createdAt)
      batchOf.set(key, batch)
    }
    const market = pick(unit(i, 3), markets)
    const ref = unit(i, 4) < 0.3 ? `ref-${i}` : null
    if (a === 0 && i >= middle) {
      if (reference === undefined && ref !== null) reference = ref
      if (batchId === undefined && batch !== null) batchId = batch
    }
    return messageRow(idAt("msg", createdAt), {
      accountId: accounts[a]!,
      status: pick(unit(i, 5), statuses),
      to: `${prefixes[market]}${String(i % 1_000_000).padStart(6, "0")}`,
      senderId: `Brand${String(Math.floor(unit(i, 6) * 20)).padStart(2, "0")}`,
      market,
      reference: ref,
      createdAt,
      batchId: batch
    })
  }
  // two writers at once on PostgreSQL (its pool has two connections), one on SQLite
  const lanes = store === "SQLite" ? 1 : 2
  let next = 0
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < size) {
      const from = next
      next = Math.min(size, next + SLICE)
      const messages = Array.from({ length: next - from }, (_, k) => rowOf(from + k))
      await writer.write([{ messages, events: [] }])
    }
  }))
  for (const index of indexes) await writer.run(String(index["definition"]))
  if (store === "PostgreSQL") await writer.run("VACUUM ANALYZE sendline_messages")
  return { reference: reference!, batchId: batchId ?? "bat_none", from: start + 45 * DAY }
}

/** One store's database of one size, filled, with its server started as served. */
interface Prepared {
  readonly size: number
  readonly db: FreshDatabase
  readonly server: RunningServer
  readonly key: string
  readonly probes: Probes
  readonly hasBatchId: boolean
  /** How many of the demo account's messages each case selects. */
  readonly selected: ReadonlyArray<number>
  readonly madeSeconds: number
}

const serve = (target: StoreTarget, db: FreshDatabase, size: number) =>
  startServer(sendlineServe(`${target.name} ${size}`, { ...db.env, WORKER_POLL_MS: String(DAY) }))

const prepare = async (target: StoreTarget, size: number): Promise<Prepared> => {
  const started = performance.now()
  const db = await target.database()
  try {
    const first = await serve(target, db, size)
    try {
      await demoKey(first)
    } finally {
      await first.stop()
    }
    const writer = target.name === "SQLite" ? sqliteWriter(db.location) : await pgWriter(db.location, 2)
    let probes: Probes
    let hasBatchId: boolean
    let selected: Array<number>
    try {
      const demo = Demo.accountId
      hasBatchId = (await writer.columns("sendline_messages")).includes("batch_id")
      probes = await fill(writer, demo, size, target.name)
      selected = []
      for (const c of cases) {
        if (c.needs !== undefined && !hasBatchId) {
          selected.push(NaN)
          continue
        }
        const [row] = await writer.query(
          `SELECT count(*) AS n FROM sendline_messages WHERE account_id = '${demo}' AND ${c.where(probes)}`
        )
        selected.push(Number(row!["n"]))
      }
    } finally {
      await writer.close()
    }
    const server = await serve(target, db, size)
    const key = await demoKey(server)
    return {
      size,
      db,
      server,
      key,
      probes,
      hasBatchId,
      selected,
      madeSeconds: (performance.now() - started) / 1000
    }
  } catch (error) {
    await db.drop()
    throw error
  }
}

// ---------------------------------------------------------------------------------------------
// the timing
// ---------------------------------------------------------------------------------------------

type Timing =
  | { readonly _tag: "Timed"; readonly p50: number; readonly p99: number; readonly samples: number }
  | { readonly _tag: "Skipped"; readonly reason: string }

interface Page {
  readonly data: ReadonlyArray<unknown>
  readonly pagination: { readonly next_cursor: string | null }
}

/** The path of `c` on `p`, at its page's cursor (followed `page - 1` times). */
const pathOf = async (p: Prepared, c: Case): Promise<string> => {
  const base = `${LIST_PATH}?page_size=50${c.query(p.probes) === "" ? "" : `&${c.query(p.probes)}`}`
  let path = base
  for (let n = 1; n < c.page; n++) {
    const page = await getJson<Page>(p.server.origin, p.key, path)
    if (page.pagination.next_cursor === null) throw new Error(`${c.name}: only ${n} pages`)
    path = `${base}&cursor=${encodeURIComponent(page.pagination.next_cursor)}`
  }
  return path
}

/** Times every case on every size's server, alternating between them. */
const measure = async (prepared: ReadonlyArray<Prepared>): Promise<Array<Array<Timing>>> => {
  const timings: Array<Array<Timing>> = prepared.map(() => [])
  for (const c of cases) {
    const live = prepared.map((p) => c.needs === undefined || p.hasBatchId)
    const paths: Array<string> = []
    for (const [i, p] of prepared.entries()) {
      if (!live[i]) {
        paths.push("")
        continue
      }
      paths.push(await pathOf(p, c))
      for (let n = 0; n < warmups; n++) await getJson<Page>(p.server.origin, p.key, paths[i]!)
    }
    const samples: Array<Array<number>> = prepared.map(() => [])
    const started = performance.now()
    const more = (n: number, elapsed: number) =>
      n < maxRuns && (n < 10 || (n < minRuns && elapsed < slowMs) || elapsed < fastMs)
    for (let n = 0; more(n, performance.now() - started); n++) {
      for (const [i, p] of prepared.entries()) {
        if (!live[i]) continue
        const start = performance.now()
        const page = await getJson<Page>(p.server.origin, p.key, paths[i]!)
        samples[i]!.push(performance.now() - start)
        if (page.data.length === 0) throw new Error(`${c.name}: an empty page at ${p.size}`)
      }
    }
    prepared.forEach((_, i) => {
      const sorted = samples[i]!.sort((a, b) => a - b)
      timings[i]!.push(
        live[i]
          ? { _tag: "Timed", p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), samples: sorted.length }
          : { _tag: "Skipped", reason: "no batch_id column (0022_batches not migrated)" }
      )
    })
  }
  return timings
}

// ---------------------------------------------------------------------------------------------
// the table
// ---------------------------------------------------------------------------------------------

const label = (size: number) =>
  size >= 1_000_000 && size % 1_000_000 === 0
    ? `${size / 1_000_000}M`
    : size >= 1000 && size % 1000 === 0
    ? `${size / 1000}k`
    : size.toLocaleString("en")

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0))

const cell = (t: Timing | undefined) =>
  t === undefined ? "—" : t._tag === "Skipped" ? "skipped" : `${ms(t.p50)} / ${ms(t.p99)}`

/** Prints a store's table of the smallest and largest size; returns the rows that missed the target. */
const print = (store: string, small: Prepared, large: Prepared, ts: ReadonlyArray<ReadonlyArray<Timing>>) => {
  const [a, b] = ts
  console.log(
    `\n  ${store} (made in ${small.madeSeconds.toFixed(0)} s and ${large.madeSeconds.toFixed(0)} s)\n  ${
      "filter".padEnd(24)
    }${"demo account's rows".padStart(22)}  ${`${label(small.size)} p50 / p99 ms`.padStart(18)}${
      `${label(large.size)} p50 / p99 ms`.padStart(18)
    }${"p99 ratio".padStart(11)}`
  )
  const missed: Array<string> = []
  cases.forEach((c, i) => {
    const [x, y] = [a![i], b![i]]
    const ratio = x?._tag === "Timed" && y?._tag === "Timed" ? y.p99 / x.p99 : undefined
    if (ratio === undefined ? x?._tag !== "Skipped" : ratio > 2) {
      missed.push(`${store} ${c.name}${ratio === undefined ? "" : ` ${ratio.toFixed(1)}×`}`)
    }
    const counts = [small.selected[i]!, large.selected[i]!].map((n) => Number.isNaN(n) ? "?" : n.toLocaleString("en"))
      .join(" / ")
    const shown = ratio === undefined ? "—  " : `${ratio.toFixed(2)} ${ratio <= 2 ? "PASS" : "MISS"}`
    console.log(
      `  ${c.name.padEnd(24)}${counts.padStart(22)}  ${cell(x).padStart(18)}${cell(y).padStart(18)}${
        shown.padStart(11)
      }`
    )
  })
  return missed
}

/**
 * Runs the message list bench on SQLite and, when a server answers, PostgreSQL: per store, a
 * database of the smallest and of the largest size, timed side by side.
 *
 * @since 0.3.0
 */
export async function runMessageListBench(): Promise<ReadonlyArray<string>> {
  const small = Math.min(...sizes)
  const large = Math.max(...sizes)
  console.log(
    `GET ${LIST_PATH} (a page of 50, the demo account's, which holds half the table) on sendline serve --demo ` +
      `as served,\nat ${label(small)} and ${label(large)} messages; per row and size, ${warmups} untimed requests, ` +
      `then ${minRuns} to ${maxRuns} timed,\nalternating between the sizes. Target: p99 at ${label(large)} ≤ 2 × p99 ` +
      `at ${label(small)} on every row.`
  )
  const missed: Array<string> = []
  for (const target of await storeTargets()) {
    const prepared: Array<Prepared> = []
    try {
      for (const size of [small, large]) prepared.push(await prepare(target, size))
      const timings = await measure(prepared)
      for (const row of print(target.name, prepared[0]!, prepared[1]!, timings)) missed.push(row)
    } finally {
      for (const p of prepared) {
        await p.server.stop()
        await p.db.drop()
      }
    }
  }
  console.log(
    `\n  p99 ratio: at ${label(large)} ÷ at ${label(small)}; target ≤ 2 on every row: ${
      missed.length === 0 ? "PASS" : `MISS (${missed.join("; ")})`
    }`
  )
  return missed
}
