/**
 * The store suite's tests of `EventStore`: the event log.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Message } from "../messaging/Message.js"
import { MessageStore } from "../messaging/MessageStore.js"
import { EventStore } from "../EventStore.js"
import type { Stores } from "../Stores.js"
import { fresh, T, makeMessage, makeEvent, freshAccount, transitionOne } from "./Fixtures.js"

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
}
