/**
 * The operator registrations of `SenderIdStore` on SQL: the table `sendline_operator_registrations`,
 * one row per registration of a Sender ID record with a network, written with its record (see
 * `SenderIds`), and the operators' list of them.
 *
 * The list is always one network's in some markets, newest first, a page at a time: each market's
 * rows are an index range that ends in (submitted_at, id) by every filter but the text ones (see
 * `0012_sender_id_registrations`). The Sender ID and brand name filters are substrings in any case,
 * every character literal: `Migrations.registrationSearch`, the text index, finds the few rows
 * holding a rare text, and the ordered index serves a common one, where a page fills within a few
 * rows; which of the two is each store's `Dialect.textCandidates` (its planner, or the store).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Registration, SenderId } from "@sendline/core"
import type { Pagination, SenderIdStore } from "@sendline/core"
import { Array as Arr, Effect, Option, Schema } from "effect"
import * as Database from "../Database.js"
import * as Migrations from "../Migrations.js"
import * as Rows from "../Rows.js"

/** A row of `sendline_operator_registrations`: the brand and the submitter in columns of their own. */
const RegistrationRow = Schema.Struct({
  id: Schema.String,
  sid_id: Schema.String,
  network: Schema.String,
  market: Schema.String,
  sender_id: Schema.String,
  brand_id: Schema.String,
  brand_name: Schema.String,
  identifier_type: Schema.String,
  identifier_value: Schema.String,
  status: Registration.RegistrationStatus,
  use_case: Schema.String,
  match_type: SenderId.MatchType,
  match_value: Schema.String,
  submitter_account_id: Schema.String,
  submitter_type: Registration.SubmitterType,
  submitter_name: Schema.String,
  submitted_at: Rows.Int8,
  decided_at: Schema.NullOr(Rows.Int8),
  reason: Schema.NullOr(Schema.String),
  message: Schema.NullOr(Schema.String)
})

/** `sendline_operator_registrations`: an operator registration per row. @since 0.1.0 @category tables */
export const registrations = Rows.table<Registration.Registration>()(
  Migrations.registrationSearch.table,
  Schema.transform(RegistrationRow, Schema.typeSchema(Registration.Registration), {
    strict: true,
    decode: (row) => ({
      id: row.id,
      sidId: row.sid_id,
      network: row.network,
      market: row.market,
      senderId: row.sender_id,
      brand: {
        id: row.brand_id,
        name: row.brand_name,
        identifierType: row.identifier_type,
        identifierValue: row.identifier_value
      },
      status: row.status,
      useCase: row.use_case,
      matchType: row.match_type,
      matchValue: row.match_value,
      submittedBy: { accountId: row.submitter_account_id, type: row.submitter_type, name: row.submitter_name },
      submittedAt: row.submitted_at,
      ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
      ...(row.reason === null ? {} : { reason: row.reason }),
      ...(row.message === null ? {} : { message: row.message })
    }),
    encode: (r) => ({
      id: r.id,
      sid_id: r.sidId,
      network: r.network,
      market: r.market,
      sender_id: r.senderId,
      brand_id: r.brand.id,
      brand_name: r.brand.name,
      identifier_type: r.brand.identifierType,
      identifier_value: r.brand.identifierValue,
      status: r.status,
      use_case: r.useCase,
      match_type: r.matchType,
      match_value: r.matchValue,
      submitter_account_id: r.submittedBy.accountId,
      submitter_type: r.submittedBy.type,
      submitter_name: r.submittedBy.name,
      submitted_at: r.submittedAt,
      decided_at: r.decidedAt ?? null,
      reason: r.reason ?? null,
      message: r.message ?? null
    })
  })
)

/**
 * Inserts the registrations (none: nothing), in multi-row statements, on the connection of the
 * caller's transaction.
 *
 * @since 0.1.0
 * @category statements
 */
export const insert = (
  sql: SqlClient.SqlClient,
  written: ReadonlyArray<Registration.Registration>
): Effect.Effect<void, SqlError> =>
  Effect.forEach(
    Arr.chunksOf(written, Database.batchLimit),
    (chunk) => sql`INSERT INTO ${sql(registrations.name)} ${sql.insert(chunk.map(registrations.encode))}`,
    { discard: true }
  )

/**
 * Replaces the stored registration of `registration`'s id by it (every column but the keys), when
 * it is a registration of the record `sidId`; another record's is left as it is.
 *
 * @since 0.1.0
 * @category statements
 */
export const replace = (
  sql: SqlClient.SqlClient,
  sidId: string,
  registration: Registration.Registration
): Statement.Statement<object> => {
  const { id, sid_id, ...columns } = registrations.encode(registration)
  return sql`UPDATE ${sql(registrations.name)} SET ${sql.update(columns)} WHERE id = ${id} AND sid_id = ${sidId}`
}

