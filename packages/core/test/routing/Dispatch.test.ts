import { assert, describe, it } from "@effect/vitest"
import { DeliveryReports, Dispatcher, MessageJson, Messaging, Router, type Routes, Workers } from "@sendline/core"
import { CapturingMailer, CapturingTransport } from "@sendline/core/testing"
import { Clock, Effect, Fiber, Layer, Logger, LogLevel, TestClock } from "effect"
import * as TestCore from "../TestCore.js"
import * as TestStores from "../TestStores.js"
import * as TestWorkers from "../TestWorkers.js"
import { acceptAs, type Fake, fake, names, refuse, unavailable } from "./FakeCarriers.js"

/** The use cases and workers (not started) over a fresh `store`, sending through a router of `carriers`. */
const routed = (store: TestStores.TestStore, carriers: ReadonlyArray<Fake>, routes: ReadonlyArray<Routes.Route>) =>
  Workers.layerServices().pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Router.layer({ carriers: carriers.map((c) => c.named), routes }),
        CapturingMailer.layer,
        CapturingTransport.layer
      )
    ),
    Layer.provideMerge(TestCore.layerOn(store.layer()))
  )

const auRoute: Routes.Route = { market: "AU", carriers: names("acme", "backup") }

const send = (suffix = "5678") =>
  Effect.gen(function*() {
    const { principal } = yield* TestCore.seedAccount()
    return yield* (yield* Messaging.Messaging).send(principal, { ...TestCore.auMessage, to: TestWorkers.to(suffix) })
  })

/** Runs `body` with a logger that keeps every line at Info or above, as "LEVEL text". */
const logged = <A, E, R>(body: (lines: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const keep = Logger.make(({ logLevel, message }) => {
    if (LogLevel.greaterThanEqual(logLevel, LogLevel.Info)) {
      lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
    }
  })
  return body(lines).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, keep)))
}

const dispatch = Effect.flatMap(Dispatcher.Dispatcher, (d) => d.runOnce)
const report = Effect.flatMap(DeliveryReports.DeliveryReports, (r) => r.runOnce)

