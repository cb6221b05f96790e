/**
 * `IdempotencyStore` on SQL: the table `sendline_idempotency_keys`, keyed by (account_id, key).
 *
 * @since 0.1.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Errors, IdempotencyStore } from "@sendline/core"
import type { Context } from "effect"
import { Effect, Option, ParseResult, Schema } from "effect"
import type * as Database from "../Database.js"
import * as Rows from "../Rows.js"

/** A response kept as what recomputes it, as its JSON column holds it (its status has a column of its own). */
const Recompute = Schema.parseJson(IdempotencyStore.KeptRecompute.pipe(Schema.omit("_tag", "status")))

const Columns = Schema.Struct({
  accountId: Rows.column("account_id", Schema.String),
  key: Schema.String,
  fingerprint: Schema.String,
  createdAt: Rows.column("created_at", Rows.Int8),
  response_status: Schema.NullOr(Schema.Number),
  response_body: Schema.NullOr(Schema.String),
  response_recompute: Schema.NullOr(Recompute)
})

/** The response columns of a row, as their schemas read them. */
type ResponseColumns = Pick<typeof Columns.Type, "response_status" | "response_body" | "response_recompute">

/** The response columns of `response`: all NULL for none (the request runs). */
const responseColumns = (response: Option.Option<IdempotencyStore.StoredResponse>): ResponseColumns => {
  if (Option.isNone(response)) return { response_status: null, response_body: null, response_recompute: null }
  const kept = response.value
  return kept._tag === "Body"
    ? { response_status: kept.status, response_body: kept.body, response_recompute: null }
    : {
      response_status: kept.status,
      response_body: null,
      response_recompute: { requestId: kept.requestId, answeredAt: kept.answeredAt, digest: kept.digest }
    }
}

/** The response `columns` hold; undefined when they hold a status with neither a body nor a recompute, or both. */
const responseOf = (columns: ResponseColumns): Option.Option<IdempotencyStore.StoredResponse> | undefined => {
  const { response_body: body, response_recompute: recompute, response_status: status } = columns
  if (status === null) return body === null && recompute === null ? Option.none() : undefined
  if (body !== null) return recompute === null ? Option.some({ _tag: "Body", status, body }) : undefined
  return recompute === null ? undefined : Option.some({ _tag: "Recompute", status, ...recompute })
}

const encodeResponse = Schema.encodeSync(Columns.pick("response_status", "response_body", "response_recompute"))

/**
 * `sendline_idempotency_keys`: a key per row. Its response is three columns, all NULL while the
 * request runs; once it has answered, its status and either its body (kept whole) or, for an answer
 * too large to keep, what recomputes it (JSON: request id, time, digest).
 *
 * @since 0.1.0
 * @category tables
 */
export const idempotencyKeys = Rows.table<IdempotencyStore.IdempotencyRecord>()(
  "sendline_idempotency_keys",
  Schema.transformOrFail(
    Columns,
    Schema.typeSchema(Columns).pipe(
      Schema.omit("response_status", "response_body", "response_recompute"),
      Schema.extend(Schema.Struct({ response: Schema.OptionFromSelf(IdempotencyStore.StoredResponse) }))
    ),
    {
      strict: true,
      decode: ({ response_body, response_recompute, response_status, ...held }, _, ast) => {
        const response = responseOf({ response_body, response_recompute, response_status })
        return response === undefined
          ? ParseResult.fail(
            new ParseResult.Type(ast, response_status, "a response of a status and either a body or a recompute")
          )
          : ParseResult.succeed({ ...held, response })
      },
      encode: ({ response, ...held }) => ParseResult.succeed({ ...held, ...responseColumns(response) })
    }
  )
)

