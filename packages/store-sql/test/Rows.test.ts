import { assert, describe, it } from "@effect/vitest"
import {
  Accounts,
  Deliveries,
  Events,
  IdempotencyKeys,
  Mails,
  Messages,
  type Rows,
  SenderIds
} from "@sendline/store-sql"
import { Arbitrary, Effect, Either, Exit, FastCheck, Schema } from "effect"

// Every table, as its module describes it: their codecs must do what Schema does with their schema.
const tables: ReadonlyArray<Rows.Table<any, any>> = [
  Accounts.accounts,
  Accounts.ownedIdentifiers,
  Accounts.apiKeys,
  SenderIds.senderIds,
  Messages.messages,
  Events.events,
  IdempotencyKeys.idempotencyKeys,
  Mails.mails,
  Deliveries.deliveries
]

/** What `f` returns, or that it threw. */
const outcome = <A>(f: () => A): Either.Either<A, "threw"> => {
  try {
    return Either.right(f())
  } catch {
    return Either.left("threw")
  }
}

describe("Rows", () => {
  for (const table of tables) {
    it(`${table.name}: a value encodes as Schema encodes it, every column in Schema's order`, () => {
      const encode = Schema.encodeSync(table.schema)
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(Schema.typeSchema(table.schema)), (value) => {
          const expected = outcome(() => encode(value))
          const row = outcome(() => table.encode(value))
          assert.deepStrictEqual(row, expected)
          if (Either.isRight(row) && Either.isRight(expected)) {
            assert.deepStrictEqual(Object.keys(row.right), Object.keys(expected.right))
          }
        }),
        { numRuns: 200 }
      )
    })

    it(`${table.name}: a row decodes as Schema decodes it, BIGINT digits and unknown columns too`, () => {
      const encode = Schema.encodeSync(table.schema)
      const decode = Schema.decodeUnknownSync(table.schema, { onExcessProperty: "ignore" })
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(Schema.typeSchema(table.schema)), (value) => {
          const written = outcome(() => encode(value))
          if (Either.isLeft(written)) return
          // as PostgreSQL returns it: BIGINT as digits, and a column the schema does not read
          const row: Record<string, unknown> = { ...written.right, claimed_until: null }
          for (const [column, cell] of Object.entries(row)) {
            if (column.endsWith("_at") && typeof cell === "number" && Number.isSafeInteger(cell)) {
              row[column] = String(cell)
            }
          }
          const exit = Effect.runSyncExit(table.decode([row]))
          const expected = outcome(() => decode(row))
          if (Either.isLeft(expected)) assert.isTrue(Exit.isFailure(exit), "Schema refuses it: so does the table")
          else assert.deepStrictEqual(exit, Exit.succeed([expected.right]))
        }),
        { numRuns: 200 }
      )
    })
  }
})
