import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { Mail, Stores } from "@sendline/core"
import { AccountStore, MailStore } from "@sendline/core"
import { Fixtures } from "@sendline/core/testing"
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { Accounts, Mails } from "@sendline/store-sql"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Either, Layer, Option, Redacted } from "effect"

// Each store on a client of the test's own, so that the test writes through SQL as a store module
// does: SQLite `:memory:`, and PostgreSQL in a fresh schema when a server answers.
const reachable = await Effect.runPromise(TestDatabase.probe)
const stores: ReadonlyArray<
  { readonly name: string; readonly layer: () => Layer.Layer<SqlClient.SqlClient | Stores.Stores, unknown> }
> = [
  {
    name: "sqlite",
    layer: () => SqliteStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" })))
  },
  ...Option.match(reachable, {
    onNone: () => [],
    onSome: (url) => [{
      name: "postgres",
      layer: () =>
        PgStore.layer.pipe(
          Layer.provideMerge(Layer.unwrapScoped(
            Effect.map(TestDatabase.scopedSchema(url), (inSchema) => PgClient.layer({ url: Redacted.make(inSchema) }))
          ))
        )
    }]
  })
]

/**
 * A store write that causes a mail, as a brand relationship's would: its own row (an account here)
 * and the mail, in one transaction, `fail`ing after both when asked to.
 */
const writeWithMail = (account: string, mail: Mail.Mail, fail = false) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO sendline_accounts ${sql.insert(Accounts.accounts.encode(Fixtures.makeAccount(account)))}`
      yield* Mails.insert(sql, [mail])
      if (fail) return yield* Effect.fail("the write failed after its statements")
    })))

/** Whether the account and the mail exist. */
const written = (account: string, mail: string) =>
  Effect.gen(function*() {
    const found = yield* (yield* AccountStore.AccountStore).findAccount(account)
    const mailed = yield* (yield* MailStore.MailStore).findById(mail)
    return { account: Option.isSome(found), mail: Option.isSome(mailed) }
  })

for (const store of stores) {
  describe(`Mails.insert in another write's transaction (${store.name})`, () => {
    it.effect("a write that includes a mail commits it with it: the mail exists if and only if the write committed", () =>
      Effect.gen(function*() {
        const mails = yield* MailStore.MailStore
        const committed = Fixtures.makeMail(Fixtures.fresh("mail"))
        const committedAccount = Fixtures.fresh("acct")
        yield* writeWithMail(committedAccount, committed)
        assert.deepStrictEqual(yield* written(committedAccount, committed.id), { account: true, mail: true })
        assert.deepStrictEqual(
          yield* mails.claim(Fixtures.T, 10, Fixtures.T + 30_000),
          [committed],
          "and the MailSender gets it"
        )

        const rolledBack = Fixtures.makeMail(Fixtures.fresh("mail"))
        const rolledBackAccount = Fixtures.fresh("acct")
        const failed = yield* Effect.either(writeWithMail(rolledBackAccount, rolledBack, true))
        assert.isTrue(Either.isLeft(failed))
        assert.deepStrictEqual(
          yield* written(rolledBackAccount, rolledBack.id),
          { account: false, mail: false },
          "neither"
        )

        // a mail that cannot be written (its id taken) fails the write that included it, whole
        const refusedAccount = Fixtures.fresh("acct")
        const refused = yield* Effect.either(writeWithMail(refusedAccount, committed))
        assert.isTrue(Either.isLeft(refused))
        assert.deepStrictEqual(
          yield* written(refusedAccount, committed.id),
          { account: false, mail: true },
          "the account was not written"
        )
        assert.deepStrictEqual(
          yield* mails.claim(Fixtures.T + 60_000, 10, Fixtures.T + 90_000),
          [committed],
          "nothing else is due"
        )
      }).pipe(Effect.provide(store.layer())))

    it.effect("a write with no mail runs no mail statement", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const account = Fixtures.fresh("acct")
        yield* sql.withTransaction(Effect.zipRight(
          sql`INSERT INTO sendline_accounts ${sql.insert(Accounts.accounts.encode(Fixtures.makeAccount(account)))}`,
          Mails.insert(sql, [])
        ))
        assert.isTrue(Option.isSome(yield* (yield* AccountStore.AccountStore).findAccount(account)))
      }).pipe(Effect.provide(store.layer())))
  })
}
