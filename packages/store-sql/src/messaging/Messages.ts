/**
 * `MessageStore` on SQL: the table `sendline_messages`, written with its events (`Events`) in one
 * transaction (the outbox). Concurrent sends share one write (group commit, see `Batcher`); a
 * worker's pass of status changes is one transaction of batched statements. Every status a message
 * enters is written by `insert` or `transition`, so both count it here, once committed
 * (`sendline_messages_entered`, core's `MessageMetrics.messagesEntered`).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type { Event, SpendingStore } from "@sendline/core"
import { Markets, Message, MessageMetrics, MessageStore } from "@sendline/core"
import type { Context, Scope } from "effect"
import { Array as Arr, Effect, Option, Schema } from "effect"
import * as Batcher from "../Batcher.js"
import * as Database from "../Database.js"
import * as Events from "../Events.js"
import * as Migrations from "../Migrations.js"
import * as Rows from "../Rows.js"
import * as Batches from "./Batches.js"
import * as KeyedWrites from "./KeyedWrites.js"
import * as Spending from "./Spending.js"

/**
 * `sendline_messages`: a message per row, its price and error as JSON. `claimed_until`, the
 * store's own, is never read into a message: `claim` and `transition` set it themselves.
 *
 * @since 0.1.0
 * @category tables
 */
export const messages = Rows.table<Message.Message>()(
  "sendline_messages",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    status: Message.MessageStatus,
    to: Rows.column("recipient", Schema.String),
    senderId: Rows.column("sender_id", Schema.String),
    body: Schema.String,
    segments: Schema.Number,
    encoding: Message.Encoding,
    market: Schema.String,
    reference: Rows.nullable(Schema.String),
    callbackUrl: Rows.nullable(Schema.String).pipe(Schema.fromKey("callback_url")),
    price: Schema.parseJson(Markets.Price),
    error: Rows.nullable(Schema.parseJson(Message.MessageError)),
    createdAt: Rows.column("created_at", Rows.Int8),
    scheduledAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("scheduled_at")),
    sentAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("sent_at")),
    deliveredAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("delivered_at")),
    carrierMessageId: Rows.nullable(Schema.String).pipe(Schema.fromKey("carrier_message_id")),
    carrier: Rows.nullable(Schema.String),
    idempotencyKey: Rows.nullable(Schema.String).pipe(Schema.fromKey("idempotency_key")),
    batchId: Rows.nullable(Schema.String).pipe(Schema.fromKey("batch_id"))
  })
)

/** Inserts the messages, in one multi-row statement. @since 0.1.0 @category statements */
export const insert = (
  sql: SqlClient.SqlClient,
  inserted: ReadonlyArray<Message.Message>
): Statement.Statement<object> => sql`INSERT INTO sendline_messages ${sql.insert(inserted.map(messages.encode))}`

/**
 * Deletes the messages `ids` of `accountId` and their events, at most `batchLimit` of each a
 * statement: for a write that takes back, in its own transaction, messages it inserted.
 *
 * @since 0.3.0
 * @category statements
 */
export const remove = (
  sql: SqlClient.SqlClient,
  accountId: string,
  ids: ReadonlyArray<string>
): Effect.Effect<void, SqlError> =>
  Effect.forEach(Arr.chunksOf(ids, Database.batchLimit), (chunk) =>
    Effect.zipRight(
      sql`DELETE FROM sendline_events WHERE account_id = ${accountId} AND subject_id IN ${sql.in(chunk)}`,
      sql`DELETE FROM sendline_messages WHERE id IN ${sql.in(chunk)}`
    ), { discard: true })

// What a transition sets from `next`: every column of the row but `id` and `account_id` (the
// keys), `created_at` and `idempotency_key`, which a transition never changes. `claimed_until`,
// which the row does not hold, `update` clears itself.
const changed = [
  "status",
  "recipient",
  "sender_id",
  "body",
  "segments",
  "encoding",
  "market",
  "reference",
  "callback_url",
  "price",
  "error",
  "scheduled_at",
  "sent_at",
  "delivered_at",
  "carrier_message_id",
  "carrier"
] as const

