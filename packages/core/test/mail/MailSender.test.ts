import { assert, describe, it } from "@effect/vitest"
import { Ids, Mail, Mailer, MailSender, MailStore, Workers } from "@sendline/core"
import { CapturingMailer } from "@sendline/core/testing"
import { Clock, Duration, Effect, Layer, Logger, LogLevel, Option, TestClock } from "effect"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

interface Line {
  readonly level: LogLevel.LogLevel
  readonly text: string
}

/** Runs `body` with a logger that keeps every line; answers them with `body`'s result. */
const logged = <A, E, R>(body: (lines: ReadonlyArray<Line>) => Effect.Effect<A, E, R>) => {
  const lines: Array<Line> = []
  const keep = Logger.make(({ logLevel, message }) => {
    lines.push({ level: logLevel, text: Array.isArray(message) ? message.join(" ") : String(message) })
  })
  return body(lines).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, keep)))
}

/** A MailSender (not started) polling every 5 s, a capturing mailer and ids over a fresh `store`. */
const sending = (store: TestStores.TestStore) =>
  MailSender.layer({ pollMillis: 5_000 }).pipe(
    Layer.provideMerge(CapturingMailer.layer),
    Layer.provideMerge(Layer.merge(Ids.layerTest, store.layer()))
  )

const approval = { to: "legal@acme.example", subject: "Approve Acme's Sender ID", text: "Approve it: POST /v1/…\n" }

/** The stored mail, which must exist. */
const load = (mail: Mail.Mail) =>
  Effect.map(Effect.flatMap(MailStore.MailStore, (store) => store.findById(mail.id)), Option.getOrThrow)

/** A new pending mail, written to the outbox as a request's write would. */
const written = Effect.gen(function*() {
  const mail = yield* Mail.make(approval)
  yield* (yield* MailStore.MailStore).insert([mail])
  return mail
})

const mailer = CapturingMailer.CapturingMailer

describe("Mail", () => {
  it("a failed mail waits 30 s, 1 min, 5 min, 15 min, then an hour after each failure, without end", () => {
    const waits = [1, 2, 3, 4, 5, 6, 50].map((failures) => Duration.format(Mail.retryDelay(failures)))
    assert.deepStrictEqual(waits, ["30s", "1m", "5m", "15m", "1h", "1h", "1h"])
  })

  it.effect("make: a pending mail due at once, its id mail_… and its time from the Clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_795_330_800_000)
      const mail = yield* Mail.make(approval)
      assert.isTrue(Ids.isId("mail", mail.id), mail.id)
      assert.deepStrictEqual({ ...mail, id: "" }, {
        ...approval,
        id: "",
        createdAt: 1_795_330_800_000,
        status: "pending",
        attempts: 0,
        nextAttemptAt: 1_795_330_800_000
      })
    }).pipe(Effect.provide(Ids.layer)))
})

describe("Mailer.layerLog", () => {
  it.effect("logs each mail whole at info level: recipient, subject, body", () =>
    logged((lines) =>
      Effect.gen(function*() {
        const mail = yield* Mail.make(approval)
        yield* (yield* Mailer.Mailer).send(mail)
        assert.deepStrictEqual(lines, [{
          level: LogLevel.Info,
          text: "Mail to legal@acme.example: Approve Acme's Sender ID\n\nApprove it: POST /v1/…\n"
        }])
      })
    ).pipe(Effect.provide(Layer.merge(Mailer.layerLog, Ids.layerTest))))
})

