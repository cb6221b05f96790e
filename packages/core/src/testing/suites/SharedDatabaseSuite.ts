/**
 * The shared test suite of what holds when several processes share one database, for the stores
 * that allow it: each "process" is the use cases (or a MailSender) over a store layer built on a
 * connection (or pool) of its own, as another process would have, all on one database.
 *
 * @since 0.1.0
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Principal } from "../../accounts/Account.js"
import { AccountStore } from "../../accounts/AccountStore.js"
import { EventStore } from "../../EventStore.js"
import * as Idempotency from "../../idempotency/Idempotency.js"
import * as Ids from "../../Ids.js"
import * as MailSender from "../../mail/MailSender.js"
import { MailStore } from "../../mail/MailStore.js"
import * as Markets from "../../Markets.js"
import * as Messaging from "../../messaging/Messaging.js"
import * as MessagingConfig from "../../messaging/MessagingConfig.js"
import * as ExpiryWatcher from "../../senderIds/ExpiryWatcher.js"
import * as SenderId from "../../senderIds/SenderId.js"
import { SenderIdStore } from "../../senderIds/SenderIdStore.js"
import type { Stores } from "../../Stores.js"
import * as Webhooks from "../../webhooks/Webhooks.js"
import * as CapturingMailer from "../CapturingMailer.js"
import {
  fresh,
  makeAccount,
  makeMail,
  makeRegistration,
  makeSenderId,
  makeSenderIdEvent,
  makeSubmittedSenderId,
  T
} from "../Fixtures.js"

/** `Messaging` (and the stores under it) on a new build of `store`: one more process on the database. */
const startProcess = (store: Layer.Layer<Stores, unknown>) =>
  Layer.build(
    Messaging.layer.pipe(
      Layer.provide(Webhooks.layerCallbacks),
      Layer.provideMerge(Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer())),
      Layer.provideMerge(store)
    )
  )

/** A MailSender (three mails a pass) and its capturing mailer on a new build of `store`: one more process's. */
const startMailProcess = (store: Layer.Layer<Stores, unknown>) =>
  Layer.build(
    MailSender.layer({ batchSize: 3 }).pipe(Layer.provideMerge(CapturingMailer.layer), Layer.provideMerge(store))
  )

/** Two builds of `store` (two processes' stores on the database) and a new account of theirs. */
const twoStoreProcesses = (store: Layer.Layer<Stores, unknown>) =>
  Effect.gen(function*() {
    const processes = [yield* Layer.build(store), yield* Layer.build(store)] as const
    const accountId = fresh("acct")
    yield* Context.get(processes[0], AccountStore).insertAccount(makeAccount(accountId))
    return { accountId, processes }
  })

/**
 * Registers the tests for one store shared by several processes. `store` must open a new
 * connection to one database each time it is built: a file for SQLite, a pool on one schema for
 * PostgreSQL.
 *
 * @since 0.1.0
 * @category suites
 */