// How each changed column is set from the `VALUES` of `update`. PostgreSQL gives those
// parameters no type of their own (text, then), so the numeric columns cast theirs; to SQLite the
// same CAST is a conversion to integer (BIGINT has INTEGER affinity).
const setFromNext = changed.map((column) =>
  column === "segments" || column.endsWith("_at")
    ? `${column} = CAST(next.${column} AS BIGINT)`
    : `${column} = next.${column}`
).join(", ")

/**
 * Replaces each message by `next` (every column but `id`, `account_id`, `created_at` and
 * `idempotency_key`) while its status is still its `from`, returning the ids of those that were
 * replaced, in one statement (`UPDATE … FROM` a CTE of `VALUES`: SQLite 3.33+ and PostgreSQL).
 * Message ids must be distinct (one row per target). Clears `claimed_until`: a claim is for the
 * work of the status it was taken in, so a message that moves on (scheduled → queued) is at once
 * free for its next work.
 *
 * @since 0.1.0
 * @category statements
 */
export const update = (
  sql: SqlClient.SqlClient,
  moves: ReadonlyArray<{ readonly next: Message.Message; readonly from: Message.MessageStatus }>
): Statement.Statement<{ readonly id: string }> => {
  // each row's cells as one parenthesised list of parameters
  const values = moves.map(({ from, next }) => {
    const row = messages.encode(next)
    return sql`${sql.in([row.id, row.account_id, from, ...changed.map((column) => row[column])])}`
  })
  return sql`WITH next (id, account_id, from_status, ${sql.literal(changed.join(", "))}) AS (VALUES ${sql.csv(values)})
    UPDATE sendline_messages SET ${sql.literal(setFromNext)}, claimed_until = NULL
    FROM next
    WHERE sendline_messages.id = next.id AND sendline_messages.account_id = next.account_id
      AND sendline_messages.status = next.from_status
    RETURNING sendline_messages.id AS id`
}

/**
 * The ids of up to `limit` messages due for `work` at `now` whose lease, if any, has ended, oldest
 * first: `dispatch` takes `queued` messages by `created_at`, `schedule` takes `scheduled` ones whose
 * `scheduled_at` has come, the most overdue first. Each order is a partial index of `0002_claims`.
 * Dispatch with several accounts queued takes `fairDue` instead.
 *
 * @since 0.1.0
 * @category statements
 */
export const due = (
  sql: SqlClient.SqlClient,
  work: MessageStore.ClaimWork,
  now: number,
  limit: number
): Statement.Statement<{ readonly id: string }> =>
  sql`SELECT id FROM sendline_messages
    WHERE ${work === "dispatch" ? sql`status = 'queued'` : sql`status = 'scheduled' AND scheduled_at <= ${now}`}
      AND (claimed_until IS NULL OR claimed_until <= ${now})
    ORDER BY ${work === "dispatch" ? sql`created_at, id` : sql`scheduled_at, id`}
    LIMIT ${limit}`

/**
 * The accounts that have queued messages, one index seek each (a loose index scan of
 * `0023_claim_fairness`, however many messages each has queued), as a recursive CTE `accounts`
 * whose last row is a NULL.
 */
const queuedAccounts = (sql: SqlClient.SqlClient) =>
  sql`accounts (account_id) AS (
      SELECT (SELECT account_id FROM sendline_messages WHERE status = 'queued' ORDER BY account_id LIMIT 1)
      UNION ALL
      SELECT (SELECT m.account_id FROM sendline_messages m
          WHERE m.status = 'queued' AND m.account_id > accounts.account_id ORDER BY m.account_id LIMIT 1)
      FROM accounts WHERE accounts.account_id IS NOT NULL
    )`

