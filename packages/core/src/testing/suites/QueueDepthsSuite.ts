/**
 * The store suite's tests of `QueueDepths`: each stored queue counts its items due now (claimed or
 * not), none that are not due or done, at most `limit`, and reports when its longest due item fell
 * due. The suite's tables hold other tests' rows too, so each test compares a queue's depth before
 * and after its own inserts, and dates its items before any other test's.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { MailStore } from "../../mail/MailStore.js"
import { MessageStore } from "../../messaging/MessageStore.js"
import * as QueueDepths from "../../QueueDepths.js"
import { warningMillis } from "../../senderIds/SenderId.js"
import { SenderIdStore } from "../../senderIds/SenderIdStore.js"
import type { Stores } from "../../Stores.js"
import { DeliveryStore } from "../../webhooks/DeliveryStore.js"
import {
  fresh,
  freshAccount,
  insertMessageEvent,
  makeDelivery,
  makeMail,
  makeMessage,
  makeSenderId,
  T
} from "../Fixtures.js"

/** Each queue's depth at `now`, by queue. */
const depthsAt = (now: number, limit = 1_000_000) =>
  Effect.map(
    Effect.flatMap(QueueDepths.QueueDepths, (store) => store.read(now, limit)),
    (depths) => new Map(depths.map((depth) => [depth.queue, depth]))
  )

/** Registers the tests of `QueueDepths` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("QueueDepths: each queue counts its items due now, and dates its longest due, in one read of every queue", () =>
    Effect.gen(function*() {
      const accountId = yield* freshAccount
      const now = T + 1_000
      // before every other test's rows: the longest due of each queue is one of these
      const early = T - 1_000 * 86_400_000
      const before = yield* depthsAt(now)
      assert.deepStrictEqual([...before.keys()], [...QueueDepths.StoredQueue.literals], "every queue, once, in order")

      const messages = yield* MessageStore
      yield* messages.insert(makeMessage(accountId, fresh("msg"), { createdAt: early }), Option.none())
      yield* messages.insert(makeMessage(accountId, fresh("msg"), { createdAt: early + 1 }), Option.none())
      yield* messages.insert(makeMessage(accountId, fresh("msg"), { status: "sent", sentAt: early }), Option.none())
      yield* messages.insert(
        makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: early + 5 }),
        Option.none()
      )
      yield* messages.insert(
        makeMessage(accountId, fresh("msg"), { status: "scheduled", scheduledAt: now + 1 }),
        Option.none()
      )
      yield* (yield* MailStore).insert([
        makeMail(fresh("mail"), { nextAttemptAt: early + 7 }),
        makeMail(fresh("mail"), { nextAttemptAt: now + 1 }),
        makeMail(fresh("mail"), { status: "sent", attempts: 1, sentAt: early, nextAttemptAt: early })
      ])
      const { event } = yield* insertMessageEvent(accountId, early + 9)
      const destination = { _tag: "Callback", url: "https://example.test/hook" } as const
      yield* (yield* DeliveryStore).fanOut([{
        eventId: event.id,
        deliveries: [makeDelivery(event, destination), makeDelivery(event, destination, { dueAt: now + 1 })]
      }], early + 9)
      // watched from 30 days before it expires
      const expiring = makeSenderId(accountId, {
        senderId: fresh("S").slice(-11),
        expiresAt: early + 11 + warningMillis
      }, early)
      yield* (yield* SenderIdStore).insert(expiring, [], [])

      const after = yield* depthsAt(now)
      const grew = (queue: QueueDepths.StoredQueue) => after.get(queue)!.due - before.get(queue)!.due
      // the message of `insertMessageEvent` is queued too
      assert.deepStrictEqual(
        QueueDepths.StoredQueue.literals.map((queue) => [queue, grew(queue)]),
        [["dispatch", 3], ["scheduled", 1], ["mail", 1], ["webhook_deliveries", 1], ["expiry", 1]]
      )
      assert.deepStrictEqual(
        QueueDepths.StoredQueue.literals.map((queue) => [queue, after.get(queue)!.oldestDueAt]),
        [
          ["dispatch", early],
          ["scheduled", early + 5],
          ["mail", early + 7],
          ["webhook_deliveries", early + 9],
          ["expiry", early + 11]
        ]
      )
    }))

  it.effect("QueueDepths: a queue counts at most limit items, and none is due before its first item", () =>
    Effect.gen(function*() {
      const accountId = yield* freshAccount
      const messages = yield* MessageStore
      yield* messages.insert(makeMessage(accountId, fresh("msg"), { createdAt: T }), Option.none())
      yield* messages.insert(makeMessage(accountId, fresh("msg"), { createdAt: T + 1 }), Option.none())
      const capped = yield* depthsAt(T + 1_000, 1)
      assert.strictEqual(capped.get("dispatch")!.due, 1)
      for (const depth of capped.values()) assert.isAtMost(depth.due, 1)
      const never = yield* depthsAt(Number.MIN_SAFE_INTEGER)
      for (const queue of ["scheduled", "mail", "webhook_deliveries", "expiry"] as const) {
        assert.deepStrictEqual(never.get(queue), { queue, due: 0, oldestDueAt: undefined })
      }
    }))
}
