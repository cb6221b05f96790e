/**
 * Every storage port of `@sendline/core` on one `SqlClient`: migrates the database, then builds
 * each port from its module (`Accounts`, `SenderIds`, `Messages`, `Events`, `Subscriptions`,
 * `Deliveries`, `IdempotencyKeys`, `Mails`, `Brands`, `OptOuts`, `Queues`) on one `Database`, and its `Readiness`
 * (`check`). Each store passes in its migration and a `Dialect`: the few places where the two
 * databases must differ, with the reason written beside each in the store.
 *
 * @since 0.1.0
 */
import type { MigrationError } from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Stores } from "@sendline/core"
import {
  AccountStore,
  BrandStore,
  DeliveryStore,
  Errors,
  EventStore,
  IdempotencyStore,
  MailStore,
  MessageStore,
  OptOutStore,
  QueueDepths,
  Readiness,
  SenderIdStore,
  SpendingStore,
  SubscriptionStore
} from "@sendline/core"
import type { Scope } from "effect"
import { Cause, Context, Effect, Layer } from "effect"
import * as Accounts from "./accounts/Accounts.js"
import * as Brands from "./brands/Brands.js"
import * as Database from "./Database.js"
import * as Events from "./Events.js"
import * as IdempotencyKeys from "./idempotency/IdempotencyKeys.js"
import * as Mails from "./mail/Mails.js"
import * as Messages from "./messaging/Messages.js"
import * as Spending from "./messaging/Spending.js"
import * as Migrations from "./Migrations.js"
import * as OptOuts from "./optOuts/OptOuts.js"
import * as Queues from "./Queues.js"
import * as SenderIds from "./senderIds/SenderIds.js"
import * as Deliveries from "./webhooks/Deliveries.js"
import * as Subscriptions from "./webhooks/Subscriptions.js"

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
  readonly dialect: (sql: SqlClient.SqlClient) => Database.Dialect
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
export const failingToStartAs =
  (what: string) => <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, Errors.StoreUnavailable, R> =>
    Layer.catchAllCause(layer, (cause) => {
      if (Cause.isInterruptedOnly(cause)) return Layer.failCause(cause as Cause.Cause<never>)
      const error = Cause.squash(cause)
      return Layer.fail(new Errors.StoreUnavailable({ message: `${what} (${rootMessage(error)})`, cause: error }))
    })

/**
 * The store `name` ("SQLite") is not ready: it cannot be reached or read, for the driver's `cause`.
 *
 * @since 0.1.0
 * @category readiness
 */
export const unreachable = (name: string, cause: unknown): Readiness.NotReady =>
  new Readiness.NotReady({ reason: "Unreachable", message: `The ${name} store cannot be reached or read`, cause })

/**
 * The readiness of the store `name` ("SQLite") on `sql`: its migrations table answers (the trivial
 * query) and records every id of `Migrations.ids`; else `NotReady`, naming the store and what
 * failed, never the SQL (the driver's error kept as its `cause`).
 *
 * @since 0.1.0
 * @category readiness
 */
export const check = (name: string, sql: SqlClient.SqlClient): Effect.Effect<Readiness.Ready, Readiness.NotReady> =>
  Effect.provideService(Migrations.recorded, SqlClient.SqlClient, sql).pipe(
    Effect.mapError((cause) => unreachable(name, cause)),
    Effect.filterOrFail(
      (recorded) => Migrations.ids.every((id) => recorded.includes(id)),
      (recorded) => {
        const missing = Migrations.ids.filter((id) => !recorded.includes(id)).length
        return new Readiness.NotReady({
          reason: "MigrationsBehind",
          message: `The ${name} database lacks ${missing} of the ${Migrations.ids.length} migrations this version needs`
        })
      }
    ),
    Effect.map((recorded) => ({ migration: recorded.at(-1)! }))
  )

/**
 * Migrates the database behind `SqlClient` and builds every storage port on it, with `check` as
 * its `Readiness`; the batchers of the hot paths live as long as the scope. Failures to start are
 * `StoreUnavailable`, naming the database but never the SQL or the URL; the driver's error is
 * kept as its `cause`.
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
    const db = Database.make(options.name, sql, options.dialect(sql))
    const stores = yield* Effect.all({
      accounts: Accounts.make(db),
      senderIds: SenderIds.make(db),
      messages: Messages.make(db),
      events: Events.make(db),
      subscriptions: Subscriptions.make(db),
      deliveries: Deliveries.make(db),
      idempotencyKeys: IdempotencyKeys.make(db),
      mails: Mails.make(db),
      brands: Brands.make(db),
      optOuts: OptOuts.make(db),
      queues: Queues.make(db),
      spending: Spending.make(db)
    })
    return Context.make(AccountStore.AccountStore, stores.accounts).pipe(
      Context.add(SenderIdStore.SenderIdStore, stores.senderIds),
      Context.add(MessageStore.MessageStore, stores.messages),
      Context.add(EventStore.EventStore, stores.events),
      Context.add(SubscriptionStore.SubscriptionStore, stores.subscriptions),
      Context.add(DeliveryStore.DeliveryStore, stores.deliveries),
      Context.add(IdempotencyStore.IdempotencyStore, stores.idempotencyKeys),
      Context.add(MailStore.MailStore, stores.mails),
      Context.add(BrandStore.BrandStore, stores.brands),
      Context.add(OptOutStore.OptOutStore, stores.optOuts),
      Context.add(QueueDepths.QueueDepths, stores.queues),
      Context.add(SpendingStore.SpendingStore, stores.spending),
      Context.add(Readiness.Readiness, Readiness.Readiness.of({ check: check(options.name, sql) }))
    )
  }).pipe(
    Effect.catchTags({
      SqlError: (cause) =>
        Effect.fail(new Errors.StoreUnavailable({ message: `The ${options.name} store could not start`, cause })),
      MigrationError: (cause) =>
        Effect.fail(new Errors.StoreUnavailable({ message: `The ${options.name} store could not migrate`, cause }))
    })
  )