/**
 * How many accounts have queued messages (claimable or not), counted by the loose index scan of
 * `fairDue`: tens of microseconds for a hundred accounts, whatever their backlogs.
 *
 * @since 0.1.0
 * @category statements
 */
export const countQueuedAccounts = (sql: SqlClient.SqlClient): Statement.Statement<{ readonly accounts: number }> =>
  sql`WITH RECURSIVE ${queuedAccounts(sql)}
    SELECT COUNT(*) AS accounts FROM accounts WHERE account_id IS NOT NULL`

/**
 * The share of a claim of `limit` each of `accounts` accounts is given first: `limit` divided among
 * them, rounded up, at least one each.
 *
 * @since 0.1.0
 * @category ordering
 */
export const fairShare = (limit: number, accounts: number): number =>
  Math.max(1, Math.ceil(limit / Math.max(1, accounts)))

/**
 * The ids of up to `limit` queued messages due for dispatch at `now`, fair per account, when
 * `accounts` accounts have messages queued: each account's oldest claimable ones up to its
 * `fairShare` first, then the rest of the limit oldest first (FIFO, which gives it to the oldest
 * backlog). So one account's backlog of 100,000 takes a pass's limit only when no one else has a
 * message queued, and a message another account queues later goes in the next pass. With more
 * accounts than `limit` (a share of one each), the pass takes the oldest of a random `limit` of them, so
 * that none waits behind the others' backlogs: each is served every `accounts / limit` passes or
 * so. Index-backed on both stores: the accounts by a loose index scan (`queuedAccounts`), each
 * one's oldest by an index range (`0023`'s, or `0001`'s `sendline_messages_status`), the rest by `0002`'s
 * `sendline_messages_dispatch`: about `2 × limit + accounts` rows read, whatever the backlogs. Its
 * picks skip rows another claimer is taking (`Dialect.skipLocked`), and its last level is a plain
 * SELECT of the table that repeats the conditions of a claimable row, for PostgreSQL's claim to
 * lock and check again (as `Deliveries.due`).
 *
 * @since 0.1.0
 * @category statements
 */
export const fairDue = (
  sql: SqlClient.SqlClient,
  dialect: Database.Dialect,
  now: number,
  limit: number,
  accounts: number
): Statement.Statement<{ readonly id: string }> => {
  const claimable = (alias: string) =>
    sql`${sql(alias)}.status = 'queued' AND (${sql(alias)}.claimed_until IS NULL OR ${
      sql(alias)
    }.claimed_until <= ${now})`
  // The account as a range of one value, in the order of `0023`'s index, `account_id` first: only
  // an index that starts with the account gives that order, so the planner reads the account's own
  // rows. (Written `account_id = …`, PostgreSQL drops the column from the order, and with few
  // accounts in its statistics reads the FIFO index filtering by account instead: through the whole
  // backlog to reach the newest account's message, 150 ms at 100,000 queued.)
  const pick = sql`SELECT q.id, q.created_at FROM sendline_messages q
    WHERE ${claimable("q")} AND q.account_id >= accounts.account_id AND q.account_id <= accounts.account_id
    ORDER BY q.account_id, q.created_at, q.id LIMIT ${fairShare(limit, accounts)} ${dialect.skipLocked}`
  return sql`SELECT id FROM sendline_messages
    WHERE id IN (
      WITH RECURSIVE ${queuedAccounts(sql)}, shares AS (
        SELECT picked.id, picked.created_at FROM ${dialect.joinEach("accounts", messages.name, pick)}
        WHERE accounts.account_id IS NOT NULL
      ), oldest AS (
        SELECT f.id, f.created_at FROM sendline_messages f WHERE ${claimable("f")}
        ORDER BY f.created_at, f.id LIMIT ${limit} ${dialect.skipLocked}
      ), candidates (id, created_at, late) AS (
        SELECT id, created_at, 0 FROM shares UNION ALL SELECT id, created_at, 1 FROM oldest
      )
      SELECT id FROM candidates GROUP BY id
      ORDER BY MIN(late), ${
    accounts > limit ? sql`CASE WHEN MIN(late) = 0 THEN random() ELSE 0 END, ` : sql``
  }MIN(created_at), id
      LIMIT ${limit}
    ) AND ${claimable("sendline_messages")}`
}

