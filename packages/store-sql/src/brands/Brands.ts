/**
 * `BrandStore` on SQL: the tables `sendline_brands` and `sendline_brand_relationships`, a brand
 * written with its relationship, its events (`Events`) and its mails (`Mails`) in one transaction
 * (the outbox), its status and its relationship's moved only from the status stored. A
 * relationship's `idempotency_key` is unique per provider (`Migrations.brandIdempotencyKeys`). A
 * provider's brands an hour are counted in the insert's transaction, its account row held
 * (`Accounts.lock`); a change that reopens a relationship writes it, the brand and the mail together.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Account, Brand, BrandStore, Contact, Idempotency } from "@sendline/core"
import type { Event, Pagination } from "@sendline/core"
import type { Context } from "effect"
import { Effect, Option, Schema } from "effect"
import * as Accounts from "../accounts/Accounts.js"
import type * as Database from "../Database.js"
import * as Events from "../Events.js"
import * as Mails from "../mail/Mails.js"
import * as Migrations from "../Migrations.js"
import * as Rows from "../Rows.js"

/** `sendline_brands`: a brand per row, its contact as JSON. @since 0.1.0 @category tables */
export const brands = Rows.table<Brand.Brand>()(
  "sendline_brands",
  Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    identifierType: Rows.column("identifier_type", Schema.String),
    identifierValue: Rows.column("identifier_value", Schema.String),
    market: Schema.String,
    status: Brand.BrandStatus,
    contact: Schema.parseJson(Contact.Contact),
    website: Rows.nullable(Schema.String),
    createdAt: Rows.column("created_at", Rows.Int8)
  })
)

/** A row of `sendline_brand_relationships`: the provider in three columns. */
const RelationshipRow = Schema.Struct({
  id: Schema.String,
  brand_id: Schema.String,
  provider_account_id: Schema.String,
  provider_name: Schema.String,
  provider_type: Account.AccountType,
  status: Brand.RelationshipStatus,
  created_at: Rows.Int8,
  decided_at: Schema.NullOr(Rows.Int8),
  idempotency_key: Schema.NullOr(Schema.String)
})

/** `sendline_brand_relationships`: a relationship per row, one per brand. @since 0.1.0 @category tables */
export const relationships = Rows.table<Brand.BrandRelationship>()(
  "sendline_brand_relationships",
  Schema.transform(RelationshipRow, Schema.typeSchema(Brand.BrandRelationship), {
    strict: true,
    decode: (row) => ({
      id: row.id,
      brandId: row.brand_id,
      provider: { accountId: row.provider_account_id, name: row.provider_name, type: row.provider_type },
      status: row.status,
      createdAt: row.created_at,
      ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
      ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key })
    }),
    encode: (r) => ({
      id: r.id,
      brand_id: r.brandId,
      provider_account_id: r.provider.accountId,
      provider_name: r.provider.name,
      provider_type: r.provider.type,
      status: r.status,
      created_at: r.createdAt,
      decided_at: r.decidedAt ?? null,
      idempotency_key: r.idempotencyKey ?? null
    })
  })
)

/**
 * Fails `SubmissionLimitReached` when `accountId` created `limit.max` relationships at or after
 * `limit.since`. Run first in the insert's transaction: it holds the provider's account row
 * (`Accounts.lock`), so that one provider's inserts count one after another across processes.
 * The `status IN` lets the provider's index
 * `(provider_account_id, status, created_at, id)` read the window of each status.
 */
const withinLimit = (
  sql: SqlClient.SqlClient,
  accountId: string,
  limit: BrandStore.SubmissionLimit
): Effect.Effect<void, BrandStore.SubmissionLimitReached | SqlError> =>
  Effect.gen(function*() {
    yield* Accounts.lock(sql, accountId)
    const [row] = yield* sql<{ readonly count: number | string; readonly oldest: number | string | null }>`
      SELECT COUNT(*) AS count, MIN(created_at) AS oldest FROM sendline_brand_relationships
      WHERE provider_account_id = ${accountId} AND status IN ('pending', 'approved', 'rejected')
        AND created_at >= ${limit.since}`
    if (row !== undefined && Number(row.count) >= limit.max) {
      return yield* new BrandStore.SubmissionLimitReached({ accountId, oldestAt: Number(row.oldest) })
    }
  })

