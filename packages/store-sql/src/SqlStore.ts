/**
 * The six storage ports of `@sendline/core` on one `SqlClient`, with the SQL the SQLite and the
 * PostgreSQL stores share. Each store passes in its migration and a `Dialect`: the few places
 * where the two databases must differ (how a write runs, the outbox writes, the claim), with the
 * reason written beside each in the store.
 *
 * @since 0.1.0
 */
import type { Event, Message, Stores } from "@sendline/core"
import { AccountStore, Errors, EventStore, IdempotencyStore, MessageStore, SenderId, SenderIdStore, SubscriptionStore } from "@sendline/core"
import type { MigrationError } from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type { Scope } from "effect"
import { Array as Arr, Cause, Context, Effect, Layer, Option } from "effect"
import * as Batcher from "./Batcher.js"
import * as Queries from "./Queries.js"
import * as Rows from "./Rows.js"

/**
 * What differs between the databases. Every write of the store, those below included, runs
 * through `write`, but for the two that need a transaction on both databases: the message
 * transitions (the statements of a worker's whole pass) and the idempotency reserve (its upsert and
 * read-back). The statements given to the outbox writes and the claim come from `Queries`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Dialect {
  /** How a write runs (a single statement, or the statements of one outbox write or claim). */
  readonly write: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E | SqlError>
  /** Runs `insertMessages` and `insertEvents` (both multi-row inserts), atomically. */
  readonly insertWithEvents: (
    insertMessages: Statement.Statement<object>,
    insertEvents: Statement.Statement<object>
  ) => Effect.Effect<unknown, SqlError>
  /**
   * Sets `claimed_until = leaseUntil` on the rows whose ids `due` selects, so that no concurrent
   * claimer gets them too; their full rows, in any order.
   */
  readonly claim: (
    due: Statement.Statement<{ readonly id: string }>,
    leaseUntil: number
  ) => Effect.Effect<ReadonlyArray<unknown>, SqlError>
}

/**
 * The most items one batched statement carries: the 18 columns of an inserted message row × 256
 * stays far below the variable limit of SQLite (32,766) and the 65,535 parameters of one
 * PostgreSQL statement.
 */
const batchLimit = 256

/**
 * What a store passes in: its name, its migration and its dialect.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The database, as error messages name it: "The SQLite store failed". */
  readonly name: string
  /** Prepares the connection and migrates the database (see `Migrations`). */
  readonly migrate: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError | MigrationError>
  /** The dialect on the store's client. */
  readonly dialect: (sql: SqlClient.SqlClient) => Dialect
}

/** The innermost message of an error and its causes: the driver's, under the SQL client's. */
const rootMessage = (error: unknown): string =>
  error instanceof Error && error.cause instanceof Error
    ? rootMessage(error.cause)
    : error instanceof Error
    ? error.message
    : String(error)

/**
 * A store layer that fails to start as one `StoreUnavailable`: `what` it could not do and the
 * driver's reason, e.g. "Cannot open SQLite at data/x.sqlite (file is not a database)".
 *
 * @since 0.1.0
 * @category constructors
 */
export const failingToStartAs = (what: string) =>
<A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, Errors.StoreUnavailable, R> =>
  Layer.catchAllCause(layer, (cause) => {
    if (Cause.isInterruptedOnly(cause)) return Layer.failCause(cause as Cause.Cause<never>)
    const error = Cause.squash(cause)
    return Layer.fail(new Errors.StoreUnavailable({ message: `${what} (${rootMessage(error)})`, cause: error }))
  })