/**
 * The order in which a claim's messages are worked, as `due` and `fairDue` pick them: `schedule`
 * by `scheduled_at`; `dispatch` in turns, each account's oldest, then each one's second oldest…
 * (the accounts of a turn oldest first), so that an account with one message among another's
 * hundred is submitted at the start of the pass, not at its end.
 *
 * @since 0.1.0
 * @category ordering
 */
export const inClaimOrder = (
  work: MessageStore.ClaimWork,
  claimed: ReadonlyArray<Message.Message>
): Array<Message.Message> => {
  const byId = (a: Message.Message, b: Message.Message) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  if (work === "schedule") return [...claimed].sort((a, b) => (a.scheduledAt ?? 0) - (b.scheduledAt ?? 0) || byId(a, b))
  const oldest = [...claimed].sort((a, b) => a.createdAt - b.createdAt || byId(a, b))
  const seen = new Map<string, number>()
  const turns = new Map(oldest.map((m) => {
    const turn = seen.get(m.accountId) ?? 0
    seen.set(m.accountId, turn + 1)
    return [m.id, turn] as const
  }))
  return oldest.sort((a, b) => turns.get(a.id)! - turns.get(b.id)! || a.createdAt - b.createdAt || byId(a, b))
}

/**
 * Whether each move was made, on the caller's connection (run it in a transaction): two statements
 * per round of at most `batchLimit` moves, one UPDATE for every move, one INSERT for the events of
 * those that moved. The second move of a message in one call goes in a later round, so that it sees
 * the first.
 */
const transitions = (
  sql: SqlClient.SqlClient,
  moves: ReadonlyArray<MessageStore.Move>
): Effect.Effect<Array<boolean>, SqlError> =>
  Effect.suspend(() => {
    const results = moves.map(() => false)
    const rounds: Array<Array<number>> = []
    const seen = new Map<string, number>()
    for (const [i, { next }] of moves.entries()) {
      const round = seen.get(next.id) ?? 0
      seen.set(next.id, round + 1)
      ;(rounds[round] ??= []).push(i)
    }
    const statements = rounds.flatMap((round) => Arr.chunksOf(round, Database.batchLimit))
    return Effect.as(
      Effect.forEach(statements, (indexes) =>
        Effect.flatMap(
          update(
            sql,
            indexes.map((i) => moves[i]!)
          ),
          (rows): Effect.Effect<void, SqlError> => {
            const moved = new Set(rows.map((row) => row.id))
            const events: Array<Event.Event> = []
            const refunded: Array<Message.Message> = []
            for (const i of indexes) {
              const { event, next } = moves[i]!
              if (!moved.has(next.id)) continue
              results[i] = true
              if (Option.isSome(event)) events.push(event.value)
              if (moves[i]!.refund === true) refunded.push(next)
            }
            return Effect.zipRight(
              events.length === 0 ? Effect.void : Effect.asVoid(Events.insert(sql, events)),
              refunded.length === 0 ? Effect.void : Spending.refund(sql, refunded)
            )
          }
        ), { discard: true }),
      results
    )
  })

interface NewMessage {
  readonly message: Message.Message
  readonly event: Option.Option<Event.Event>
  readonly charge: SpendingStore.Charge | undefined
}