/**
 * `IdempotencyStore` on `db`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { sql, transaction, write }: Database.Database
): Effect.Effect<Context.Tag.Service<IdempotencyStore.IdempotencyStore>> => {
  /** Some(row) when `record` reserved nothing: the holder's row, or none when that row vanished. */
  const reserveOnce = (
    record: IdempotencyStore.IdempotencyRecord,
    cutoffs: IdempotencyStore.ReserveCutoffs
  ): Effect.Effect<Option.Option<Option.Option<IdempotencyStore.IdempotencyRecord>>, SqlError> =>
    Effect.flatMap(
      // One upsert claims the key, or takes over a stale row; RETURNING yields a row only when
      // this call wrote it. On PostgreSQL the primary key makes a concurrent insert of the same
      // key wait for the first and then take the conflict branch, which locks the holder's row
      // even when its WHERE is false: the read-back in the same transaction finds it, and no one
      // can release it meanwhile (SQLite's single writer gives the same).
      sql`INSERT INTO sendline_idempotency_keys ${
        sql.insert(idempotencyKeys.encode({ ...record, response: Option.none() }))
      }
          ON CONFLICT (account_id, key) DO UPDATE SET
            fingerprint = excluded.fingerprint, created_at = excluded.created_at,
            response_status = NULL, response_body = NULL, response_recompute = NULL
          WHERE sendline_idempotency_keys.created_at < ${cutoffs.expired}
            OR (sendline_idempotency_keys.response_status IS NULL
              AND sendline_idempotency_keys.created_at < ${cutoffs.abandoned}
              AND sendline_idempotency_keys.fingerprint = excluded.fingerprint)
          RETURNING key`,
      (written) =>
        written.length > 0
          ? Effect.succeed(Option.some(Option.none()))
          : Effect.map(
            Effect.flatMap(
              sql`SELECT * FROM sendline_idempotency_keys WHERE account_id = ${record.accountId} AND key = ${record.key}`,
              idempotencyKeys.decodeFirst
            ),
            Option.map(Option.some)
          )
    )

  // The reserve and its read-back must see each other: a transaction on both databases. An
  // empty read-back would mean the holder vanished between the two statements, which the row
  // lock rules out; it is still never reported as a reservation (that would run the request
  // twice): the reserve is tried again, a few times at most.
  const reserve = (
    record: IdempotencyStore.IdempotencyRecord,
    cutoffs: IdempotencyStore.ReserveCutoffs,
    attempts = 3
  ): Effect.Effect<Option.Option<IdempotencyStore.IdempotencyRecord>, Errors.StoreUnavailable> =>
    Effect.flatMap(
      transaction(reserveOnce(record, cutoffs)),
      Option.match({
        onSome: Effect.succeed,
        onNone: () =>
          attempts > 1
            ? reserve(record, cutoffs, attempts - 1)
            : Effect.fail(new Errors.StoreUnavailable({ message: "The idempotency key could not be reserved" }))
      })
    )

  return Effect.succeed(IdempotencyStore.IdempotencyStore.of({
    reserve: (record, cutoffs) => reserve(record, cutoffs),
    complete: (held, response) => {
      const columns = encodeResponse(responseColumns(Option.some(response)))
      return write(Effect.asVoid(
        sql`UPDATE sendline_idempotency_keys SET response_status = ${columns.response_status},
            response_body = ${columns.response_body}, response_recompute = ${columns.response_recompute}
          WHERE account_id = ${held.accountId} AND key = ${held.key} AND created_at = ${held.createdAt}`
      ))
    },
    release: (held) =>
      write(Effect.asVoid(sql`DELETE FROM sendline_idempotency_keys
        WHERE account_id = ${held.accountId} AND key = ${held.key} AND created_at = ${held.createdAt}`)),
    // The oldest first, through the index on created_at; a row another purger deleted meanwhile is
    // simply not counted.
    purge: (before, limit) =>
      write(Effect.map(
        sql`DELETE FROM sendline_idempotency_keys WHERE (account_id, key) IN (
          SELECT account_id, key FROM sendline_idempotency_keys WHERE created_at < ${before}
          ORDER BY created_at LIMIT ${limit})
        RETURNING key`,
        (rows) => rows.length
      ))
  }))
}
