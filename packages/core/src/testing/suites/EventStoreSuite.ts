/**
 * The store suite's tests of `EventStore`: the event log.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Event } from "../../Event.js"
import { EventStore } from "../../EventStore.js"
import type { Keyset, Message } from "../../messaging/Message.js"
import { MessageStore } from "../../messaging/MessageStore.js"
import type { Stores } from "../../Stores.js"
import {
  allPages,
  createdAtKeyset,
  fresh,
  freshAccount,
  insertMessageEvent,
  makeEvent,
  makeMessage,
  T,
  transitionOne
} from "../Fixtures.js"

/** The order of the event log: createdAt desc, then id desc. */
const newestFirst = (events: ReadonlyArray<Event>) =>
  [...events].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/** Registers the tests of `EventStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("EventStore: listBySubject is oldest first and scoped to the account", () =>
    Effect.gen(function*() {
      const messages = yield* MessageStore
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const otherAccountId = yield* freshAccount
      const queued = makeMessage(accountId, fresh("msg"))
      // written out of time order: the list follows createdAt, not insertion
      const e3 = makeEvent(queued, fresh("evt"), T + 3_000)
      yield* messages.insert(queued, Option.some(e3))
      const sent: Message = { ...queued, status: "sent", sentAt: T + 1_000 }
      const e1 = makeEvent(sent, fresh("evt"), T + 1_000)
      yield* transitionOne(sent, "queued", Option.some(e1))
      const delivered: Message = { ...sent, status: "delivered", deliveredAt: T + 2_000 }
      const e2 = makeEvent(delivered, fresh("evt"), T + 2_000)
      yield* transitionOne(delivered, "sent", Option.some(e2))
      const other = makeMessage(accountId, fresh("msg"))
      yield* messages.insert(other, Option.some(makeEvent(other, fresh("evt"), T + 1_500)))

      assert.deepStrictEqual(yield* events.listBySubject(accountId, queued.id), [e1, e2, e3])
      assert.deepStrictEqual(yield* events.listBySubject(otherAccountId, queued.id), [])
      assert.deepStrictEqual(yield* events.listBySubject(accountId, fresh("msg")), [])
    }))

  it.effect("EventStore: findById finds an event of the account's own only", () =>
    Effect.gen(function*() {
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const { event } = yield* insertMessageEvent(accountId, T)
      assert.deepStrictEqual(yield* events.findById(accountId, event.id), Option.some(event))
      assert.isTrue(Option.isNone(yield* events.findById(yield* freshAccount, event.id)), "another account's event")
      assert.isTrue(Option.isNone(yield* events.findById(accountId, fresh("evt"))))
    }))

  it.effect("EventStore: list is the account's events newest first, by type and from a time, resuming after a keyset", () =>
    Effect.gen(function*() {
      const events = yield* EventStore
      const accountId = yield* freshAccount
      const spec: ReadonlyArray<readonly [number, Message["status"]]> = [
        [T + 1_000, "queued"],
        [T + 2_000, "delivered"],
        [T + 2_000, "queued"],
        [T + 2_000, "delivered"],
        [T + 3_000, "failed"],
        [T + 4_000, "queued"]
      ]
      const all: Array<Event> = []
      for (const [at, status] of spec) all.push((yield* insertMessageEvent(accountId, at, { status })).event)
      yield* insertMessageEvent(yield* freshAccount, T + 2_000)
      const expected = newestFirst(all)
      const list = (
        filter: Parameters<typeof events.list>[1],
        after: Option.Option<Keyset> = Option.none(),
        limit = 50
      ) => events.list(accountId, filter, after, limit)

      assert.deepStrictEqual(yield* list({}), expected)
      assert.deepStrictEqual(
        yield* list({ type: "message.delivered" }),
        expected.filter((e) => e.type === "message.delivered")
      )
      assert.deepStrictEqual(yield* list({ createdAfter: T + 2_000 }), expected.filter((e) => e.createdAt >= T + 2_000))
      assert.deepStrictEqual(
        yield* list({ type: "message.queued", createdAfter: T + 2_000 }),
        expected.filter((e) => e.type === "message.queued" && e.createdAt >= T + 2_000)
      )
      assert.deepStrictEqual(yield* list({ type: "sid.registered" }), [])

      const pages = yield* allPages((after, limit) => list({}, after, limit), 2, createdAtKeyset)
      assert.deepStrictEqual(pages.map((page) => page.length), [2, 2, 2, 0])
      assert.deepStrictEqual(pages.flat(), expected, "the pages, one after the other, are the list")
    }))
}
