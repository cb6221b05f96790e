/**
 * The spending limit's mails to the account's admin go through a real SMTP server (in-process,
 * `smtp-server`): one when the spend reaches 80 % of the limit, one at 100 %, once a month each.
 */
import { assert, layer } from "@effect/vitest"
import { Admin, MailSender } from "@sendline/core"
import { SmtpMailer } from "@sendline/mailer-smtp"
import { TestSmtpServer } from "@sendline/mailer-smtp/testing"
import { Context, Effect, Layer, Redacted } from "effect"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

/** The port of the mail server: it listens there only while a test runs it. */
class SmtpPort extends Context.Tag("test/SpendingMail/SmtpPort")<SmtpPort, number>() {}

const served = Layer.unwrapEffect(Effect.map(Effect.orDie(TestSmtpServer.closedPort), (port) =>
  MailSender.layer().pipe(
    Layer.provide(
      SmtpMailer.layer({ url: Redacted.make(`smtp://127.0.0.1:${port}`), from: "Sendline <sendline@test.example>" })
    ),
    Layer.provideMerge(TestServer.layer()),
    Layer.provideMerge(Layer.succeed(SmtpPort, port))
  )))

layer(served, { timeout: 60_000 })("the spending limit's mails", (it) => {
  it.scoped("the admin gets one mail at 80 % and one at 100 %, once each, through the SMTP server", () =>
    Effect.gen(function*() {
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      yield* Effect.orDie(
        (yield* Admin.Admin).setSpendingLimit({ accountId: caller.accountId, currency: "AUD", monthly: "1.00" })
      )
      const mailer = yield* MailSender.MailSender
      const server = yield* TestSmtpServer.start({ port: yield* SmtpPort })
      yield* mailer.runOnce // the demo data's mails, out of the way
      const before = server.received.length
      const send = Effect.map(TestMessages.send(TestMessages.validSend, { key: caller.key }), (r) => r.status)
      const mine = () => server.received.slice(before).filter((m) => m.to.includes("admin@test.example"))

      for (let i = 0; i < 15; i++) assert.strictEqual(yield* send, 201)
      yield* mailer.runOnce
      assert.strictEqual(mine().length, 0, "below 80 %")
      assert.strictEqual(yield* send, 201) // 0.80 AUD
      yield* mailer.runOnce
      assert.strictEqual(mine().length, 1)
      assert.include(mine()[0]!.headers.get("subject"), "80 %")
      assert.include(mine()[0]!.text, "1.0000 AUD")
      for (let i = 0; i < 4; i++) assert.strictEqual(yield* send, 201) // 1.00 AUD
      assert.strictEqual(yield* send, 422)
      yield* mailer.runOnce
      assert.strictEqual(mine().length, 2)
      assert.include(mine()[1]!.headers.get("subject"), "reached its AUD spending limit")
      assert.strictEqual(yield* mailer.runOnce, 0, "each once")
    }))
})
