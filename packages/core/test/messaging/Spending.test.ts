import { assert, describe, it as vit, layer } from "@effect/vitest"
import { Admin, Dispatcher, MailStore, Messaging, type Spending } from "@sendline/core"
import { Spending as SpendingModule } from "@sendline/core"
import { Clock, Effect, Either, Option, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"

const hour = 3_600_000

/** A new account with the limit `monthly` in AUD (0.05 a segment there). */
const limited = (monthly: string) =>
  Effect.gen(function*() {
    const seeded = yield* TestCore.seedAccount()
    yield* (yield* Admin.Admin).setSpendingLimit({ accountId: seeded.account.id, currency: "AUD", monthly })
    return seeded
  })

const audOf = (usage: Spending.Usage) => usage.spend.find((line) => line.currency === "AUD")

for (const store of TestStores.all) {
  layer(TestCore.layerOn(store.layer()), { timeout: 60_000 })(`Spending (${store.name})`, (it) => {
    it.effect("with a limit of 1.00 AUD at 0.05 a segment, the 21st one-segment send fails spending_limit_reached, naming both", () =>
      Effect.gen(function*() {
        const { principal } = yield* limited("1.00")
        const messaging = yield* Messaging.Messaging
        for (let i = 0; i < 20; i++) yield* messaging.send(principal, TestCore.auMessage)
        const refused = yield* Effect.either(messaging.send(principal, TestCore.auMessage))
        assert.isTrue(Either.isLeft(refused))
        if (Either.isLeft(refused)) {
          assert.strictEqual(refused.left.code, "spending_limit_reached")
          assert.include(refused.left.message, "1.0000 AUD")
        }
        const usage = yield* (yield* SpendingModule.Spending).usage(principal)
        assert.deepStrictEqual(audOf(usage), {
          currency: "AUD",
          amount: 10_000,
          limit: Option.some(10_000),
          messages: 20,
          segments: 20
        })
        assert.strictEqual((yield* messaging.list(principal, { filter: {}, pageSize: 100 })).items.length, 20)
      }))

    it.effect("cancelling a scheduled message gives its price back to the month's spend", () =>
      Effect.gen(function*() {
        const { principal } = yield* limited("0.10")
        const messaging = yield* Messaging.Messaging
        const now = yield* Clock.currentTimeMillis
        const scheduled = yield* messaging.send(principal, { ...TestCore.auMessage, scheduledAt: now + hour })
        yield* messaging.send(principal, TestCore.auMessage)
        assert.strictEqual(
          yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)),
          "spending_limit_reached"
        )
        yield* messaging.cancel(principal, scheduled.id)
        const usage = yield* (yield* SpendingModule.Spending).usage(principal)
        assert.deepStrictEqual(audOf(usage)?.amount, 500)
        assert.deepStrictEqual(audOf(usage)?.messages, 1)
        assert.strictEqual(yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)), "ok")
      }))

    it.effect("50 concurrent sends against the last 0.25 of the limit: exactly 5 are accepted", () =>
      Effect.gen(function*() {
        const { principal } = yield* limited("1.00")
        const messaging = yield* Messaging.Messaging
        for (let i = 0; i < 15; i++) yield* messaging.send(principal, TestCore.auMessage)
        const outcomes = yield* Effect.all(
          Array.from({ length: 50 }, () => TestCore.outcome(messaging.send(principal, TestCore.auMessage))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(outcomes.filter((o) => o === "ok").length, 5)
        assert.strictEqual(outcomes.filter((o) => o === "spending_limit_reached").length, 45)
        const usage = yield* (yield* SpendingModule.Spending).usage(principal)
        assert.strictEqual(audOf(usage)?.amount, 10_000)
        assert.strictEqual(audOf(usage)?.messages, 20)
      }))

    it.effect("the admin's mails at 80 % and at 100 % are written once each, with the send that reaches them", () =>
      Effect.gen(function*() {
        const { principal } = yield* limited("1.00")
        const messaging = yield* Messaging.Messaging
        const mails = yield* MailStore.MailStore
        const pending = Effect.flatMap(Clock.currentTimeMillis, (now) => mails.claim(now, 1000, now + 10 * hour))
        const mine = (all: ReadonlyArray<{ readonly to: string; readonly subject: string }>) =>
          all.filter((m) => m.to === "ops@acme.test" && m.subject.includes("spending limit"))
        yield* pending // the other tests' mails, claimed out of the way
        for (let i = 0; i < 15; i++) yield* messaging.send(principal, TestCore.auMessage)
        assert.strictEqual(mine(yield* pending).length, 0)
        yield* messaging.send(principal, TestCore.auMessage) // 0.80
        const at80 = mine(yield* pending)
        assert.strictEqual(at80.length, 1)
        assert.include(at80[0]!.subject, "80 %")
        for (let i = 0; i < 4; i++) yield* messaging.send(principal, TestCore.auMessage) // 1.00
        yield* TestClock.adjust(10)
        const at100 = mine(yield* pending)
        assert.strictEqual(at100.length, 1)
        assert.include(at100[0]!.subject, "reached its AUD spending limit")
        yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage))
        yield* TestClock.adjust(10)
        assert.strictEqual(mine(yield* pending).length, 0, "each mail once a month")
      }))

    it.effect("usage answers the current month by default, another month on request, and refuses a bad month", () =>
      Effect.gen(function*() {
        const { principal } = yield* limited("5.00")
        yield* (yield* Messaging.Messaging).send(principal, { ...TestCore.auMessage, body: "x".repeat(161) })
        const spending = yield* SpendingModule.Spending
        const now = yield* Clock.currentTimeMillis
        const usage = yield* spending.usage(principal)
        assert.strictEqual(usage.month, SpendingModule.monthOf(now))
        assert.deepStrictEqual(audOf(usage), {
          currency: "AUD",
          amount: 1_000,
          limit: Option.some(50_000),
          messages: 1,
          segments: 2
        })
        const other = yield* spending.usage(principal, "1999-01")
        assert.deepStrictEqual(audOf(other), {
          currency: "AUD",
          amount: 0,
          limit: Option.some(50_000),
          messages: 0,
          segments: 0
        })
        assert.strictEqual(yield* TestCore.outcome(spending.usage(principal, "2026-13")), "invalid_parameter")
      }))

    it.effect("preview with a market answers the caller's spend, limit and what remains", () =>
      Effect.gen(function*() {
        const { principal } = yield* limited("1.00")
        const messaging = yield* Messaging.Messaging
        yield* messaging.send(principal, TestCore.auMessage)
        const preview = yield* messaging.preview(principal, { body: "Hi", market: "AU" })
        assert.deepStrictEqual(
          preview.spend,
          Option.some({ amount: 500, limit: Option.some(10_000), remaining: Option.some(9_500) })
        )
        const nz = yield* messaging.preview(principal, { body: "Hi", market: "NZ" })
        assert.deepStrictEqual(nz.spend, Option.some({ amount: 0, limit: Option.none(), remaining: Option.none() }))
        assert.isTrue(Option.isNone((yield* messaging.preview(principal, { body: "Hi" })).spend))
      }))

    it.effect("the admin sets, replaces and removes a limit; a bad currency or amount is invalid_parameter", () =>
      Effect.gen(function*() {
        const { account } = yield* TestCore.seedAccount()
        const admin = yield* Admin.Admin
        const set = (currency: string, monthly: string) =>
          admin.setSpendingLimit({ accountId: account.id, currency, monthly })
        assert.deepStrictEqual(yield* set("AUD", "500.00"), [{ currency: "AUD", monthly: 5_000_000 }])
        assert.deepStrictEqual(yield* set("AUD", "250"), [{ currency: "AUD", monthly: 2_500_000 }])
        assert.deepStrictEqual(yield* set("NZD", "1.5"), [
          { currency: "AUD", monthly: 2_500_000 },
          { currency: "NZD", monthly: 15_000 }
        ])
        assert.deepStrictEqual(yield* admin.removeSpendingLimit(account.id, "AUD"), [{
          currency: "NZD",
          monthly: 15_000
        }])
        assert.strictEqual(yield* TestCore.outcome(admin.removeSpendingLimit(account.id, "AUD")), "not_found")
        assert.strictEqual(yield* TestCore.outcome(set("XYZ", "1.00")), "invalid_parameter")
        assert.strictEqual(yield* TestCore.outcome(set("AUD", "1.00001")), "invalid_parameter")
        assert.strictEqual(yield* TestCore.outcome(set("AUD", "-1")), "invalid_parameter")
      }))
  })

  describe(`Spending and the Dispatcher (${store.name})`, () => {
    vit.effect(
      "a message the carrier refuses (queued → failed, before dispatch) gives its price back; a sent one keeps it",
      () =>
        Effect.gen(function*() {
          const { principal } = yield* limited("0.10")
          const messaging = yield* Messaging.Messaging
          yield* messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to("9999") }) // the mock refuses it
          yield* messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to("5678") })
          assert.strictEqual(
            yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)),
            "spending_limit_reached"
          )
          yield* Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce)
          const usage = yield* (yield* SpendingModule.Spending).usage(principal)
          assert.deepStrictEqual([audOf(usage)?.amount, audOf(usage)?.messages, audOf(usage)?.segments], [500, 1, 1])
          assert.strictEqual(yield* TestCore.outcome(messaging.send(principal, TestCore.auMessage)), "ok")
        }).pipe(Effect.provide(TestWorkers.layer({}, store))),
      60_000
    )
  })
}