for (const store of TestStores.all) {
  describe(`Dispatch through the router (${store.name})`, () => {
    it.effect("the accepting carrier is stored with the message, never shown in its JSON or events", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      return Effect.gen(function*() {
        yield* acme.setState("connecting")
        const message = yield* send()
        assert.strictEqual(yield* dispatch, 1)
        const sent = yield* TestWorkers.load(message)
        assert.deepStrictEqual(
          [sent.status, sent.carrier, sent.carrierMessageId],
          ["sent", "backup", `backup-${message.id}`]
        )
        assert.deepStrictEqual([acme.submitted, backup.submitted], [[], [message.id]])
        assert.notProperty(MessageJson.full(sent), "carrier")
        assert.isFalse(JSON.stringify(MessageJson.full(sent)).includes("backup"))
        const events = yield* TestWorkers.events(sent)
        assert.isFalse(JSON.stringify(events.map((e) => e.data)).includes("backup"))
      }).pipe(Effect.provide(routed(store, [acme, backup], [auRoute])))
    })

    it.effect("a refusal's carrier code reaches the message's error, message.failed and the API's JSON", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      return Effect.gen(function*() {
        yield* acme.answerWith(refuse("invalid_destination", false, "smpp:0x0000000B"))
        const message = yield* send()
        yield* dispatch
        const failed = yield* TestWorkers.load(message)
        const error = {
          code: "invalid_destination",
          message: "Refused: invalid_destination.",
          carrier_code: "smpp:0x0000000B"
        }
        assert.deepStrictEqual([failed.status, failed.error, failed.carrier], ["failed", error, undefined])
        const events = yield* TestWorkers.events(message)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.failed"])
        assert.deepStrictEqual(events[1]!.data.error, error)
        assert.deepStrictEqual(MessageJson.full(failed).error, error)
        assert.strictEqual(backup.submitted.length, 0, "a refusal about the recipient is not failed over")
      }).pipe(Effect.provide(routed(store, [acme, backup], [auRoute])))
    })

    it.effect("no route → failed no_route, nothing submitted", () => {
      const acme = fake("acme")
      return Effect.gen(function*() {
        const message = yield* send()
        yield* dispatch
        const failed = yield* TestWorkers.load(message)
        assert.strictEqual(failed.status, "failed")
        assert.strictEqual(failed.error?.code, "no_route")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued", "message.failed"])
        assert.strictEqual(acme.submitted.length, 0)
      }).pipe(Effect.provide(routed(store, [acme], [{ market: "AU", prefix: "+6147", carriers: names("acme") }])))
    })

    it.effect("every carrier of the route down → stays queued, tried again only when its lease ends, sent once one is back", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      return Effect.gen(function*() {
        yield* acme.setState("connecting")
        yield* backup.answerWith(unavailable("unavailable"))
        const message = yield* send()
        assert.strictEqual(yield* dispatch, 1)
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued"])
        assert.deepStrictEqual([acme.submitted.length, backup.submitted.length], [0, 1])
        yield* TestClock.adjust("29999 millis")
        assert.strictEqual(yield* dispatch, 0, "held by its lease")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* dispatch, 1)
        assert.deepStrictEqual([acme.submitted.length, backup.submitted.length], [0, 2])
        assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")

        // the Dispatcher's loop, running: one submit per lease, not one per poll
        const running = yield* Effect.fork((yield* Dispatcher.Dispatcher).run)
        yield* TestWorkers.advanceBy("29 seconds")
        assert.strictEqual(backup.submitted.length, 2, "no busy loop while the lease holds it")
        yield* TestWorkers.advanceBy("1 second")
        yield* TestWorkers.eventually("tried at the lease's end", Effect.sync(() => backup.submitted.length === 3))
        yield* TestWorkers.advanceBy("25 seconds")
        assert.strictEqual(backup.submitted.length, 3)

        yield* acme.setState("bound")
        yield* TestWorkers.advanceUntil("sent once acme is back", TestWorkers.hasStatus(message, "sent"), {}, 10)
        const sent = yield* TestWorkers.load(message)
        assert.strictEqual(sent.carrier, "acme")
        assert.deepStrictEqual([acme.submitted.length, backup.submitted.length], [1, 3])
        assert.deepStrictEqual(yield* TestWorkers.eventTypes(message), ["message.queued", "message.sent"])
        yield* Fiber.interrupt(running)
      }).pipe(Effect.provide(routed(store, [acme, backup], [auRoute])))
    })

    it.effect("while every carrier of the route is down, the logs say so once, not once per pass, and once when it is back", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      return logged((lines) =>
        Effect.gen(function*() {
          yield* acme.setState("connecting")
          yield* backup.setState("connecting")
          const message = yield* send()
          const running = yield* Effect.fork((yield* Dispatcher.Dispatcher).run)
          yield* TestWorkers.advanceBy("2 minutes")
          assert.strictEqual((yield* TestWorkers.load(message)).status, "queued")
          yield* backup.setState("bound")
          yield* TestWorkers.advanceUntil("sent", TestWorkers.hasStatus(message, "sent"), {}, 40)
          yield* Fiber.interrupt(running)
          assert.deepStrictEqual(lines, [
            "WARN Routing: carrier acme cannot take messages now (connecting); its routes fail over",
            "WARN Routing: carrier backup cannot take messages now (connecting); its routes fail over",
            "WARN Routing: no carrier of routes.0 (AU) can take messages now (acme: connecting, backup: connecting); " +
            "they stay queued and are tried again when their lease ends",
            "INFO Dispatcher: 1 of 1 messages stay queued (the carrier was unavailable or throttled, or the Sender ID " +
            "lookup failed); they are tried again when their lease ends",
            "INFO Routing: carrier backup takes messages again",
            "INFO Routing: routes.0 (AU) takes messages again",
            "INFO Dispatcher: the carrier takes messages again (none of those left queued waits)",
            "INFO Dispatcher: 1 message sent"
          ])
          assert.isAtMost(backup.submitted.length, 1, "passed over while connecting, then one submit")
        })
      ).pipe(Effect.provide(routed(store, [acme, backup], [auRoute])))
    })

    it.effect("one route down beside one that works: the logs say so once, though each lease both kinds of message pass", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const routes: ReadonlyArray<Routes.Route> = [auRoute, {
        market: "AU",
        prefix: "+61412349",
        carriers: names("backup")
      }]
      return logged((lines) =>
        Effect.gen(function*() {
          yield* backup.setState("connecting")
          const { principal } = yield* TestCore.seedAccount()
          const messaging = yield* Messaging.Messaging
          const stuck = yield* messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to("9000") })
          const running = yield* Effect.fork((yield* Dispatcher.Dispatcher).run)
          // its first pass takes the stuck message alone, before any other is sent
          yield* TestWorkers.advanceUntil(
            "the stuck message left queued",
            Effect.sync(() => lines.some((line) => line.startsWith("INFO Dispatcher: 1 of 1 messages stay queued")))
          )
          for (let i = 0; i < 12; i++) {
            yield* messaging.send(principal, { ...TestCore.auMessage, to: TestWorkers.to(`${5600 + i}`) })
            yield* TestWorkers.advanceBy("10 seconds")
          }
          assert.strictEqual(acme.submitted.length, 12)
          assert.strictEqual((yield* TestWorkers.load(stuck)).status, "queued")
          yield* backup.setState("bound")
          yield* TestWorkers.advanceUntil("sent", TestWorkers.hasStatus(stuck, "sent"), {}, 40)
          yield* Fiber.interrupt(running)
          assert.deepStrictEqual(lines.filter((line) => !/^INFO Dispatcher: \d+ messages? sent/.test(line)), [
            "WARN Routing: carrier backup cannot take messages now (connecting); its routes fail over",
            "WARN Routing: no carrier of routes.1 (AU, +61412349) can take messages now (backup: connecting); " +
            "they stay queued and are tried again when their lease ends",
            "INFO Dispatcher: 1 of 1 messages stay queued (the carrier was unavailable or throttled, or the Sender ID " +
            "lookup failed); they are tried again when their lease ends",
            "INFO Routing: carrier backup takes messages again",
            "INFO Routing: routes.1 (AU, +61412349) takes messages again",
            "INFO Dispatcher: the carrier takes messages again (none of those left queued waits)"
          ])
        })
      ).pipe(Effect.provide(routed(store, [acme, backup], routes)))
    })

    it.effect("a receipt naming only carrier B's id finds B's message though A has a newer one under the same id", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      return Effect.gen(function*() {
        yield* acme.answerWith(acceptAs("smsc-1"))
        yield* backup.answerWith(acceptAs("smsc-1"))
        yield* acme.setState("connecting")
        const viaBackup = yield* send()
        yield* dispatch
        yield* acme.setState("bound")
        yield* TestClock.adjust("1 second")
        const viaAcme = yield* send()
        yield* dispatch
        const [b, a] = [yield* TestWorkers.load(viaBackup), yield* TestWorkers.load(viaAcme)]
        assert.deepStrictEqual([b.carrier, b.carrierMessageId, a.carrier, a.carrierMessageId], [
          "backup",
          "smsc-1",
          "acme",
          "smsc-1"
        ])
        const now = yield* Clock.currentTimeMillis
        yield* backup.report({ carrierMessageId: "smsc-1", outcome: "delivered", at: now })
        assert.strictEqual(yield* report, 1)
        assert.strictEqual((yield* TestWorkers.load(viaBackup)).status, "delivered")
        assert.strictEqual((yield* TestWorkers.load(viaAcme)).status, "sent")
      }).pipe(Effect.provide(routed(store, [acme, backup], [auRoute])))
    })

    it.effect("an undelivered receipt's carrier code reaches the message and message.undelivered", () => {
      const [acme, backup] = [fake("acme"), fake("backup")]
      return Effect.gen(function*() {
        const message = yield* send()
        yield* dispatch
        const sent = yield* TestWorkers.load(message)
        const error = { code: "unknown_subscriber", message: "Unknown subscriber.", carrier_code: "UNDELIV:001" }
        const now = yield* Clock.currentTimeMillis
        yield* acme.report({ carrierMessageId: sent.carrierMessageId!, outcome: "undelivered", error, at: now })
        assert.strictEqual(yield* report, 1)
        const undelivered = yield* TestWorkers.load(message)
        assert.deepStrictEqual([undelivered.status, undelivered.error], ["undelivered", error])
        const events = yield* TestWorkers.events(message)
        assert.deepStrictEqual(events.map((e) => e.type), ["message.queued", "message.sent", "message.undelivered"])
        assert.deepStrictEqual(events[2]!.data.error, error)
        assert.deepStrictEqual(MessageJson.full(undelivered).error, error)
      }).pipe(Effect.provide(routed(store, [acme, backup], [auRoute])))
    })
  })
}