/**
 * `MessageStore` on `db`; its batcher of inserts lives as long as the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  db: Database.Database
): Effect.Effect<Context.Tag.Service<MessageStore.MessageStore>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { dialect, read, sql, transaction, unavailable, write } = db
    // The messages and events of many concurrent sends in one write (group commit): atomic for the
    // batch, and when a batch fails the Batcher runs each of its items alone, so that one bad row
    // fails only its own caller.
    // A batch with charges runs them first, in one transaction with its inserts: those refused for
    // the spending limit are left out, and only their own submitters fail.
    const insertAll = (batch: ReadonlyArray<NewMessage>): Effect.Effect<void, SqlError> => {
      const events = batch.flatMap(({ event }) => (Option.isSome(event) ? [event.value] : []))
      const insertMessages = insert(sql, batch.map(({ message }) => message))
      return Effect.asVoid(
        events.length === 0 ? insertMessages : dialect.insertWithEvents(insertMessages, Events.insert(sql, events))
      )
    }
    const chargeAndInsert = (
      batch: ReadonlyArray<NewMessage>
    ): Effect.Effect<Array<SpendingStore.SpendingLimitReached | undefined>, SqlError> =>
      Effect.gen(function*() {
        const refusals = yield* Spending.chargeAll(sql, batch.map(({ charge }) => charge))
        const accepted = batch.filter((_, i) => refusals[i] === undefined)
        if (accepted.length > 0) yield* insertAll(accepted)
        return refusals
      })

    const inserts = yield* Batcher.make({
      name: "MessageStore.insert",
      maxBatch: Database.batchLimit,
      run: (batch: ReadonlyArray<NewMessage>) => {
        const charged = batch.some(({ charge }) => charge !== undefined)
        const written: Effect.Effect<ReadonlyArray<SpendingStore.SpendingLimitReached | undefined>, SqlError> = charged
          ? sql.withTransaction(chargeAndInsert(batch))
          : Effect.as(dialect.write(insertAll(batch)), batch.map(() => undefined))
        return written.pipe(
          Effect.mapError((error) => {
            // A batch of several that fails is run again item by item: alone, a duplicate key is its own.
            const { accountId, idempotencyKey } = batch[0]!.message
            return batch.length === 1 && idempotencyKey !== undefined &&
                dialect.isUniqueViolation(error, Migrations.messageIdempotencyKeys)
              ? new MessageStore.IdempotencyKeyTaken({ accountId, key: idempotencyKey })
              : unavailable(error)
          }),
          // Every status a message enters is committed here or by `transition`: the one place to count it.
          Effect.map((refusals) => {
            batch.forEach(({ message }, i) =>
              refusals[i] === undefined && MessageMetrics.messageEntered(message.status)
            )
            return refusals
          })
        )
      }
    })

    // The messages `select` answers for `values`, read at most `batchLimit` values a statement.
    const selectIn = (
      values: ReadonlyArray<string>,
      select: (chunk: ReadonlyArray<string>) => Statement.Statement<object>
    ) =>
      Effect.map(
        Effect.forEach(
          Arr.chunksOf(values, Database.batchLimit),
          (chunk) => Effect.flatMap(select(chunk), messages.decode)
        ),
        Arr.flatten
      )

    const findMany = (keys: ReadonlyArray<MessageStore.MessageKey>) =>
      Effect.map(
        selectIn(keys.map((key) => key.id), (ids) => sql`SELECT * FROM sendline_messages WHERE id IN ${sql.in(ids)}`),
        (found) => {
          const byId = new Map(found.map((message) => [message.id, message]))
          return keys.map((key) => {
            const message = byId.get(key.id)
            return message !== undefined && message.accountId === key.accountId ? Option.some(message) : Option.none()
          })
        }
      )

    // Each carrier id at most once per statement; of the messages under one id, the newest of the
    // key's carrier (or of none: sent before routing), any when the key names no carrier.
    const findByCarrierMessageIds = (keys: ReadonlyArray<MessageStore.CarrierMessageKey>) =>
      Effect.map(
        selectIn(
          Arr.dedupe(keys.map((key) => key.carrierMessageId)),
          (ids) =>
            sql`SELECT * FROM sendline_messages WHERE carrier_message_id IN ${sql.in(ids)} ORDER BY created_at, id`
        ),
        (found) => {
          const byCarrierId = Arr.groupBy(found, (message) => message.carrierMessageId!)
          return keys.map((key) =>
            Arr.findLast(
              byCarrierId[key.carrierMessageId] ?? [],
              (message) => key.carrier === undefined || message.carrier === undefined || message.carrier === key.carrier
            )
          )
        }
      )

    const keyed = KeyedWrites.make(db, messages)
    return MessageStore.MessageStore.of({
      ...Batches.make(db, {
        insert: (written) => insert(sql, written),
        remove: (accountId, ids) => remove(sql, accountId, ids)
      }),
      insert: (message, event, charge) =>
        Effect.flatMap(
          inserts.submit({ message, event, charge }),
          (refused) => refused === undefined ? Effect.void : Effect.fail(refused)
        ),
      findById: (accountId, id) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_messages WHERE id = ${id} AND account_id = ${accountId}`,
          messages.decodeFirst
        )),
      findByIdempotencyKey: keyed.find,
      releaseIdempotencyKey: keyed.release,
      // Keyset pagination, never OFFSET: each filter has an index that ends in (created_at, id).
      list: (accountId, filter, after, limit) => {
        const where = [sql`account_id = ${accountId}`]
        if (filter.market !== undefined) where.push(sql`market = ${filter.market}`)
        if (filter.status !== undefined) where.push(sql`status = ${filter.status}`)
        if (filter.senderId !== undefined) where.push(sql`sender_id = ${filter.senderId}`)
        if (filter.reference !== undefined) where.push(sql`reference = ${filter.reference}`)
        if (filter.batchId !== undefined) where.push(sql`batch_id = ${filter.batchId}`)
        if (filter.from !== undefined) where.push(sql`created_at >= ${filter.from}`)
        if (filter.to !== undefined) where.push(sql`created_at <= ${filter.to}`)
        if (Option.isSome(after)) where.push(sql`(created_at, id) < (${after.value.createdAt}, ${after.value.id})`)
        return read(Effect.flatMap(
          sql`SELECT * FROM sendline_messages WHERE ${sql.and(where)}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
          messages.decode
        ))
      },
      findMany: (keys) => keys.length === 0 ? Effect.succeed([]) : read(findMany(keys)),
      findByCarrierMessageIds: (keys) => keys.length === 0 ? Effect.succeed([]) : read(findByCarrierMessageIds(keys)),
      transition: (moves) =>
        moves.length === 0 ?
          Effect.succeed([]) :
          Effect.tap(
            transaction(transitions(sql, moves)),
            (moved) =>
              Effect.sync(() => moves.forEach(({ next }, i) => moved[i] && MessageMetrics.messageEntered(next.status)))
          ),
      // Dispatch counts the accounts with queued messages first: none, nothing to claim; one, the
      // plain oldest first (FIFO is fair to one); several, each its share (`fairDue`).
      claim: (work, now, limit, leaseUntil) =>
        write(Effect.map(
          Effect.flatMap(
            work === "dispatch"
              ? Effect.map(countQueuedAccounts(sql), (rows) => Number(rows[0]?.accounts ?? 0))
              : Effect.succeed(1),
            (accounts): Effect.Effect<ReadonlyArray<Message.Message>, SqlError> =>
              accounts === 0 ? Effect.succeed([]) : Effect.flatMap(
                dialect.claim(
                  messages.name,
                  accounts === 1 ? due(sql, work, now, limit) : fairDue(sql, dialect, now, limit, accounts),
                  leaseUntil
                ),
                messages.decode
              )
          ),
          // An UPDATE returns its rows in no set order: in the order they were picked again.
          (claimed) => inClaimOrder(work, claimed)
        ))
    })
  })
