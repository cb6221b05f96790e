/**
 * The mail of a pending relationship goes through a real SMTP server (in-process, `smtp-server`):
 * written with the brand, so the request is answered 201 while the mail server is down, and sent by
 * the MailSender once the server is back.
 */
import { assert, layer } from "@effect/vitest"
import { MailSender } from "@sendline/core"
import { SmtpMailer } from "@sendline/mailer-smtp"
import { TestSmtpServer } from "@sendline/mailer-smtp/testing"
import { Context, Effect, Layer, Redacted, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestServer from "../support/TestServer.js"

/** The port of the mail server: nothing listens there until the test starts one. */
class SmtpPort extends Context.Tag("test/BrandMail/SmtpPort")<SmtpPort, number>() {}

const served = Layer.unwrapEffect(Effect.map(Effect.orDie(TestSmtpServer.closedPort), (port) =>
  MailSender.layer().pipe(
    Layer.provide(
      SmtpMailer.layer({ url: Redacted.make(`smtp://127.0.0.1:${port}`), from: "Sendline <sendline@test.example>" })
    ),
    Layer.provideMerge(TestServer.layer()),
    Layer.provideMerge(Layer.succeed(SmtpPort, port))
  )))

layer(served, { timeout: 60_000 })("the pending relationship's mail", (it) => {
  it.scoped("answered 201 while the mail server is down; the mail reaches the brand's contact once the server is back", () =>
    Effect.gen(function*() {
      const provider = yield* TestAccounts.newCaller()
      const acn = TestBrands.freshAcn()
      yield* TestBrands.newBrandOwner(acn)
      const mailer = yield* MailSender.MailSender
      // the demo's own brand mailed its contact when the test server made the demo data: out of the way first
      yield* Effect.scoped(Effect.gen(function*() {
        const early = yield* TestSmtpServer.start({ port: yield* SmtpPort })
        assert.strictEqual(yield* mailer.runOnce, 1, "the demo brand's mail")
        assert.deepStrictEqual(early.received.map((m) => m.to), [["legal@brand-owner.demo.sendline.test"]])
      }))

      const reply = yield* Http.request("POST", "/v1/brands", { key: provider.key, json: TestBrands.brandBody(acn) })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.strictEqual(yield* mailer.runOnce, 1, "the mail was tried, and the server was down")

      const server = yield* TestSmtpServer.start({ port: yield* SmtpPort })
      assert.strictEqual(yield* mailer.runOnce, 0, "not due again before its retry delay")
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(yield* mailer.runOnce, 1)
      assert.strictEqual(server.received.length, 1)
      const [mail] = server.received
      assert.deepStrictEqual(mail!.to, ["jo@acme.example"])
      assert.include(mail!.headers.get("subject"), "Acme Pty Ltd")
      assert.include(mail!.text, "/approve")
      assert.strictEqual(yield* mailer.runOnce, 0, "sent once")
    }))
})