export const suite = (name: string, store: Layer.Layer<Stores, unknown>): void => {
  describe(`SharedDatabaseSuite (${name})`, () => {
    it.live("two processes sending with one idempotency key at once create one message, the answer to both", () =>
      Effect.gen(function*() {
        const one = yield* startProcess(store)
        const other = yield* startProcess(store)
        const accountId = fresh("acct")
        yield* Context.get(one, AccountStore).insertAccount(makeAccount(accountId))
        const now = yield* Clock.currentTimeMillis
        yield* Context.get(one, SenderIdStore).insert(makeSenderId(accountId, {}, now), [], [])
        const principal: Principal = {
          accountId,
          keyId: fresh("key"),
          permissions: new Set(["messaging:send", "messaging:read"])
        }
        // Both have passed the reservation of `Idempotency` (a takeover of a key whose first
        // request seemed abandoned, say): nothing but the store stands between their inserts.
        const keys = Array.from({ length: 5 }, () => Idempotency.Key.make(fresh("idem")))
        const sends = keys.flatMap((idempotencyKey) =>
          [one, other].map((running) =>
            Context.get(running, Messaging.Messaging).send(principal, {
              to: "+61412345678",
              senderId: "Acme",
              body: "Your code is 123456",
              market: "AU",
              idempotencyKey
            })
          )
        )
        const answers = yield* Effect.all(sends, { concurrency: "unbounded" })
        for (const [i, key] of keys.entries()) {
          const [first, second] = [answers[2 * i]!, answers[2 * i + 1]!]
          assert.strictEqual(first.id, second.id, `both sends of ${key} answer one message`)
          assert.strictEqual(first.idempotencyKey, key)
        }
        const listed = yield* Context.get(other, Messaging.Messaging).list(principal, { filter: {} })
        assert.strictEqual(listed.items.length, keys.length, "one message per key")
      }).pipe(Effect.scoped))

    it.live("two processes' MailSenders passing at once send each mail once", () =>
      Effect.gen(function*() {
        const processes = [yield* startMailProcess(store), yield* startMailProcess(store)]
        const now = yield* Clock.currentTimeMillis
        const mails = Array.from({ length: 12 }, () => makeMail(fresh("mail"), { createdAt: now, nextAttemptAt: now }))
        const ours = new Set(mails.map((mail) => mail.id))
        yield* Context.get(processes[0]!, MailStore).insert(mails)
        // Other tests' mails on this database may be due too: only ours are counted.
        const sentByEach = Effect.forEach(processes, (running) =>
          Effect.map(Context.get(running, CapturingMailer.CapturingMailer).sent, (sent) =>
            sent.filter((mail) =>
              ours.has(mail.id)
            )))
        for (let pass = 0; pass < 50; pass++) {
          yield* Effect.all(processes.map((running) => Context.get(running, MailSender.MailSender).runOnce), {
            concurrency: "unbounded"
          })
          if ((yield* sentByEach).flat().length >= mails.length) break
        }
        const sent = (yield* sentByEach).flat().map((mail) => mail.id)
        assert.deepStrictEqual([...sent].sort(), [...ours].sort(), "every mail sent, none twice")
        for (const mail of mails) {
          const stored = yield* Context.get(processes[1]!, MailStore).findById(mail.id)
          assert.strictEqual(Option.getOrThrow(stored).status, "sent")
        }
      }).pipe(Effect.scoped))

    it.live("two processes moving one Sender ID from one version at once: exactly one move applies, with its registrations", () =>
      Effect.gen(function*() {
        const { accountId, processes } = yield* twoStoreProcesses(store)
        for (let round = 0; round < 5; round++) {
          const record = makeSubmittedSenderId(accountId, { senderId: fresh("Two") })
          const registrations = ["telstra", "optus"].map((network) => makeRegistration(record, network))
          yield* Context.get(processes[0]!, SenderIdStore).insert(record, registrations, [])
          // each process's operator decides its own registration, both having read version 0
          const moves = registrations.map((registration, i) => {
            const next = { ...record, status: i === 0 ? "info_requested" as const : "rejected" as const, version: 1 }
            return {
              next,
              registrations: [{ ...registration, status: next.status, decidedAt: T + i }],
              events: [makeSenderIdEvent(next, "sid.status_changed", T + i)]
            }
          })
          const outcomes = yield* Effect.all(
            moves.map((move, i) => Context.get(processes[i]!, SenderIdStore).transition([move])),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(outcomes.flat().filter((moved) => moved).length, 1, "exactly one applies")
          const winner = moves[outcomes.findIndex(([moved]) => moved)]!
          const found = Option.getOrThrow(yield* Context.get(processes[1]!, SenderIdStore).findById(record.id))
          assert.deepStrictEqual(found.record, winner.next)
          assert.deepStrictEqual(
            found.registrations,
            registrations.map((r) => winner.registrations.find((moved) => moved.id === r.id) ?? r)
          )
        }
      }).pipe(Effect.scoped))

    it.live("two processes' expiry watchers claiming at once never get the same Sender ID", () =>
      Effect.gen(function*() {
        const { accountId, processes } = yield* twoStoreProcesses(store)
        const now = yield* Clock.currentTimeMillis
        const records = Array.from(
          { length: 12 },
          (_, i) => makeSenderId(accountId, { senderId: fresh("Watch") }, now + i)
        )
        for (const record of records) yield* Context.get(processes[0]!, SenderIdStore).insert(record, [], [])
        const ours = new Set(records.map((record) => record.id))
        const due = SenderId.watchAt(records[records.length - 1]!)!
        // Other tests' records may be due too: only ours are counted.
        const claimed: Array<string> = []
        for (let pass = 0; pass < 50 && claimed.length < records.length; pass++) {
          const batches = yield* Effect.all(
            processes.map((running) => Context.get(running, SenderIdStore).claimWatched(due, 3, due + 3_600_000)),
            { concurrency: "unbounded" }
          )
          for (const record of batches.flat()) if (ours.has(record.id)) claimed.push(record.id)
        }
        assert.deepStrictEqual([...claimed].sort(), [...ours].sort(), "each claimed once")
      }).pipe(Effect.scoped))

    it.live("two processes' expiry watchers passing at once emit each sid.expiring and each expiry once", () =>
      Effect.gen(function*() {
        const { accountId, processes } = yield* twoStoreProcesses(store)
        const watchers = yield* Effect.forEach(
          processes,
          (running) =>
            Effect.provide(ExpiryWatcher.make({ batchSize: 2 }), Layer.merge(Layer.succeedContext(running), Ids.layer))
        )
        const now = yield* Clock.currentTimeMillis
        const day = 86_400_000
        // six in their last 30 days (each warned once), six past their expires_at (each expired once)
        const warned = Array.from(
          { length: 6 },
          (_, i) => makeSenderId(accountId, { senderId: fresh("Warn"), expiresAt: now + 10 * day + i }, now - 355 * day)
        )
        const expired = Array.from(
          { length: 6 },
          (_, i) => makeSenderId(accountId, { senderId: fresh("Gone"), expiresAt: now - 1 - i }, now - 366 * day)
        )
        for (const record of [...warned, ...expired]) {
          yield* Context.get(processes[0], SenderIdStore).insert(record, [], [])
        }
        for (let pass = 0; pass < 10; pass++) {
          yield* Effect.all(watchers.map((watcher) => watcher.runOnce), { concurrency: "unbounded" })
        }
        const events = Context.get(processes[1], EventStore)
        for (const record of warned) {
          assert.deepStrictEqual((yield* events.listBySubject(accountId, record.id)).map((e) => e.type), [
            "sid.expiring"
          ])
        }
        for (const record of expired) {
          const types = (yield* events.listBySubject(accountId, record.id)).map((e) => e.type)
          assert.deepStrictEqual(types, ["sid.status_changed"], record.id)
          assert.strictEqual(
            Option.getOrThrow(yield* Context.get(processes[1], SenderIdStore).findById(record.id)).record.status,
            "expired"
          )
        }
      }).pipe(Effect.scoped))
  })
}