/**
 * Migrates the database behind `SqlClient` and builds all six storage ports on it; the batchers of
 * the hot paths live as long as the scope. Failures to start are `StoreUnavailable`, naming the
 * database but never the SQL or the URL; the driver's error is kept as its `cause`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<Context.Context<Stores.Stores>, Errors.StoreUnavailable, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    // Every query names its snake_case columns itself, whatever transforms the client has.
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    yield* options.migrate(sql)
    const dialect = options.dialect(sql)

    // A row that did not decode is already Errors.StoreUnavailable, naming its table.
    const unavailable = (cause: SqlError | Errors.StoreUnavailable) =>
      cause._tag === "StoreUnavailable" ? cause : new Errors.StoreUnavailable({ message: `The ${options.name} store failed`, cause })

    const read = <A>(effect: Effect.Effect<A, SqlError | Errors.StoreUnavailable>): Effect.Effect<A, Errors.StoreUnavailable> =>
      Effect.mapError(effect, unavailable)

    const write = <A>(effect: Effect.Effect<A, SqlError | Errors.StoreUnavailable>): Effect.Effect<A, Errors.StoreUnavailable> =>
      Effect.mapError(dialect.write(effect), unavailable)

    // --- batched hot paths --------------------------------------------------------------------
    // Every send authenticates a key, looks up its Sender ID and inserts a message with its
    // event. Concurrent requests share one statement (or one transaction) for each (see Batcher):
    // fewer round trips, fewer statements to plan and fewer commits under load.

    const keysByDigest = yield* Batcher.make({
      maxBatch: batchLimit,
      run: (digests: ReadonlyArray<string>) =>
        read(Effect.map(
          Effect.flatMap(sql`SELECT * FROM sendline_api_keys WHERE digest IN ${sql.in(digests)}`, Rows.apiKeys),
          (keys) => {
            const byDigest = new Map(keys.map((key) => [key.digest, key]))
            return digests.map((digest) => Option.fromNullable(byDigest.get(digest)))
          }
        ))
    })

    interface RegisteredQuery {
      readonly accountId: string
      readonly senderId: string
      readonly market: string
    }
    const registeredSenderIds = yield* Batcher.make({
      maxBatch: batchLimit,
      run: (queries: ReadonlyArray<RegisteredQuery>) =>
        read(Effect.map(
          Effect.flatMap(
            sql`SELECT * FROM sendline_sender_ids
            WHERE status = 'registered' AND (account_id, sender_id, market) IN (VALUES ${
              sql.csv(queries.map((q) => sql`(${q.accountId}, ${q.senderId}, ${q.market})`))
            })
            ORDER BY created_at DESC, id DESC`,
            Rows.senderIds
          ),
          (records) => {
            // newest first: keep the first record seen for each (account, Sender ID, market)
            const newest = new Map<string, SenderId.SenderIdRecord>()
            for (const record of records) {
              const key = SenderId.lookupKey(record.accountId, record.senderId, record.market)
              if (!newest.has(key)) newest.set(key, record)
            }
            return queries.map((q) => Option.fromNullable(newest.get(SenderId.lookupKey(q.accountId, q.senderId, q.market))))
          }
        ))
    })

    interface NewMessage {
      readonly message: Message.Message
      readonly event: Option.Option<Event.Event>
    }
    // The messages and events of many concurrent sends in one write (group commit): atomic for the
    // batch, and when a batch fails the Batcher runs each of its items alone, so that one bad row
    // fails only its own caller.
    const messageInserts = yield* Batcher.make({
      maxBatch: batchLimit,
      run: (batch: ReadonlyArray<NewMessage>) => {
        const events = batch.flatMap(({ event }) => (Option.isSome(event) ? [event.value] : []))
        const insertMessages = Queries.insertMessages(sql, batch.map(({ message }) => message))
        return write(
          events.length === 0
            ? insertMessages
            : dialect.insertWithEvents(insertMessages, Queries.insertEvents(sql, events))
        ).pipe(Effect.as(batch.map(() => undefined)))
      }
    })

    // A worker's whole pass of moves in one transaction, of two statements per round of at most
    // `batchLimit` moves: one UPDATE for every move, one INSERT for the events of those that moved.
    // The second move of a message in one call goes in a later round, so that it sees the first.
    const transitions = (moves: ReadonlyArray<MessageStore.Move>) =>
      Effect.suspend(() => {
        const results = moves.map(() => false)
        const rounds: Array<Array<number>> = []
        const seen = new Map<string, number>()
        for (const [i, { next }] of moves.entries()) {
          const round = seen.get(next.id) ?? 0
          seen.set(next.id, round + 1)
          ;(rounds[round] ??= []).push(i)
        }
        const statements = rounds.flatMap((round) => Arr.chunksOf(round, batchLimit))
        return Effect.as(
          Effect.forEach(statements, (indexes) =>
            Effect.flatMap(Queries.updateMessages(sql, indexes.map((i) => moves[i]!)), (rows): Effect.Effect<void, SqlError> => {
              const moved = new Set(rows.map((row) => row.id))
              const events: Array<Event.Event> = []
              for (const i of indexes) {
                const { event, next } = moves[i]!
                if (!moved.has(next.id)) continue
                results[i] = true
                if (Option.isSome(event)) events.push(event.value)
              }
              return events.length === 0 ? Effect.void : Effect.asVoid(Queries.insertEvents(sql, events))
            }), { discard: true }),
          results
        )
      })

    const findMany = (keys: ReadonlyArray<MessageStore.MessageKey>) =>
      Effect.map(
        Effect.forEach(Arr.chunksOf(keys, batchLimit), (chunk) =>
          Effect.flatMap(sql`SELECT * FROM sendline_messages WHERE id IN ${sql.in(chunk.map((key) => key.id))}`, Rows.messages)),
        (chunks) => {
          const byId = new Map(chunks.flat().map((message) => [message.id, message]))
          return keys.map((key) => {
            const message = byId.get(key.id)
            return message !== undefined && message.accountId === key.accountId ? Option.some(message) : Option.none()
          })
        }
      )

    // --- accounts and keys -------------------------------------------------------------------

    const accounts = AccountStore.AccountStore.of({
      insertAccount: (account) =>
        write(Effect.asVoid(sql`INSERT INTO sendline_accounts
          (id, name, type, admin_email, network, markets, identifiers, created_at)
          VALUES (${account.id}, ${account.name}, ${account.type}, ${account.adminEmail}, ${Rows.orNull(account.network)},
            ${JSON.stringify(account.markets)},
            ${JSON.stringify(account.identifiers.map((i) => ({ identifierType: i.identifierType, identifierValue: i.identifierValue })))},
            ${account.createdAt})`)),
      findAccount: (id) =>
        read(Effect.flatMap(sql`SELECT * FROM sendline_accounts WHERE id = ${id}`, Rows.first(Rows.accounts))),
      insertKey: (key) =>
        write(Effect.asVoid(sql`INSERT INTO sendline_api_keys
          (id, account_id, digest, permissions, expires_at, revoked_at, created_at)
          VALUES (${key.id}, ${key.accountId}, ${key.digest}, ${JSON.stringify(key.permissions)},
            ${Rows.orNull(key.expiresAt)}, ${Rows.orNull(key.revokedAt)}, ${key.createdAt})`)),
      findKeyByDigest: keysByDigest.submit,
      revokeKey: (id, at) =>
        write(Effect.map(
          sql`UPDATE sendline_api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`,
          (rows) => rows.length > 0
        ))
    })

    // --- Sender IDs --------------------------------------------------------------------------

    const senderIds = SenderIdStore.SenderIdStore.of({
      insert: (record) =>
        write(Effect.asVoid(sql`INSERT INTO sendline_sender_ids
          (id, account_id, sender_id, market, brand_name, status, created_at, registered_at, expires_at)
          VALUES (${record.id}, ${record.accountId}, ${record.senderId}, ${record.market}, ${record.brandName},
            ${record.status}, ${record.createdAt}, ${Rows.orNull(record.registeredAt)}, ${Rows.orNull(record.expiresAt)})`)),
      findById: (accountId, id) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_sender_ids WHERE id = ${id} AND account_id = ${accountId}`,
          Rows.first(Rows.senderIds)
        )),
      findRegistered: (accountId, senderId, market) => registeredSenderIds.submit({ accountId, senderId, market }),
      findHeld: (senderId, market) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_sender_ids
            WHERE sender_id = ${senderId} AND market = ${market} AND status NOT IN ('rejected', 'expired')`,
          Rows.senderIds
        ))
    })

    // --- messages and events -----------------------------------------------------------------

    const messages = MessageStore.MessageStore.of({
      insert: (message, event) => messageInserts.submit({ message, event }),
      findById: (accountId, id) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_messages WHERE id = ${id} AND account_id = ${accountId}`,
          Rows.first(Rows.messages)
        )),
      findByIdempotencyKey: (accountId, key, since) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_messages
            WHERE account_id = ${accountId} AND idempotency_key = ${key} AND created_at >= ${since}
            ORDER BY created_at DESC, id DESC LIMIT 1`,
          Rows.first(Rows.messages)
        )),
      // Keyset pagination, never OFFSET: each filter has an index that ends in (created_at, id).
      list: (accountId, filter, after, limit) => {
        const where = [sql`account_id = ${accountId}`]
        if (filter.market !== undefined) where.push(sql`market = ${filter.market}`)
        if (filter.status !== undefined) where.push(sql`status = ${filter.status}`)
        if (filter.senderId !== undefined) where.push(sql`sender_id = ${filter.senderId}`)
        if (filter.reference !== undefined) where.push(sql`reference = ${filter.reference}`)
        if (filter.from !== undefined) where.push(sql`created_at >= ${filter.from}`)
        if (filter.to !== undefined) where.push(sql`created_at <= ${filter.to}`)
        if (Option.isSome(after)) where.push(sql`(created_at, id) < (${after.value.createdAt}, ${after.value.id})`)
        return read(Effect.flatMap(
          sql`SELECT * FROM sendline_messages WHERE ${sql.and(where)}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
          Rows.messages
        ))
      },
      findMany: (keys) => keys.length === 0 ? Effect.succeed([]) : read(findMany(keys)),
      transition: (moves) =>
        moves.length === 0 ? Effect.succeed([]) : Effect.mapError(sql.withTransaction(transitions(moves)), unavailable),
      claim: (work, now, limit, leaseUntil) =>
        write(Effect.map(
          Effect.flatMap(dialect.claim(Queries.dueMessages(sql, work, now, limit), leaseUntil), Rows.messages),
          // An UPDATE returns its rows in no set order: oldest first again, as they were picked.
          (claimed) => [...claimed].sort(Queries.claimOrder(work))
        ))
    })

    const events = EventStore.EventStore.of({
      listBySubject: (accountId, subjectId) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_events WHERE account_id = ${accountId} AND subject_id = ${subjectId}
            ORDER BY created_at, id`,
          Rows.events
        ))
    })

    // --- webhook subscriptions ---------------------------------------------------------------

    const subscriptions = SubscriptionStore.SubscriptionStore.of({
      hasActive: (accountId) =>
        read(Effect.map(
          sql`SELECT 1 FROM sendline_webhook_subscriptions WHERE account_id = ${accountId} AND status = 'active' LIMIT 1`,
          (rows) => rows.length > 0
        ))
    })

    // --- idempotency keys --------------------------------------------------------------------

    /** Some(row) when `record` reserved nothing: the holder's row, or none when that row vanished. */
    const reserveOnce = (record: IdempotencyStore.IdempotencyRecord, cutoffs: IdempotencyStore.ReserveCutoffs): Effect.Effect<
      Option.Option<Option.Option<IdempotencyStore.IdempotencyRecord>>,
      SqlError | Errors.StoreUnavailable
    > =>
      Effect.flatMap(
        // One upsert claims the key, or takes over a stale row; RETURNING yields a row only when
        // this call wrote it. On PostgreSQL the primary key makes a concurrent insert of the same
        // key wait for the first and then take the conflict branch, which locks the holder's row
        // even when its WHERE is false: the read-back in the same transaction finds it, and no one
        // can release it meanwhile (SQLite's single writer gives the same).
        sql`INSERT INTO sendline_idempotency_keys
            (account_id, key, fingerprint, created_at, response_status, response_body)
          VALUES (${record.accountId}, ${record.key}, ${record.fingerprint}, ${record.createdAt}, NULL, NULL)
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
                Rows.first(Rows.idempotencyRecords)
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
        Effect.mapError(sql.withTransaction(reserveOnce(record, cutoffs)), unavailable),
        Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            attempts > 1
              ? reserve(record, cutoffs, attempts - 1)
              : Effect.fail(new Errors.StoreUnavailable({ message: "The idempotency key could not be reserved" }))
        })
      )

    const idempotency = IdempotencyStore.IdempotencyStore.of({
      reserve: (record, cutoffs) => reserve(record, cutoffs),
      complete: (held, response) =>
        write(Effect.asVoid(
          sql`UPDATE sendline_idempotency_keys SET response_status = ${response.status}, response_body = ${response.body}
            WHERE account_id = ${held.accountId} AND key = ${held.key} AND created_at = ${held.createdAt}`
        )),
      release: (held) =>
        write(Effect.asVoid(sql`DELETE FROM sendline_idempotency_keys
          WHERE account_id = ${held.accountId} AND key = ${held.key} AND created_at = ${held.createdAt}`))
    })

    return Context.make(AccountStore.AccountStore, accounts).pipe(
      Context.add(SenderIdStore.SenderIdStore, senderIds),
      Context.add(MessageStore.MessageStore, messages),
      Context.add(EventStore.EventStore, events),
      Context.add(SubscriptionStore.SubscriptionStore, subscriptions),
      Context.add(IdempotencyStore.IdempotencyStore, idempotency)
    )
  }).pipe(
    Effect.catchTags({
      SqlError: (cause) =>
        Effect.fail(new Errors.StoreUnavailable({ message: `The ${options.name} store could not start`, cause })),
      MigrationError: (cause) =>
        Effect.fail(new Errors.StoreUnavailable({ message: `The ${options.name} store could not migrate`, cause }))
    })
  )

