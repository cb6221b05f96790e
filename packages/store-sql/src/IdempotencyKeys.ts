/**
 * `IdempotencyStore` on SQL: the table `sendline_idempotency_keys`, keyed by (account_id, key).
 *
 * @since 0.1.0
 */
import { Errors, IdempotencyStore } from "@sendline/core"
import type { SqlError } from "@effect/sql/SqlError"
import type { Context } from "effect"
import { Effect, Option, Schema } from "effect"
import type * as Database from "./Database.js"
import * as Rows from "./Rows.js"

const Columns = Schema.Struct({
  accountId: Rows.column("account_id", Schema.String),
  key: Schema.String,
  fingerprint: Schema.String,
  createdAt: Rows.column("created_at", Rows.Int8),
  response_status: Schema.NullOr(Schema.Number),
  response_body: Schema.NullOr(Schema.String)
})

/**
 * `sendline_idempotency_keys`: a key per row. Its response is two columns, both set once the
 * request has answered, both NULL while it runs.
 *
 * @since 0.1.0
 * @category tables
 */
export const idempotencyKeys = Rows.table<IdempotencyStore.IdempotencyRecord>()(
  "sendline_idempotency_keys",
  Schema.transform(
    Columns,
    Schema.typeSchema(Columns).pipe(
      Schema.omit("response_status", "response_body"),
      Schema.extend(Schema.Struct({ response: Schema.OptionFromSelf(Schema.Struct({ status: Schema.Number, body: Schema.String })) }))
    ),
    {
      strict: true,
      decode: ({ response_body, response_status, ...held }) => ({
        ...held,
        response: response_status === null || response_body === null
          ? Option.none()
          : Option.some({ status: response_status, body: response_body })
      }),
      encode: ({ response, ...held }) => ({
        ...held,
        response_status: Option.isSome(response) ? response.value.status : null,
        response_body: Option.isSome(response) ? response.value.body : null
      })
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
      sql`INSERT INTO sendline_idempotency_keys ${sql.insert(idempotencyKeys.encode({ ...record, response: Option.none() }))}
          ON CONFLICT (account_id, key) DO UPDATE SET
            fingerprint = excluded.fingerprint, created_at = excluded.created_at,
            response_status = NULL, response_body = NULL
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
    complete: (held, response) =>
      write(Effect.asVoid(
        sql`UPDATE sendline_idempotency_keys SET response_status = ${response.status}, response_body = ${response.body}
          WHERE account_id = ${held.accountId} AND key = ${held.key} AND created_at = ${held.createdAt}`
      )),
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
