/**
 * `SenderIdStore` on SQL: the tables `sendline_sender_ids` and `sendline_sender_id_holds` (which
 * brand holds a Sender ID string in a market, in lower case). Every send looks up its registered
 * Sender ID, so concurrent lookups share one `IN (VALUES …)` query (see `Batcher`).
 *
 * @since 0.1.0
 */
import { SenderId, SenderIdStore } from "@sendline/core"
import type { Context, Scope } from "effect"
import { Effect, Option, Schema } from "effect"
import * as Batcher from "./Batcher.js"
import * as Database from "./Database.js"
import * as Migrations from "./Migrations.js"
import * as Rows from "./Rows.js"

/** `sendline_sender_ids`: a Sender ID record per row. @since 0.1.0 @category tables */
export const senderIds = Rows.table<SenderId.SenderIdRecord>()(
  "sendline_sender_ids",
  Schema.Struct({
    id: Schema.String,
    accountId: Rows.column("account_id", Schema.String),
    senderId: Rows.column("sender_id", Schema.String),
    market: Schema.String,
    brandName: Rows.column("brand_name", Schema.String),
    status: SenderId.SenderIdStatus,
    createdAt: Rows.column("created_at", Rows.Int8),
    registeredAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("registered_at")),
    expiresAt: Rows.nullable(Rows.Int8).pipe(Schema.fromKey("expires_at"))
  })
)

interface RegisteredQuery {
  readonly accountId: string
  readonly senderId: string
  readonly market: string
}

/**
 * `SenderIdStore` on `db`; its batcher of registration lookups lives as long as the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  { read, sql, transaction, write }: Database.Database
): Effect.Effect<Context.Tag.Service<SenderIdStore.SenderIdStore>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const registered = yield* Batcher.make({
      maxBatch: Database.batchLimit,
      run: (queries: ReadonlyArray<RegisteredQuery>) =>
        read(Effect.map(
          Effect.flatMap(
            sql`SELECT * FROM sendline_sender_ids
            WHERE status = 'registered' AND (account_id, sender_id, market) IN (VALUES ${
              sql.csv(queries.map((q) => sql`(${q.accountId}, ${q.senderId}, ${q.market})`))
            })
            ORDER BY created_at DESC, id DESC`,
            senderIds.decode
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

    return SenderIdStore.SenderIdStore.of({
      insert: (record) => {
        const insert = sql`INSERT INTO sendline_sender_ids ${sql.insert(senderIds.encode(record))}`
        if (!SenderId.holdsAt(record, record.createdAt)) return write(Effect.asVoid(insert))
        const { brandName, market, senderId } = record
        const senderIdKey = SenderId.holdKey(senderId)
        // The hold first, taken or locked by the upsert (its update changes nothing but locks the
        // row on PostgreSQL), so inserts of one string in one market run one after the other from
        // here. Another brand's hold is taken over when none of its records holds the string now.
        const insertHeld = Effect.gen(function*() {
          const [hold] = yield* sql<{ readonly brand_name: string }>`INSERT INTO ${sql(Migrations.senderIdHolds.table)} ${
            sql.insert({ market, sender_id_key: senderIdKey, brand_name: brandName })
          } ON CONFLICT (${sql.literal(Migrations.senderIdHolds.columns.join(", "))})
            DO UPDATE SET brand_name = ${sql(Migrations.senderIdHolds.table)}.brand_name RETURNING brand_name`
          const holder = hold!.brand_name
          if (holder !== brandName) {
            const live = yield* sql`SELECT id FROM sendline_sender_ids
              WHERE market = ${market} AND lower(sender_id) = ${senderIdKey} AND brand_name = ${holder}
                AND status NOT IN ('rejected', 'expired') AND (expires_at IS NULL OR expires_at > ${record.createdAt})
              LIMIT 1`
            if (live.length > 0) return Option.some(holder)
            yield* sql`UPDATE ${sql(Migrations.senderIdHolds.table)} SET brand_name = ${brandName}
              WHERE market = ${market} AND sender_id_key = ${senderIdKey}`
          }
          yield* insert
          return Option.none<string>()
        })
        return Effect.flatMap(
          transaction(insertHeld),
          Option.match({
            onNone: () => Effect.void,
            onSome: (holder) => Effect.fail(new SenderIdStore.SenderIdTaken({ senderId, market, brandName: holder }))
          })
        )
      },
      findById: (accountId, id) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_sender_ids WHERE id = ${id} AND account_id = ${accountId}`,
          senderIds.decodeFirst
        )),
      findRegistered: (accountId, senderId, market) => registered.submit({ accountId, senderId, market }),
      findHeld: (senderId, market) =>
        read(Effect.flatMap(
          sql`SELECT * FROM sendline_sender_ids
            WHERE market = ${market} AND lower(sender_id) = ${SenderId.holdKey(senderId)} AND status NOT IN ('rejected', 'expired')`,
          senderIds.decode
        ))
    })
  })
