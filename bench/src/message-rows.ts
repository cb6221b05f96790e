/**
 * Messages, their events and batches as the store writes them (`sendline_messages`,
 * `sendline_events`, `sendline_batches`), written straight through the store's drivers
 * (better-sqlite3, node-postgres) with no Sendline code between: the batch bench's "durable limit
 * of this machine" and the message list bench's fill. Each table's columns are read from the
 * migrated database, so that a column the rows do not know (a later migration's) is written NULL
 * as an insert of the store leaves it; the statements are the store's, multi-row INSERTs of at most
 * 256 rows (`Database.batchLimit`), a batch's messages, their events and its record in one
 * transaction.
 */
import { createRequire } from "node:module"

/** A row: its cells by column name; a column it does not name is written NULL. */
type Row = Readonly<Record<string, string | number | null>>

/** What one transaction writes. */
export interface Write {
  readonly messages: ReadonlyArray<Row>
  readonly events: ReadonlyArray<Row>
  /** The batch's record, when the store has batches. */
  readonly batch?: Row
}

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"
let sequence = 0

/**
 * A time-ordered id of `prefix` at `millis`, shaped as the store's (`msg_` and 26 characters of a
 * ULID), distinct within the process.
 */
export const idAt = (prefix: string, millis: number): string => {
  let time = ""
  for (let i = 0, t = millis; i < 10; i++, t = Math.floor(t / 32)) time = crockford[t % 32]! + time
  let random = ""
  for (let i = 0, n = sequence++; i < 6; i++, n = Math.floor(n / 32)) random = crockford[n % 32]! + random
  for (let i = 0; i < 10; i++) random += crockford[Math.floor(Math.random() * 32)]!
  return `${prefix}_${time}${random}`
}

/** A message's cells, as the store writes one that was just sent. */
export interface MessageCells {
  readonly accountId: string
  readonly status: string
  readonly to: string
  readonly senderId: string
  readonly market: string
  readonly reference: string | null
  readonly createdAt: number
  readonly batchId: string | null
}

const body = "Bench message"
const price = JSON.stringify({ amount: "0.0500", currency: "AUD" })

/** The row of a message with `cells` (one GSM-7 segment, no error). */
export const messageRow = (id: string, cells: MessageCells): Row => ({
  id,
  account_id: cells.accountId,
  status: cells.status,
  recipient: cells.to,
  sender_id: cells.senderId,
  body,
  segments: 1,
  encoding: "GSM-7",
  market: cells.market,
  reference: cells.reference,
  callback_url: null,
  price,
  error: null,
  created_at: cells.createdAt,
  scheduled_at: null,
  sent_at: cells.status === "sent" || cells.status === "delivered" ? cells.createdAt + 500 : null,
  delivered_at: cells.status === "delivered" ? cells.createdAt + 2500 : null,
  carrier_message_id: null,
  carrier: null,
  idempotency_key: null,
  batch_id: cells.batchId
})

/** The `message.queued` event of the message `row` (CONTRACT §3's event data). */
const queuedEvent = (row: Row): Row => ({
  id: idAt("evt", row["created_at"] as number),
  account_id: row["account_id"]!,
  type: "message.queued",
  subject_id: row["id"]!,
  created_at: row["created_at"]!,
  data: JSON.stringify({
    id: row["id"],
    status: "queued",
    to: row["recipient"],
    sender_id: row["sender_id"],
    market: row["market"],
    segments: 1,
    reference: row["reference"],
    created_at: new Date(row["created_at"] as number).toISOString()
  })
})

/** A batch of `count` messages to the numbers `+6141…` at `now`, as a batch request's write. */
export const batchWrite = (accountId: string, count: number, now: number): Write => {
  const batchId = idAt("bat", now)
  const messages = Array.from({ length: count }, (_, i) =>
    messageRow(idAt("msg", now), {
      accountId,
      status: "queued",
      to: `+6141${String(i).padStart(7, "0")}`,
      senderId: "Sendline",
      market: "AU",
      reference: null,
      createdAt: now,
      batchId
    }))
  return {
    messages,
    events: messages.map(queuedEvent),
    batch: {
      id: batchId,
      account_id: accountId,
      accepted: count,
      rejected: 0,
      results: JSON.stringify(messages.map((m, index) => ({ index, id: m["id"], status: "queued" }))),
      idempotency_key: null,
      request_digest: null,
      created_at: now
    }
  }
}

/** The store's statement size: at most this many rows per INSERT. */
const chunkRows = 256

const chunks = <A>(rows: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < rows.length; i += chunkRows) out.push(rows.slice(i, i + chunkRows))
  return out
}

/** A multi-row INSERT of `rows` into `table` with `columns`, its parameters written by `mark`. */
const insertOf = (
  table: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<Row>,
  mark: (n: number) => string
) => {
  const params: Array<string | number | null> = []
  const tuples = rows.map((row) =>
    `(${
      columns.map((column) => {
        params.push(row[column] ?? null)
        return mark(params.length)
      }).join(", ")
    })`
  )
  return { text: `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${tuples.join(", ")}`, params }
}

/** The tables a write fills. */
const tables = { messages: "sendline_messages", events: "sendline_events", batch: "sendline_batches" } as const

