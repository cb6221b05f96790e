/**
 * The store suite's tests of `SenderIdStore`: Sender ID records, written with their registrations
 * and events, moved over their version, and claimed by the expiry watcher (the operators' list of
 * registrations: `RegistrationStoreSuite`).
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { EventStore } from "../../EventStore.js"
import type { Keyset } from "../../Pagination.js"
import * as SenderId from "../../senderIds/SenderId.js"
import type { Holder, SenderIdRecord } from "../../senderIds/SenderId.js"
import type { Move, SenderIdFilter, WithRegistrations } from "../../senderIds/SenderIdStore.js"
import { PendingLimitReached, SenderIdStore, SenderIdTaken } from "../../senderIds/SenderIdStore.js"
import type { Stores } from "../../Stores.js"
import {
  drainWatched,
  FOREVER,
  fresh,
  freshAccount,
  freshHolder,
  makeRegistration,
  makeSenderId,
  makeSenderIdEvent,
  makeSubmittedSenderId,
  T
} from "../Fixtures.js"

/** Registers the tests of `SenderIdStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("SenderIdStore: insert writes a record with its registrations and events; findById answers them whoever's it is, the registrations oldest first", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const submitted = makeSubmittedSenderId(accountId, { senderId: fresh("Sub") })
      const [telstra, optus, vodafone] = ["telstra", "optus", "vodafone"].map((network) =>
        makeRegistration(submitted, network)
      )
      const reviewed = {
        ...vodafone!,
        status: "info_requested",
        decidedAt: T + 5,
        message: "Which of your brands' sites names \"Acme\"? — ünïcode 👋"
      } as const
      const event = makeSenderIdEvent(submitted, "sid.status_changed", T)
      // given in another order than they were made: found oldest first
      yield* senderIds.insert(submitted, [optus!, reviewed, telstra!], [event])
      assert.deepStrictEqual(
        yield* senderIds.findById(submitted.id),
        Option.some({ record: submitted, registrations: [telstra!, optus!, reviewed] })
      )
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, submitted.id), [event])

      const imported = makeSenderId(accountId, { registeredAt: T + 10 })
      yield* senderIds.insert(imported, [], [])
      assert.deepStrictEqual(
        yield* senderIds.findById(imported.id),
        Option.some({ record: imported, registrations: [] })
      )
      assert.isTrue(Option.isNone(yield* senderIds.findById(fresh("sid"))))
    }))

  it.effect("SenderIdStore: an insert refused SenderIdTaken writes neither its record nor its registrations nor its events", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("Held")
      yield* senderIds.insert(makeSubmittedSenderId(yield* freshAccount, { senderId, ...freshHolder() }), [], [])
      const accountId = yield* freshAccount
      const refused = makeSubmittedSenderId(accountId, { senderId, ...freshHolder() })
      const registration = makeRegistration(refused, "telstra")
      const error = yield* Effect.flip(
        senderIds.insert(refused, [registration], [makeSenderIdEvent(refused, "sid.status_changed", T)])
      )
      assert.deepStrictEqual(error, new SenderIdTaken({ senderId, market: "AU" }), "the holder is not named")
      assert.isTrue(Option.isNone(yield* senderIds.findById(refused.id)))
      assert.isTrue(Option.isNone(yield* senderIds.findRegistration(registration.id)))
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, refused.id), [])
    }))

  it.effect("SenderIdStore: findRegistered needs the account, the market and status registered", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const registered = makeSenderId(accountId)
      yield* senderIds.insert(registered, [], [])
      for (const status of ["pending", "info_requested", "rejected", "expired"] as const) {
        yield* senderIds.insert(makeSenderId(accountId, { senderId: "Bolt", status }), [], [])
      }
      yield* senderIds.insert(makeSenderId(accountId, { market: "NZ", status: "pending" }), [], [])

      assert.deepStrictEqual(yield* senderIds.findRegistered(accountId, "Acme", "AU"), Option.some(registered))
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(otherAccountId, "Acme", "AU")), "wrong account")
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Acme", "NZ")), "wrong market")
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Acme", "SG")), "no record")
      assert.isTrue(Option.isNone(yield* senderIds.findRegistered(accountId, "Bolt", "AU")), "not registered")
    }))

  it.effect("SenderIdStore: of two inserts at once of one Sender ID, in two cases or as look-alikes, under two legal entities, exactly one succeeds", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const pairs: ReadonlyArray<readonly [string, string]> = [
        ["Race", "RACE"],
        ["Sendline", "Send line"],
        ["Sendline", "Sendl1ne"],
        ["Boost", "8oo5t"],
        ["Moon", "rnO0n"]
      ]
      for (const [round, [one, other]] of pairs.entries()) {
        const market = ["AU", "NZ", "SG", "GB", "US"][round]!
        const suffix = fresh("")
        const both = [
          makeSenderId(yield* freshAccount, { senderId: one + suffix, market, ...freshHolder() }),
          makeSenderId(yield* freshAccount, { senderId: other + suffix, market, ...freshHolder() })
        ]
        const outcomes = yield* Effect.all(both.map((record) => Effect.either(senderIds.insert(record, [], []))), {
          concurrency: "unbounded"
        })
        const winners = both.filter((_, i) => Either.isRight(outcomes[i]!))
        assert.strictEqual(winners.length, 1, `one insert of ${one} and ${other} succeeds`)
        const loser = both.find((record) => record !== winners[0])!
        assert.deepStrictEqual(
          outcomes.find(Either.isLeft)?.left,
          new SenderIdTaken({ senderId: loser.senderId, market })
        )
        assert.isTrue(Option.isNone(yield* senderIds.findById(loser.id)), "the loser is not written")
        assert.isTrue(Option.isSome(yield* senderIds.findById(winners[0]!.id)), "the winner is")
      }
    }))

  it.effect("SenderIdStore: a Sender ID is held by a legal identifier, never a brand name: another entity under the holder's name is SenderIdTaken, the holder under a new name is not", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      for (const market of ["AU", "NZ"]) {
        const senderId = fresh("Sendline")
        const holder = freshHolder()
        yield* senderIds.insert(
          makeSubmittedSenderId(yield* freshAccount, {
            senderId,
            market,
            brandName: "Sendline Demo Pty Ltd",
            ...holder
          }),
          [],
          []
        )
        // another entity whose provider renamed its brand to the holder's name
        const renamed = makeSubmittedSenderId(yield* freshAccount, {
          senderId,
          market,
          brandName: "Sendline Demo Pty Ltd",
          ...freshHolder()
        }, T + 1)
        assert.deepStrictEqual(
          yield* Effect.flip(senderIds.insert(renamed, [], [])),
          new SenderIdTaken({ senderId, market })
        )
        assert.isTrue(Option.isNone(yield* senderIds.findById(renamed.id)))
        // the holder, its brand renamed since, from another account too
        const again = makeSubmittedSenderId(yield* freshAccount, {
          senderId,
          market,
          brandName: "Sendline Group Ltd",
          ...holder
        }, T + 2)
        yield* senderIds.insert(again, [], [])
        assert.isTrue(Option.isSome(yield* senderIds.findById(again.id)))
      }
    }))

  it.effect("SenderIdStore: a look-alike of a held Sender ID in its market is SenderIdTaken (case, spaces, I/l/1, O/0, S/5, B/8, m/rn); distinct strings and other markets are not", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const cases: ReadonlyArray<readonly [string, string, boolean]> = [
        ["Sendline", "SENDLINE", true],
        ["Sendline", "Send line", true],
        ["Sendline", "SendIine", true],
        ["Sendline", "Sendl1ne", true],
        ["Sendline", "5endline", true],
        ["Sendline", "SEND L1NE", true],
        ["Boost", "B0ost", true],
        ["Boost", "8oost", true],
        ["Moon", "rnoon", true],
        ["Sendline", "Sendlane", false],
        ["Sendline", "Sendlines", false],
        ["Sendline", "Sendine", false],
        ["Boost", "Boast", false],
        ["Moon", "Noon", false]
      ]
      for (const [held, other, alike] of cases) {
        const suffix = fresh("")
        yield* senderIds.insert(
          makeSenderId(yield* freshAccount, { senderId: held + suffix, ...freshHolder() }),
          [],
          []
        )
        const record = makeSenderId(yield* freshAccount, { senderId: other + suffix, ...freshHolder() })
        const outcome = yield* Effect.either(senderIds.insert(record, [], []))
        assert.deepStrictEqual(
          outcome,
          alike ? Either.left(new SenderIdTaken({ senderId: record.senderId, market: "AU" })) : Either.right(undefined),
          `${other} beside ${held}`
        )
        yield* senderIds.insert({ ...record, id: fresh("sid"), market: "NZ" }, [], [])
      }
    }))

  it.effect("SenderIdStore: a legal entity holds a string with several records, from several accounts, in any case; another entity is SenderIdTaken", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("Same")
      const mine = { senderId, ...freshHolder() }
      const accountId = yield* freshAccount
      yield* senderIds.insert(makeSenderId(accountId, mine), [], [])
      yield* senderIds.insert(makeSenderId(accountId, mine, T + 1), [], [])
      yield* senderIds.insert(
        makeSenderId(yield* freshAccount, { ...mine, senderId: senderId.toUpperCase() }, T + 2),
        [],
        []
      )
      const other = makeSenderId(yield* freshAccount, { senderId: senderId.toLowerCase(), ...freshHolder() }, T + 3)
      assert.deepStrictEqual(
        yield* Effect.flip(senderIds.insert(other, [], [])),
        new SenderIdTaken({ senderId: other.senderId, market: "AU" })
      )
      yield* senderIds.insert({ ...other, id: fresh("sid"), market: "NZ" }, [], [])
    }))

  it.effect("SenderIdStore: a rejected, expired or overdue record does not hold its string; an entity's live record takes it", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const senderId = fresh("Gone")
      const [first, second, third, fourth, fifth, sixth] = Array.from({ length: 6 }, freshHolder)
      const insertAs = (holder: Holder, fields: Partial<SenderIdRecord>, at: number) =>
        Effect.either(
          Effect.flatMap(freshAccount, (accountId) =>
            senderIds.insert(makeSenderId(accountId, { senderId, ...holder, ...fields }, at), [], []))
        )
      // records that never held it
      assert.isTrue(Either.isRight(yield* insertAs(first!, { status: "rejected" }, T)))
      assert.isTrue(Either.isRight(yield* insertAs(second!, { status: "expired" }, T)))
      // a live record holds it until its expires_at
      assert.isTrue(Either.isRight(yield* insertAs(third!, { expiresAt: T + 1_000 }, T)))
      assert.isTrue(Either.isLeft(yield* insertAs(fourth!, {}, T + 999)), "held until it expires")
      assert.isTrue(Either.isRight(yield* insertAs(fourth!, {}, T + 1_000)), "released once it is overdue")
      assert.deepStrictEqual(
        yield* insertAs(third!, {}, T + 1_001),
        Either.left(new SenderIdTaken({ senderId, market: "AU" }))
      )
      // a pending record holds it too
      const pending = fresh("Wait")
      const pendingRecord = makeSenderId(yield* freshAccount, { senderId: pending, ...fifth!, status: "pending" })
      yield* senderIds.insert(pendingRecord, [], [])
      assert.isTrue(
        Either.isLeft(
          yield* Effect.either(
            senderIds.insert(makeSenderId(yield* freshAccount, { senderId: pending, ...sixth! }), [], [])
          )
        )
      )
    }))

  it.effect("SenderIdStore: with a pendingLimit, an account has at most that many records pending or info_requested; refused, PendingLimitReached writes nothing", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      for (const status of ["pending", "info_requested", "pending"] as const) {
        const record = makeSubmittedSenderId(accountId, { senderId: fresh("Cap"), status })
        yield* senderIds.insert(record, [makeRegistration(record, "telstra")], [], 3)
      }
      // what does not count: a registered or rejected record, another account's pending ones
      yield* senderIds.insert(makeSenderId(accountId, { senderId: fresh("Cap") }), [], [])
      yield* senderIds.insert(makeSubmittedSenderId(accountId, { senderId: fresh("Cap"), status: "rejected" }), [], [])
      yield* senderIds.insert(makeSubmittedSenderId(yield* freshAccount, { senderId: fresh("Cap") }), [], [], 3)

      const record = makeSubmittedSenderId(accountId, { senderId: fresh("Cap") })
      const registration = makeRegistration(record, "telstra")
      assert.deepStrictEqual(
        yield* Effect.flip(
          senderIds.insert(record, [registration], [makeSenderIdEvent(record, "sid.status_changed", T)], 3)
        ),
        new PendingLimitReached({ accountId, limit: 3 })
      )
      assert.isTrue(Option.isNone(yield* senderIds.findById(record.id)))
      assert.isTrue(Option.isNone(yield* senderIds.findRegistration(registration.id)))
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, record.id), [])
      yield* senderIds.insert(record, [registration], [], 4)
      assert.isTrue(Option.isSome(yield* senderIds.findById(record.id)), "a higher limit lets it in")
    }))

  it.effect("SenderIdStore: of eight inserts at once of an account with room for two more pending records, exactly two succeed", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      yield* senderIds.insert(makeSubmittedSenderId(accountId, { senderId: fresh("Cap") }), [], [], 3)
      const records = Array.from({ length: 8 }, () => makeSubmittedSenderId(accountId, { senderId: fresh("Cap") }))
      const outcomes = yield* Effect.all(records.map((r) => Effect.either(senderIds.insert(r, [], [], 3))), {
        concurrency: "unbounded"
      })
      assert.strictEqual(outcomes.filter(Either.isRight).length, 2, "two succeed")
      for (const outcome of outcomes.filter(Either.isLeft)) {
        assert.deepStrictEqual(outcome.left, new PendingLimitReached({ accountId, limit: 3 }))
      }
      const listed = yield* senderIds.list(accountId, { status: "pending" }, Option.none(), 100)
      assert.strictEqual(listed.length, 3)
    }))

  it.effect("SenderIdStore: findRegistered answers the newest of several registered records", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const record = (createdAt: number) => makeSenderId(accountId, {}, createdAt)
      const [older, newest, old] = [record(T + 1_000), record(T + 2_000), record(T)]
      for (const r of [older, newest, old]) yield* senderIds.insert(r, [], [])
      assert.deepStrictEqual(yield* senderIds.findRegistered(accountId, "Acme", "AU"), Option.some(newest))
    }))

  it.effect("SenderIdStore: list answers an account's records with their registrations, newest first, by status and market, a page after another", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const spec: ReadonlyArray<readonly [number, string, SenderIdRecord["status"]]> = [
        [T + 1, "AU", "pending"],
        [T + 2, "NZ", "pending"],
        [T + 2, "AU", "rejected"], // as new as the one before: the id decides
        [T + 3, "AU", "pending"],
        [T + 4, "SG", "info_requested"]
      ]
      const inserted: Array<WithRegistrations> = []
      for (const [at, market, status] of spec) {
        const record = makeSubmittedSenderId(accountId, { senderId: fresh("L"), market, status }, at)
        const registrations = [makeRegistration(record, "one"), makeRegistration(record, "two")]
        yield* senderIds.insert(record, registrations, [])
        inserted.push({ record, registrations })
      }
      yield* senderIds.insert(makeSubmittedSenderId(yield* freshAccount, { senderId: fresh("L") }), [], []) // another account's
      const newest = [...inserted].sort((a, b) =>
        b.record.createdAt - a.record.createdAt || (a.record.id < b.record.id ? 1 : -1)
      )
      const list = (filter: SenderIdFilter, after: Option.Option<Keyset> = Option.none(), limit = 100) =>
        senderIds.list(accountId, filter, after, limit)
      assert.deepStrictEqual(yield* list({}), newest)
      assert.deepStrictEqual(yield* list({ status: "pending" }), newest.filter((w) => w.record.status === "pending"))
      assert.deepStrictEqual(yield* list({ market: "AU" }), newest.filter((w) => w.record.market === "AU"))
      assert.deepStrictEqual(
        yield* list({ market: "AU", status: "rejected" }),
        newest.filter((w) => w.record.status === "rejected")
      )
      const pages: Array<ReadonlyArray<WithRegistrations>> = []
      let after: Option.Option<Keyset> = Option.none()
      do {
        pages.push(yield* list({}, after, 2))
        const last = pages[pages.length - 1]!.at(-1)
        after = Option.map(Option.fromNullable(last), ({ record }) => ({ createdAt: record.createdAt, id: record.id }))
      } while (pages[pages.length - 1]!.length === 2)
      assert.deepStrictEqual(pages.map((page) => page.length), [2, 2, 1])
      assert.deepStrictEqual(pages.flat(), newest)
    }))

  it.effect("SenderIdStore: a move applies only over the version it was made from: of two moves from one version, the second does not", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const record = makeSubmittedSenderId(accountId, { senderId: fresh("V") })
      const registration = makeRegistration(record, "telstra")
      yield* senderIds.insert(record, [registration], [])
      const moveTo = (status: "info_requested" | "rejected", version: number) => {
        const next = { ...record, status, version }
        const decided = status === "rejected"
          ? { ...registration, status, decidedAt: T + 1, reason: "Not the brand's name" }
          : { ...registration, status, decidedAt: T + 1, message: "Which site?" }
        return { next, registrations: [decided], events: [makeSenderIdEvent(next, "sid.status_changed", T + 1)] }
      }
      const asked = moveTo("info_requested", 1)
      const rejected = moveTo("rejected", 1)
      assert.deepStrictEqual(yield* senderIds.transition([asked]), [true])
      assert.deepStrictEqual(yield* senderIds.transition([rejected]), [false], "made from version 0, which is gone")
      assert.deepStrictEqual(
        yield* senderIds.transition([moveTo("rejected", 3)]),
        [false],
        "made from a version never stored"
      )
      assert.deepStrictEqual(
        yield* senderIds.findById(record.id),
        Option.some({ record: asked.next, registrations: asked.registrations })
      )
      assert.deepStrictEqual(yield* (yield* EventStore).listBySubject(accountId, record.id), asked.events)
      assert.deepStrictEqual(yield* senderIds.transition([moveTo("rejected", 2)]), [true], "made from version 1")
    }))

  it.effect("SenderIdStore: of two moves from one version at once, exactly one applies, with its registrations and events only", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const events = yield* EventStore
      for (let round = 0; round < 5; round++) {
        const accountId = yield* freshAccount
        const record = makeSubmittedSenderId(accountId, { senderId: fresh("Race") })
        const registrations = ["telstra", "optus"].map((network) => makeRegistration(record, network))
        yield* senderIds.insert(record, registrations, [])
        // each operator approves its own registration, both having read version 0
        const moves = registrations.map((registration, i) => {
          const next = { ...record, useCase: `decided by ${registration.network}`, version: 1 }
          return {
            next,
            registrations: [{ ...registration, status: "approved" as const, decidedAt: T + i }],
            events: [makeSenderIdEvent(next, "sid.status_changed", T + i)]
          }
        })
        const outcomes = yield* Effect.all(moves.map((move) => senderIds.transition([move])), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(outcomes.flat().filter((moved) => moved).length, 1, "exactly one applies")
        const winner = moves[outcomes.findIndex(([moved]) => moved)]!
        const found = Option.getOrThrow(yield* senderIds.findById(record.id))
        assert.deepStrictEqual(found.record, winner.next)
        assert.deepStrictEqual(
          found.registrations,
          registrations.map((r) => winner.registrations.find((moved) => moved.id === r.id) ?? r),
          "the loser's registration is as it was"
        )
        assert.deepStrictEqual(yield* events.listBySubject(accountId, record.id), winner.events)
      }
    }))

  it.effect("SenderIdStore: a call's moves apply in order, in one transaction, each replacing its record's registrations by id and writing its events only when it applies", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const accountId = yield* freshAccount
      const record = makeSubmittedSenderId(accountId, { senderId: fresh("Seq") })
      const other = makeSubmittedSenderId(accountId, { senderId: fresh("Seq") })
      const [telstra, optus] = ["telstra", "optus"].map((network) => makeRegistration(record, network))
      const otherRegistration = makeRegistration(other, "telstra")
      yield* senderIds.insert(record, [telstra!, optus!], [])
      yield* senderIds.insert(other, [otherRegistration], [])
      const first = { ...record, status: "info_requested" as const, version: 1 }
      const second = { ...first, status: "rejected" as const, version: 2 } // made from the first
      const stale = { ...other, status: "rejected" as const, version: 5 }
      const moves: ReadonlyArray<Move> = [
        {
          next: first,
          registrations: [
            { ...telstra!, status: "info_requested", decidedAt: T + 1, message: "Which site?" },
            { ...otherRegistration, status: "approved", decidedAt: T + 1 } // another record's: left as it is
          ],
          events: [makeSenderIdEvent(first, "sid.status_changed", T + 1)]
        },
        {
          next: second,
          registrations: [{ ...optus!, status: "rejected", decidedAt: T + 2, reason: "Taken" }],
          events: [
            makeSenderIdEvent(second, "sid.status_changed", T + 2),
            makeSenderIdEvent(second, "sid.rejected", T + 2)
          ]
        },
        {
          next: stale,
          registrations: [{ ...otherRegistration, status: "rejected", decidedAt: T + 3, reason: "Stale" }],
          events: [makeSenderIdEvent(stale, "sid.rejected", T + 3)]
        }
      ]
      assert.deepStrictEqual(yield* senderIds.transition(moves), [true, true, false])
      assert.deepStrictEqual(yield* senderIds.transition([]), [])
      assert.deepStrictEqual(
        yield* senderIds.findById(record.id),
        Option.some({ record: second, registrations: [moves[0]!.registrations[0]!, moves[1]!.registrations[0]!] })
      )
      assert.deepStrictEqual(
        yield* senderIds.findById(other.id),
        Option.some({ record: other, registrations: [otherRegistration] })
      )
      const events = yield* EventStore
      assert.deepStrictEqual(yield* events.listBySubject(accountId, record.id), [
        ...moves[0]!.events,
        ...moves[1]!.events
      ])
      assert.deepStrictEqual(yield* events.listBySubject(accountId, other.id), [])
    }))

  it.effect("SenderIdStore: claimWatched claims the records due by their watchAt, the earliest first, and holds them until the lease ends", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      yield* drainWatched
      const accountId = yield* freshAccount
      const at = T + 1_000_000
      const record = (fields: Partial<SenderIdRecord>, createdAt: number) =>
        makeSenderId(accountId, { senderId: fresh("W"), ...fields }, createdAt)
      const later = record({}, at + 2) // watched 30 days before it expires
      const sooner = record({}, at + 1)
      const warned = record(
        { warnedExpiresAt: at - SenderId.warningMillis + SenderId.termMillis },
        at - SenderId.warningMillis
      ) // watched when it expires
      const tied = { ...sooner, id: `${sooner.id}z` } // as soon as `sooner`: the id decides
      for (const r of [later, sooner, warned, tied]) yield* senderIds.insert(r, [], [])
      for (const status of ["pending", "info_requested", "rejected", "expired"] as const) {
        yield* senderIds.insert(record({ status }, at), [], []) // never watched
      }
      const watchAt = (r: SenderIdRecord) => SenderId.watchAt(r)!
      assert.strictEqual(watchAt(warned), watchAt(sooner) - 1)
      const lease = watchAt(later) + 100

      assert.deepStrictEqual(yield* senderIds.claimWatched(watchAt(warned) - 1, 10, lease), [], "none due yet")
      assert.deepStrictEqual(
        yield* senderIds.claimWatched(watchAt(later), 3, lease),
        [warned, sooner, tied],
        "the earliest first, up to the limit"
      )
      assert.deepStrictEqual(yield* senderIds.claimWatched(watchAt(later), 10, lease), [later])
      assert.deepStrictEqual(
        yield* senderIds.claimWatched(lease - 1, 10, lease + 10),
        [],
        "all held while their lease lasts"
      )
      assert.deepStrictEqual(
        yield* senderIds.claimWatched(lease, 10, lease + 10),
        [warned, sooner, tied, later],
        "free once it ends"
      )
    }))

  it.effect("SenderIdStore: any move of a record ends its claim, and a record is watched as its new version says", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      yield* drainWatched
      const accountId = yield* freshAccount
      const record = makeSenderId(accountId, { senderId: fresh("M") }, T + 2_000_000)
      yield* senderIds.insert(record, [], [])
      const warnAt = SenderId.watchAt(record)!
      assert.deepStrictEqual(yield* senderIds.claimWatched(warnAt, 10, FOREVER), [record])
      // warned: watched again when it expires, claimable then although its lease never ended
      const warned = { ...record, warnedExpiresAt: record.expiresAt!, version: 1 }
      assert.deepStrictEqual(yield* senderIds.transition([{ next: warned, registrations: [], events: [] }]), [true])
      assert.deepStrictEqual(yield* senderIds.claimWatched(record.expiresAt! - 1, 10, FOREVER), [])
      assert.deepStrictEqual(yield* senderIds.claimWatched(record.expiresAt!, 10, FOREVER), [warned])
      // expired: never watched again
      const expired = { ...warned, status: "expired" as const, version: 2 }
      assert.deepStrictEqual(yield* senderIds.transition([{ next: expired, registrations: [], events: [] }]), [true])
      assert.deepStrictEqual(yield* senderIds.claimWatched(FOREVER - 1, 10, FOREVER), [])
      // renewed: watched again, 30 days before its new expiry
      const renewed = { ...warned, expiresAt: record.expiresAt! + SenderId.termMillis, version: 3 }
      assert.deepStrictEqual(yield* senderIds.transition([{ next: renewed, registrations: [], events: [] }]), [true])
      assert.deepStrictEqual(yield* senderIds.claimWatched(SenderId.watchAt(renewed)!, 10, FOREVER), [renewed])
    }))

  it.effect("SenderIdStore: two claimers at once never get the same record", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      yield* drainWatched
      const accountId = yield* freshAccount
      const records = Array.from({ length: 20 }, (_, i) =>
        makeSenderId(accountId, { senderId: fresh("C") }, T + 3_000_000 + i))
      for (const r of records) {
        yield* senderIds.insert(r, [], [])
      }
      const now = SenderId.watchAt(records[records.length - 1]!)!
      const claimed: Array<string> = []
      for (let pass = 0; pass < 20 && claimed.length < records.length; pass++) {
        const batches = yield* Effect.all(
          Array.from({ length: 4 }, () =>
            senderIds.claimWatched(now, 3, FOREVER)),
          { concurrency: "unbounded" }
        )
        for (const r of batches.flat()) claimed.push(r.id)
      }
      assert.deepStrictEqual([...claimed].sort(), records.map((r) => r.id).sort(), "each claimed once")
    }))
}