for (const store of TestStores.all) {
  describe(`MailSender (${store.name})`, () => {
    it.effect("a mail written while the mail server is down is retried on its backoff, with a warning each time, and sent once it is back", () =>
      logged((lines) =>
        Effect.gen(function*() {
          const capture = yield* mailer
          yield* capture.setMode("Unavailable")
          const mail = yield* written
          yield* Effect.forkScoped((yield* MailSender.MailSender).run)
          const attempts = (n: number) => Effect.map(load(mail), (stored) => stored.attempts === n)
          const warnings = () => lines.filter((line) => line.level === LogLevel.Warning).map((line) => line.text)

          yield* TestWorkers.eventually("the first attempt", attempts(1))
          const start = yield* Clock.currentTimeMillis
          assert.deepStrictEqual(yield* load(mail), {
            ...mail,
            attempts: 1,
            nextAttemptAt: start + 30_000,
            lastError: "connect ECONNREFUSED"
          })
          assert.deepStrictEqual(warnings(), [
            `MailSender: ${mail.id} not sent, attempt 1 (connect ECONNREFUSED); next attempt in 30s`
          ])

          // polled every 5 s meanwhile, but not due before its 30 s
          yield* TestWorkers.advanceBy("29 seconds", { poll: "5 seconds" })
          assert.strictEqual(yield* capture.attempts, 1)
          yield* TestWorkers.advanceUntil("the second attempt", attempts(2), { poll: "5 seconds" })
          assert.strictEqual((yield* load(mail)).nextAttemptAt, start + 30_000 + 60_000)
          assert.strictEqual(
            warnings()[1],
            `MailSender: ${mail.id} not sent, attempt 2 (connect ECONNREFUSED); next attempt in 1m`
          )

          // the server is back: the mail goes at its next attempt, once
          yield* capture.setMode("up")
          yield* TestWorkers.advanceBy("59 seconds", { poll: "5 seconds" })
          assert.deepStrictEqual(yield* capture.sent, [])
          yield* TestWorkers.advanceUntil("sent", Effect.map(load(mail), (stored) => stored.status === "sent"), {
            poll: "5 seconds"
          })
          const sentAt = yield* Clock.currentTimeMillis
          assert.deepStrictEqual(yield* load(mail), {
            ...mail,
            status: "sent",
            attempts: 3,
            nextAttemptAt: start + 90_000,
            sentAt,
            lastError: "connect ECONNREFUSED"
          })
          yield* TestClock.adjust("10 minutes")
          assert.deepStrictEqual((yield* capture.sent).map((m) => m.id), [mail.id], "sent once, never again")
          assert.strictEqual(yield* capture.attempts, 3)
          assert.include(lines.map((line) => line.text), "MailSender: 1 mail sent")
        }).pipe(Effect.scoped)
      ).pipe(Effect.provide(sending(store))))

    it.effect("a mail the server refuses for good is failed, logged as an error, and never tried again", () =>
      logged((lines) =>
        Effect.gen(function*() {
          const capture = yield* mailer
          yield* capture.setMode("Rejected")
          const mail = yield* written
          const sender = yield* MailSender.MailSender
          assert.strictEqual(yield* sender.runOnce, 1)
          assert.deepStrictEqual(yield* load(mail), {
            ...mail,
            status: "failed",
            attempts: 1,
            lastError: "550 no such mailbox"
          })
          assert.deepStrictEqual(
            lines.filter((line) => line.level === LogLevel.Error).map((line) => line.text),
            [`MailSender: ${mail.id} refused by the mail server (550 no such mailbox); it will not be tried again`]
          )
          yield* capture.setMode("up")
          yield* TestClock.adjust("1 day")
          assert.strictEqual(yield* sender.runOnce, 0)
          assert.strictEqual(yield* capture.attempts, 1)
        })
      ).pipe(Effect.provide(sending(store))))

    it.effect("one pass sends at most a batch, the longest due first, and the next pass the rest", () =>
      Effect.gen(function*() {
        const mails: Array<Mail.Mail> = []
        for (let i = 0; i < 5; i++) {
          mails.push(yield* written)
          yield* TestClock.adjust("1 millis")
        }
        const sender = yield* MailSender.make({ batchSize: 3, concurrency: 1 })
        assert.deepStrictEqual([yield* sender.runOnce, yield* sender.runOnce, yield* sender.runOnce], [3, 2, 0])
        assert.deepStrictEqual((yield* (yield* mailer).sent).map((m) => m.id), mails.map((m) => m.id))
      }).pipe(Effect.provide(sending(store))))
  })
}

describe("Workers", () => {
  it.effect("runOnce runs the MailSender with the other workers: a mail in the outbox goes out", () =>
    Effect.gen(function*() {
      const mail = yield* written
      const passes = yield* Workers.runOnce
      assert.strictEqual(passes.mailed, 1)
      assert.deepStrictEqual(yield* (yield* mailer).sent, [mail])
    }).pipe(Effect.provide(TestWorkers.layer({}, TestStores.all[0]!))))
})
