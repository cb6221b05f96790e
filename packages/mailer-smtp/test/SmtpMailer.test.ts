import { assert, describe, it } from "@effect/vitest"
import { Ids, Mail, Mailer, MailSender, MailStore } from "@sendline/core"
import { SmtpMailer } from "@sendline/mailer-smtp"
import { TestSmtpServer } from "@sendline/mailer-smtp/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Either, Layer, Logger, LogLevel, Option, Redacted, TestClock } from "effect"

const from = "Sendline <sendline@sendline.example>"

/** A mail to `to`, as `Mail.make` makes it. */
const mailTo = (
  to: string,
  subject = "Approve Acme's Sender ID",
  text = "Acme asks to send as \"Acme\" in AU.\nApprove: POST /v1/…\n"
) => Mail.make({ to, subject, text }).pipe(Effect.provide(Ids.layer))

/** Sends `mail` through an SMTP mailer on `url`: its failure, if any. */
const send = (url: string, mail: Mail.Mail) =>
  Effect.flatMap(Mailer.Mailer, (mailer) => Effect.either(mailer.send(mail))).pipe(
    Effect.provide(SmtpMailer.layer({ url: Redacted.make(url), from, timeout: "5 seconds" }))
  )

describe("SmtpMailer against a real SMTP server", () => {
  it.effect("the server receives the mail: its recipient, subject and body, from the configured sender", () =>
    Effect.gen(function*() {
      const server = yield* TestSmtpServer.start()
      const mail = yield* mailTo("legal@acme.example")
      const unicode = yield* mailTo("zoë@acme.example", "Grüße 👋 — approve “Acme”", "Zoë,\n\nÇa va? 👋 Approve it.\n")
      for (const each of [mail, unicode]) {
        assert.deepStrictEqual(yield* send(`smtp://127.0.0.1:${server.port}`, each), Either.right(undefined))
      }

      const [first, second] = server.received
      assert.deepStrictEqual(first!.to, ["legal@acme.example"])
      assert.strictEqual(first!.from, "sendline@sendline.example")
      assert.strictEqual(first!.headers.get("to"), "legal@acme.example")
      assert.strictEqual(first!.headers.get("from"), from)
      assert.strictEqual(first!.headers.get("subject"), mail.subject)
      assert.strictEqual(first!.headers.get("message-id"), `<${mail.id}@sendline.example>`)
      assert.strictEqual(first!.text.trimEnd(), mail.text.trimEnd())
      assert.deepStrictEqual(second!.to, ["zoë@acme.example"])
      assert.strictEqual(second!.headers.get("to"), "zoë@acme.example")
      assert.strictEqual(second!.headers.get("subject"), unicode.subject)
      assert.strictEqual(second!.text.trimEnd(), unicode.text.trimEnd())
      assert.isUndefined(first!.user, "no login where the URL has no credentials")
    }).pipe(Effect.scoped))

  it.effect("logs in with the URL's credentials, percent-decoded", () =>
    Effect.gen(function*() {
      const server = yield* TestSmtpServer.start({ users: { "mailer@sendline.example": "p@ss:w/rd %" } })
      const mail = yield* mailTo("legal@acme.example")
      const url = `smtp://mailer%40sendline.example:p%40ss%3Aw%2Frd%20%25@127.0.0.1:${server.port}`
      assert.deepStrictEqual(yield* send(url, mail), Either.right(undefined))
      assert.strictEqual(server.received[0]!.user, "mailer@sendline.example")
      assert.strictEqual(server.received[0]!.headers.get("subject"), mail.subject)
    }).pipe(Effect.scoped))

  it.effect("credentials the server refuses: Unavailable (sent once they are fixed), never naming the password", () =>
    Effect.gen(function*() {
      const server = yield* TestSmtpServer.start({ users: { mailer: "right" } })
      const failed = yield* send(
        `smtp://mailer:wrong-secret@127.0.0.1:${server.port}`,
        yield* mailTo("legal@acme.example")
      )
      assert.isTrue(Either.isLeft(failed))
      const error = Either.getLeft(failed).pipe(Option.getOrThrow)
      assert.strictEqual(error.reason, "Unavailable")
      assert.match(error.message, /Invalid login/)
      assert.notInclude(error.message, "wrong-secret")
      assert.deepStrictEqual(server.received, [])
    }).pipe(Effect.scoped))

  it.effect("a server that is down: Unavailable, the connection's error as the message", () =>
    Effect.gen(function*() {
      const port = yield* TestSmtpServer.closedPort
      const failed = yield* send(`smtp://127.0.0.1:${port}`, yield* mailTo("legal@acme.example"))
      const error = Either.getLeft(failed).pipe(Option.getOrThrow)
      assert.strictEqual(error.reason, "Unavailable")
      assert.include(error.message, "ECONNREFUSED")
    }))

  it.effect("a recipient the server refuses for good (550): Rejected", () =>
    Effect.gen(function*() {
      const server = yield* TestSmtpServer.start()
      const failed = yield* send(`smtp://127.0.0.1:${server.port}`, yield* mailTo("nobody@acme.example"))
      const error = Either.getLeft(failed).pipe(Option.getOrThrow)
      assert.strictEqual(error.reason, "Rejected")
      assert.include(error.message, "550")
      assert.deepStrictEqual(server.received, [])
    }).pipe(Effect.scoped))
})