/** Each table's columns as the migrated database has them (the batch table's empty when there is none). */
type Columns = Readonly<Record<keyof typeof tables, ReadonlyArray<string>>>

// the store's own columns, which no inserted row sets
const storeOnly = new Set(["claimed_until", "fanned_out_at"])

/** The little of better-sqlite3 the writers use. */
interface SqliteDatabase {
  prepare(text: string): {
    run(...params: ReadonlyArray<unknown>): unknown
    all(...params: ReadonlyArray<unknown>): Array<Record<string, unknown>>
  }
  pragma(text: string): unknown
  exec(text: string): unknown
  close(): void
}

/** A writer of `Write`s on one database. */
export interface Writer {
  /** Writes each of `writes` in a transaction of its own. */
  readonly write: (writes: ReadonlyArray<Write>) => Promise<void>
  /** Runs `text` and returns its rows. */
  readonly query: (text: string) => Promise<ReadonlyArray<Record<string, unknown>>>
  /** Runs `text`, a statement that returns no rows (DDL, an INSERT … SELECT). */
  readonly run: (text: string) => Promise<void>
  /** The columns of `table`, in order (the store's own `claimed_until` and `fanned_out_at` too). */
  readonly columns: (table: string) => Promise<ReadonlyArray<string>>
  readonly close: () => Promise<void>
}

/**
 * better-sqlite3 on the migrated file `filename`, set as the store sets its connection (WAL,
 * `synchronous` NORMAL, foreign keys on).
 */
export const sqliteWriter = (filename: string): Writer => {
  const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new(filename: string) => SqliteDatabase
  const db = new Sqlite(filename)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  db.pragma("foreign_keys = ON")
  const allColumns = (table: string) =>
    db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all().map((r) => String(r["name"]))
  const columnsOf = (table: string) => allColumns(table).filter((c) => !storeOnly.has(c))
  const columns: Columns = {
    messages: columnsOf(tables.messages),
    events: columnsOf(tables.events),
    batch: columnsOf(tables.batch)
  }
  const statements = new Map<string, ReturnType<SqliteDatabase["prepare"]>>()
  const run = (table: keyof typeof tables, rows: ReadonlyArray<Row>) => {
    for (const chunk of chunks(rows)) {
      const { params, text } = insertOf(tables[table], columns[table], chunk, () => "?")
      let statement = statements.get(text)
      if (statement === undefined) statements.set(text, statement = db.prepare(text))
      statement.run(...params)
    }
  }
  return {
    write: async (writes) => {
      for (const w of writes) {
        db.exec("BEGIN IMMEDIATE")
        try {
          run("messages", w.messages)
          run("events", w.events)
          if (w.batch !== undefined && columns.batch.length > 0) run("batch", [w.batch])
          db.exec("COMMIT")
        } catch (error) {
          db.exec("ROLLBACK")
          throw error
        }
      }
    },
    query: async (text) => db.prepare(text).all(),
    run: async (text) => {
      db.exec(text)
    },
    columns: async (table) => allColumns(table),
    close: async () => db.close()
  }
}

/** The little of node-postgres the writers use. */
interface PgClient {
  query(text: string, params?: ReadonlyArray<unknown>): Promise<{ rows: Array<Record<string, unknown>> }>
  release(): void
}
interface PgPool {
  connect(): Promise<PgClient>
  query(text: string, params?: ReadonlyArray<unknown>): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}

/**
 * node-postgres on the migrated schema of `url` (its `search_path` in the URL's `options`, as
 * `TestDatabase.withSchema` writes it), a pool of `connections`: writes run on as many at once.
 */
export const pgWriter = async (url: string, connections: number): Promise<Writer> => {
  const pg = createRequire(import.meta.url)("pg") as {
    Pool: new(config: { connectionString: string; max: number }) => PgPool
  }
  const pool = new pg.Pool({ connectionString: url, max: connections })
  const allColumns = async (table: string) =>
    (await pool.query(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table]
    )).rows.map((r) => String(r["column_name"]))
  const columnsOf = async (table: string) => (await allColumns(table)).filter((c) => !storeOnly.has(c))
  const columns: Columns = {
    messages: await columnsOf(tables.messages),
    events: await columnsOf(tables.events),
    batch: await columnsOf(tables.batch)
  }
  const writeOne = async (w: Write) => {
    const client = await pool.connect()
    const run = async (table: keyof typeof tables, rows: ReadonlyArray<Row>) => {
      for (const chunk of chunks(rows)) {
        const { params, text } = insertOf(tables[table], columns[table], chunk, (n) => `$${n}`)
        await client.query(text, params)
      }
    }
    try {
      await client.query("BEGIN")
      await run("messages", w.messages)
      await run("events", w.events)
      if (w.batch !== undefined && columns.batch.length > 0) await run("batch", [w.batch])
      await client.query("COMMIT")
    } catch (error) {
      await client.query("ROLLBACK")
      throw error
    } finally {
      client.release()
    }
  }
  return {
    write: async (writes) => {
      for (const w of writes) await writeOne(w)
    },
    query: async (text) => (await pool.query(text)).rows,
    run: async (text) => {
      await pool.query(text)
    },
    columns: allColumns,
    close: () => pool.end()
  }
}
