/**
 * The store suite's tests of `MailStore`: the mail outbox: insert and find, claim, record.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Mail from "../../mail/Mail.js"
import { MailStore } from "../../mail/MailStore.js"
import type { Stores } from "../../Stores.js"
import { drainMailClaims, fresh, makeMail, T } from "../Fixtures.js"

/** The ids of `mails`, in their order. */
const ids = (mails: ReadonlyArray<Mail.Mail>) => mails.map((mail) => mail.id)

/** Registers the tests of `MailStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("MailStore: insert and findById keep every field of a mail, byte for byte", () =>
    Effect.gen(function*() {
      const mails = yield* MailStore
      const plain = makeMail(fresh("mail"))
      const retried = makeMail(fresh("mail"), {
        to: "Zoë <zoe@exämple.test>",
        subject: "Grüße 👋 — \"quoted\"",
        text: "line one\r\nline two\n\ttabbed   spaced 👋\n",
        attempts: 3,
        nextAttemptAt: T + 300_000,
        lastError: "connect ECONNREFUSED 127.0.0.1:25"
      })
      const sent = makeMail(fresh("mail"), { status: "sent", attempts: 1, sentAt: T + 5 })
      yield* mails.insert([plain, retried, sent])
      yield* mails.insert([])
      for (const mail of [plain, retried, sent]) {
        assert.deepStrictEqual(yield* mails.findById(mail.id), Option.some(mail))
      }
      assert.isTrue(Option.isNone(yield* mails.findById(fresh("mail"))))
    }))

  it.effect("MailStore: insert writes all its mails or none", () =>
    Effect.gen(function*() {
      const mails = yield* MailStore
      const first = makeMail(fresh("mail"))
      yield* mails.insert([first])
      const next = makeMail(fresh("mail"))
      const failed = yield* Effect.either(mails.insert([next, makeMail(first.id)]))
      assert.strictEqual(failed._tag, "Left", "a duplicate id fails the insert")
      assert.isTrue(Option.isNone(yield* mails.findById(next.id)), "and the other mail of it was not written")
    }))

  it.effect("MailStore: claim takes pending mails due now, the longest due first, at most limit", () =>
    Effect.gen(function*() {
      const mails = yield* MailStore
      yield* drainMailClaims
      const now = T + 10_000
      const base = fresh("mail")
      // ids and due times sort in different orders
      const longestDue = makeMail(`${base}c`, { nextAttemptAt: now - 5_000 })
      const dueEarlier = makeMail(`${base}a`, { nextAttemptAt: now - 1 })
      const dueNowB = makeMail(`${base}e`, { nextAttemptAt: now })
      const dueNowA = makeMail(`${base}b`, { nextAttemptAt: now })
      const later = makeMail(`${base}d`, { nextAttemptAt: now + 1 })
      const done = [
        makeMail(`${base}f`, { status: "sent", attempts: 1, sentAt: T, nextAttemptAt: T }),
        makeMail(`${base}g`, { status: "failed", attempts: 1, lastError: "550 no such mailbox", nextAttemptAt: T })
      ]
      yield* mails.insert([dueNowB, later, longestDue, ...done, dueNowA, dueEarlier])

      assert.deepStrictEqual(
        yield* mails.claim(now, 2, now + 30_000),
        [longestDue, dueEarlier],
        "the whole mail, in due order"
      )
      assert.deepStrictEqual(ids(yield* mails.claim(now, 10, now + 30_000)), [dueNowA.id, dueNowB.id], "then by id")
      assert.deepStrictEqual(
        yield* mails.claim(now, 10, now + 30_000),
        [],
        "a mail due later, a sent or failed one, is not"
      )
      assert.deepStrictEqual(yield* mails.claim(now + 1, 10, now + 30_000), [later])
      assert.deepStrictEqual(yield* mails.findById(later.id), Option.some(later), "claiming changes nothing else")
    }))

  it.effect("MailStore: a claimed mail is not claimed again until its lease ends, then it is", () =>
    Effect.gen(function*() {
      const mails = yield* MailStore
      yield* drainMailClaims
      const mail = makeMail(fresh("mail"))
      yield* mails.insert([mail])
      assert.deepStrictEqual(yield* mails.claim(T, 10, T + 30_000), [mail])
      assert.deepStrictEqual(yield* mails.claim(T, 10, T + 30_000), [], "held")
      assert.deepStrictEqual(yield* mails.claim(T + 29_999, 10, T + 60_000), [], "held to the end")
      // the lease ends at leaseUntil: a claimer that died loses the mail then
      assert.deepStrictEqual(yield* mails.claim(T + 30_000, 10, T + 90_000), [mail])
      assert.deepStrictEqual(yield* mails.claim(T + 89_999, 10, T + 120_000), [], "held again")
    }))

  it.effect("MailStore: concurrent claimers never get the same mail", () =>
    Effect.gen(function*() {
      const mails = yield* MailStore
      yield* drainMailClaims
      const all = Array.from({ length: 20 }, (_, i) => makeMail(fresh("mail"), { nextAttemptAt: T + i }))
      yield* mails.insert(all)
      const now = T + 1_000
      const claims = yield* Effect.all(
        Array.from({ length: 8 }, () => mails.claim(now, 3, now + 30_000)),
        { concurrency: "unbounded" }
      )
      for (const claim of claims) assert.isAtMost(claim.length, 3)
      const concurrent = claims.flat().map((mail) => mail.id)
      assert.strictEqual(new Set(concurrent).size, concurrent.length, "no mail claimed twice")
      // a claimer may find fewer rows than it asked for while others hold them, never the same ones
      const rest = ids(yield* mails.claim(now, 100, now + 30_000))
      assert.deepStrictEqual([...concurrent, ...rest].sort(), ids(all).sort(), "every mail claimed exactly once")
    }))

  it.effect("MailStore: record writes each attempt while its mail is pending, and ends its claim", () =>
    Effect.gen(function*() {
      const mails = yield* MailStore
      yield* drainMailClaims
      const [toSend, toRetry, toRefuse] = [makeMail(fresh("mail")), makeMail(fresh("mail")), makeMail(fresh("mail"))]
      yield* mails.insert([toSend, toRetry, toRefuse])
      const now = T + 1_000
      assert.strictEqual((yield* mails.claim(now, 10, now + 30_000)).length, 3)

      const sent = Mail.sent(toSend, now)
      const retried = Mail.retried(toRetry, now, "connect ECONNREFUSED 127.0.0.1:25")
      const refused = Mail.refused(toRefuse, "550 no such mailbox")
      assert.deepStrictEqual(yield* mails.record([sent, retried, refused]), [true, true, true])
      for (const mail of [sent, retried, refused]) {
        assert.deepStrictEqual(yield* mails.findById(mail.id), Option.some(mail))
      }
      assert.deepStrictEqual(yield* mails.record([]), [])

      // the claim ended with the record: the retried mail is due again at its next attempt, not at
      // the lease's end; the sent and the refused ones never again
      assert.deepStrictEqual(yield* mails.claim(retried.nextAttemptAt - 1, 10, FAR), [])
      assert.deepStrictEqual(yield* mails.claim(retried.nextAttemptAt, 10, FAR), [retried])

      // a second record of a mail no longer pending (another claimer's, after a lease ended) is not written
      assert.deepStrictEqual(yield* mails.record([Mail.retried(toSend, now + 5, "late")]), [false])
      assert.deepStrictEqual(yield* mails.findById(toSend.id), Option.some(sent))
    }))
}

/** A lease that outlasts the test. */
const FAR = T + 86_400_000