describe("SmtpMailer URLs", () => {
  it("smtp:// is STARTTLS on 587, smtps:// TLS on 465 unless a port is given; credentials percent-decoded", () => {
    const parse = (url: string) => SmtpMailer.parse(Redacted.make(url))
    assert.deepStrictEqual(
      parse("smtp://mail.example.com"),
      Either.right({ host: "mail.example.com", port: 587, secure: false, auth: undefined })
    )
    assert.deepStrictEqual(
      parse("smtps://me%40x.example:s%3Acret@mail.example.com"),
      Either.right({
        host: "mail.example.com",
        port: 465,
        secure: true,
        auth: { user: "me@x.example", pass: "s:cret" }
      })
    )
    assert.deepStrictEqual(
      parse("smtp://[::1]:2525"),
      Either.right({ host: "::1", port: 2525, secure: false, auth: undefined })
    )
  })

  it("a URL it cannot use is refused, naming the problem, never the URL", () => {
    const problem = (url: string) => Either.getLeft(SmtpMailer.parse(Redacted.make(url))).pipe(Option.getOrUndefined)
    assert.strictEqual(problem("https://user:hunter2@mail.example.com"), "must start smtp:// or smtps://")
    assert.strictEqual(problem("smtp://user:hunter2@mail.example.com/?tls=off"), "takes no query or fragment")
    assert.strictEqual(problem("not a url hunter2"), "is not a URL")
  })

  it("location names the server, never the user or password", () => {
    assert.strictEqual(
      SmtpMailer.location(Redacted.make("smtps://me:hunter2@mail.example.com")),
      "smtps://mail.example.com:465"
    )
    assert.strictEqual(SmtpMailer.location(Redacted.make("smtp://me:hunter2@[::1]:25")), "smtp://[::1]:25")
    assert.strictEqual(SmtpMailer.location(Redacted.make("ftp://me:hunter2@x")), "an unreadable SMTP URL")
  })
})

describe("MailSender through SMTP", () => {
  it.effect("a mail written while the SMTP server is down is sent once it is back, after a warning", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const port = yield* TestSmtpServer.closedPort
      const program = Effect.gen(function*() {
        const store = yield* MailStore.MailStore
        const sender = yield* MailSender.MailSender
        const mail = yield* Mail.make({ to: "legal@acme.example", subject: "Approve Acme", text: "Approve it.\n" })
        // what a request does: write the mail to the outbox, and answer
        yield* store.insert([mail])

        assert.strictEqual(yield* sender.runOnce, 1)
        const waiting = Option.getOrThrow(yield* store.findById(mail.id))
        assert.deepStrictEqual([waiting.status, waiting.attempts], ["pending", 1])
        assert.include(waiting.lastError, "ECONNREFUSED")
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], `MailSender: ${mail.id} not sent, attempt 1 (`)
        assert.include(warnings[0], "next attempt in 30s")

        const server = yield* TestSmtpServer.start({ port })
        assert.strictEqual(yield* sender.runOnce, 0, "not due before its 30 s")
        yield* TestClock.adjust("30 seconds")
        assert.strictEqual(yield* sender.runOnce, 1)
        assert.deepStrictEqual(server.received.map((m) => [m.to, m.headers.get("subject"), m.text.trimEnd()]), [
          [["legal@acme.example"], "Approve Acme", "Approve it."]
        ])
        assert.strictEqual(Option.getOrThrow(yield* store.findById(mail.id)).status, "sent")
        yield* TestClock.adjust("1 hour")
        assert.strictEqual(yield* sender.runOnce, 0, "never sent again")
        assert.strictEqual(server.received.length, 1)
      }).pipe(Effect.scoped)
      yield* program.pipe(
        Effect.provide(
          MailSender.layer().pipe(
            Layer.provideMerge(
              SmtpMailer.layer({ url: Redacted.make(`smtp://127.0.0.1:${port}`), from, timeout: "5 seconds" })
            ),
            Layer.provideMerge(Layer.merge(Ids.layerTest, SqliteStore.layerSqlite({ filename: ":memory:" })))
          )
        ),
        Effect.provide(Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ logLevel, message }) => {
            if (logLevel === LogLevel.Warning) {
              warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
            }
          })
        ))
      )
    }))
})