/**
 * The registrations of the records `sidIds`, by record, each record's oldest first (ids are
 * time-ordered: in the order they were made, one per network).
 *
 * @since 0.1.0
 * @category queries
 */
export const ofRecords = (
  sql: SqlClient.SqlClient,
  sidIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<Registration.Registration>>, SqlError> =>
  Effect.map(
    Effect.forEach(Arr.chunksOf(sidIds, Database.batchLimit), (chunk) =>
      Effect.flatMap(
        sql`SELECT * FROM ${sql(registrations.name)} WHERE sid_id IN ${sql.in(chunk)} ORDER BY sid_id, id`,
        registrations.decode
      )),
    (chunks) => {
      const byRecord = new Map<string, Array<Registration.Registration>>()
      for (const registration of chunks.flat()) {
        const ofRecord = byRecord.get(registration.sidId)
        if (ofRecord === undefined) byRecord.set(registration.sidId, [registration])
        else ofRecord.push(registration)
      }
      return byRecord
    }
  )

/**
 * `text` as a LIKE pattern of the rows that contain it: `%`, `_` and the escape character `\`
 * taken literally.
 *
 * @since 0.1.0
 * @category patterns
 */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** How many characters a text must have for a trigram index to find it: three (one trigram). */
const trigram = 3

/**
 * The statement of one page of `SenderIdStore.listRegistrations`: for each market of the
 * operator's in scope, its newest `limit` rows by the filters, after `after`; the pages of several
 * markets merged, newest first. With a text filter, among the rows the text index finds when the
 * dialect says they are few (`Dialect.textCandidates`). None when no row can be selected: no market
 * in scope, or no row holding the text.
 *
 * @since 0.1.0
 * @category queries
 */
export const listStatement = (
  { dialect, sql }: Database.Database,
  filter: SenderIdStore.RegistrationFilter,
  after: Option.Option<Pagination.Keyset>,
  limit: number
): Effect.Effect<Option.Option<Statement.Statement<object>>, SqlError> =>
  Effect.gen(function*() {
    const markets = filter.market === undefined
      ? Arr.dedupe(filter.markets)
      : filter.markets.includes(filter.market)
      ? [filter.market]
      : []
    if (markets.length === 0) return Option.none()
    const terms: Array<Database.TextTerm> = []
    if (filter.senderId !== undefined) terms.push({ column: "sender_id", text: filter.senderId })
    if (filter.brandName !== undefined) terms.push({ column: "brand_name", text: filter.brandName })
    const where: Array<Statement.Fragment> = terms.map(({ column, text }) =>
      sql`${sql(column)} ${sql.literal(dialect.likeIgnoringCase)} ${containing(text)} ESCAPE '\\'`
    )
    if (filter.status !== undefined) where.push(sql`status = ${filter.status}`)
    if (filter.submitterType !== undefined) where.push(sql`submitter_type = ${filter.submitterType}`)
    if (filter.submittedAfter !== undefined) where.push(sql`submitted_at >= ${filter.submittedAfter}`)
    if (filter.submittedBefore !== undefined) where.push(sql`submitted_at < ${filter.submittedBefore}`)
    if (Option.isSome(after)) where.push(sql`(submitted_at, id) < (${after.value.createdAt}, ${after.value.id})`)
    const indexed = terms.filter(({ text }) => [...text].length >= trigram)
    const candidates = indexed.length === 0
      ? Option.none()
      : yield* dialect.textCandidates(Migrations.registrationSearch, indexed)
    if (Option.isSome(candidates)) {
      if (candidates.value.length === 0) return Option.none()
      where.push(sql`id IN ${sql.in(candidates.value)}`)
    }
    const page = (market: string) =>
      sql`SELECT * FROM ${sql(registrations.name)}
        WHERE network = ${filter.network} AND market = ${market} AND ${sql.and(where)}
        ORDER BY submitted_at DESC, id DESC LIMIT ${limit}`
    if (markets.length === 1) return Option.some(page(markets[0]!))
    const pages = markets.map((market, i) => sql`SELECT * FROM (${page(market)}) AS ${sql(`m${i}`)}`)
    return Option.some(sql`${sql.join(" UNION ALL ", false)(pages)} ORDER BY submitted_at DESC, id DESC LIMIT ${limit}`)
  })

/**
 * One page of `SenderIdStore.listRegistrations`.
 *
 * @since 0.1.0
 * @category queries
 */
export const list = (
  db: Database.Database,
  filter: SenderIdStore.RegistrationFilter,
  after: Option.Option<Pagination.Keyset>,
  limit: number
): Effect.Effect<ReadonlyArray<Registration.Registration>, SqlError> =>
  Effect.flatMap(
    listStatement(db, filter, after, limit),
    Option.match({
      onNone: () => Effect.succeed([]),
      onSome: (statement) => Effect.flatMap(statement, registrations.decode)
    })
  )