/**
 * `BrandStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { dialect, read, sql, transaction, unavailable, write }: Database.Database
): Effect.Effect<Context.Tag.Service<BrandStore.BrandStore>> => {
  /** The brands of `ids`, by id. */
  const brandsById = (ids: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, Brand.Brand>, SqlError> =>
    ids.length === 0
      ? Effect.succeed(new Map())
      : Effect.map(
        Effect.flatMap(sql`SELECT * FROM sendline_brands WHERE id IN ${sql.in(ids)}`, brands.decode),
        (found) => new Map(found.map((brand) => [brand.id, brand]))
      )

  /** Each relationship with its brand (every relationship has one: a foreign key). */
  const linked = (rows: ReadonlyArray<Brand.BrandRelationship>): Effect.Effect<ReadonlyArray<Brand.Linked>, SqlError> =>
    Effect.map(brandsById([...new Set(rows.map((r) => r.brandId))]), (byId) =>
      rows.flatMap((relationship) => {
        const brand = byId.get(relationship.brandId)
        return brand === undefined ? [] : [{ brand, relationship }]
      }))

  /** The one relationship `where` selects, with its brand. */
  const findLinked = (where: Statement.Statement<unknown>) =>
    read(Effect.map(
      Effect.flatMap(
        Effect.flatMap(sql`SELECT * FROM sendline_brand_relationships WHERE ${where}`, relationships.decode),
        linked
      ),
      (found) => Option.fromNullable(found[0])
    ))

  /** The ids of the brands whose identifier `accountId` owns: its brands as their Brand Owner. */
  const ownedBrandIds = (accountId: string) =>
    sql`SELECT b.id FROM sendline_brands b JOIN sendline_owned_identifiers o
      ON o.identifier_type = b.identifier_type AND o.identifier_value = b.identifier_value
      WHERE o.account_id = ${accountId}`

  const before = (after: Option.Option<Pagination.Keyset>) =>
    Option.match(after, {
      onNone: () => sql`1 = 1`,
      onSome: (keyset) => sql`(created_at, id) < (${keyset.createdAt}, ${keyset.id})`
    })

  /** Runs `moves` in order: each UPDATE of one row while it is still `from`, then `then` for those that moved. */
  const moveAll = <M>(
    moves: ReadonlyArray<M>,
    update: (move: M) => Effect.Effect<ReadonlyArray<unknown>, SqlError>,
    then: (move: M) => Effect.Effect<unknown, SqlError>
  ) =>
    moves.length === 0 ?
      Effect.succeed([]) :
      transaction(Effect.forEach(moves, (move) =>
        Effect.flatMap(update(move), (rows) =>
          rows.length === 0 ? Effect.succeed(false) : Effect.as(then(move), true))))

  return Effect.succeed(BrandStore.BrandStore.of({
    // A transaction on both databases: the brand with everything written with it, or nothing.
    insert: (brand, relationship, written, mails, limit) =>
      sql.withTransaction(Effect.all([
        limit === undefined ? Effect.void : withinLimit(sql, relationship.provider.accountId, limit),
        sql`INSERT INTO sendline_brands ${sql.insert(brands.encode(brand))}`,
        sql`INSERT INTO sendline_brand_relationships ${sql.insert(relationships.encode(relationship))}`,
        written.length === 0 ? Effect.void : Events.insert(sql, written),
        Mails.insert(sql, mails)
      ], { discard: true })).pipe(
        Effect.mapError((error) => {
          if (error._tag === "SubmissionLimitReached") return error
          const { idempotencyKey, provider } = relationship
          return idempotencyKey !== undefined && dialect.isUniqueViolation(error, Migrations.brandIdempotencyKeys)
            ? new Idempotency.IdempotencyKeyTaken({ accountId: provider.accountId, key: idempotencyKey })
            : unavailable(error)
        })
      ),
    findById: (id) => findLinked(sql`brand_id = ${id}`),
    findByIdempotencyKey: (accountId, key, since) =>
      findLinked(sql`provider_account_id = ${accountId} AND idempotency_key = ${key} AND created_at >= ${since}`),
    releaseIdempotencyKey: (accountId, key, before) =>
      write(Effect.asVoid(sql`UPDATE sendline_brand_relationships SET idempotency_key = NULL
        WHERE provider_account_id = ${accountId} AND idempotency_key = ${key} AND created_at < ${before}`)),
    findRelationship: (id) => findLinked(sql`id = ${id}`),
    update: (brand, reopen) => {
      const row = brands.encode(brand)
      const change = sql`UPDATE sendline_brands
        SET name = ${row.name}, contact = ${row.contact}, website = ${row.website ?? null} WHERE id = ${row.id}`
      if (reopen === undefined) return write(Effect.as(change, true))
      // the relationship first: only a change that reopens it is written, with its mails
      return transaction(Effect.flatMap(
        sql`UPDATE sendline_brand_relationships SET status = 'pending', decided_at = NULL
          WHERE id = ${reopen.relationshipId} AND status = 'approved' RETURNING id`,
        (reopened) =>
          reopened.length === 0
            ? Effect.succeed(false)
            : Effect.as(Effect.all([change, Mails.insert(sql, reopen.mails)]), true)
      ))
    },
    transition: (moves) =>
      moveAll(
        moves,
        ({ from, next }) =>
          sql`UPDATE sendline_brands SET status = ${next.status} WHERE id = ${next.id} AND status = ${from} RETURNING id`,
        ({ event }) =>
          Option.match(event, { onNone: () => Effect.void, onSome: (e: Event.Event) => Events.insert(sql, [e]) })
      ),
    transitionRelationships: (moves) =>
      moveAll(
        moves,
        ({ from, next }) =>
          sql`UPDATE sendline_brand_relationships SET status = ${next.status}, decided_at = ${next.decidedAt ?? null}
            WHERE id = ${next.id} AND status = ${from} RETURNING id`,
        () => Effect.void
      ),
    list: (accountId, after, limit) =>
      read(Effect.flatMap(
        sql`SELECT * FROM sendline_brands WHERE id IN (
            SELECT brand_id FROM sendline_brand_relationships WHERE provider_account_id = ${accountId} AND status = 'approved'
            UNION ${ownedBrandIds(accountId)}
          ) AND ${before(after)}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        brands.decode
      )),
    listRelationships: (accountId, filter, after, limit) =>
      read(Effect.flatMap(
        Effect.flatMap(
          sql`SELECT * FROM sendline_brand_relationships
            WHERE (provider_account_id = ${accountId} OR brand_id IN (${ownedBrandIds(accountId)}))
              AND ${filter.status === undefined ? sql`1 = 1` : sql`status = ${filter.status}`} AND ${before(after)}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
          relationships.decode
        ),
        linked
      ))
  }))
}
