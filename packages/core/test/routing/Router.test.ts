import { assert, describe, it } from "@effect/vitest"
import type { Carrier, DeliveryReportInbox, Routes } from "@sendline/core"
import { Router } from "@sendline/core"
import { Effect, Either, Logger, Metric, MetricState } from "effect"
import { fake, names, refuse, unavailable } from "./FakeCarriers.js"

let sequence = 0
/** An AU message from "Acme", with `fields` over it. */
const outbound = (fields: Partial<Carrier.Outbound> = {}): Carrier.Outbound => ({
  reference: `msg_${++sequence}`,
  accountId: "acct_01",
  to: "+61412345678",
  senderId: "Acme",
  body: "Hello",
  encoding: "GSM-7",
  segments: 1,
  market: "AU",
  ...fields
})

/** The answer of the router to one message: the accepting carrier's name, or the error's code or reason. */
const outcome = (router: Carrier.Made<unknown>, message: Carrier.Outbound = outbound()) =>
  Effect.map(Effect.either(router.carrier.submit(message)), (answer) =>
    Either.isRight(answer)
      ? `accepted by ${answer.right.carrier}`
      : answer.left._tag === "CarrierRefused"
      ? `refused ${answer.left.code}`
      : `unavailable ${answer.left.reason}`)

/** The router's answer to a new NZ message. */
const toNz = (router: Carrier.Made<unknown>) =>
  Effect.suspend(() => outcome(router, outbound({ market: "NZ", to: "+64211234567" })))

interface Line {
  readonly level: string
  readonly text: string
}

/** Runs `body` with a logger that keeps every line. */
const logged = <A, E, R>(body: (lines: ReadonlyArray<Line>) => Effect.Effect<A, E, R>) => {
  const lines: Array<Line> = []
  const keep = Logger.make(({ logLevel, message }) => {
    lines.push({ level: logLevel.label, text: Array.isArray(message) ? message.join(" ") : String(message) })
  })
  return body(lines).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, keep)))
}

const repeat = <A, E, R>(times: number, effect: Effect.Effect<A, E, R>) =>
  Effect.forEach(Array.from({ length: times }), () => effect)

describe("Router", () => {
  it.effect("a route's list is its failover order; the receipt names the accepting carrier", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [backup.named, acme.named],
        routes: [{ market: "AU", carriers: names("acme", "backup") }]
      })
      const message = outbound()
      const receipt = yield* router.carrier.submit(message)
      assert.deepStrictEqual(receipt, {
        carrierMessageId: `acme-${message.reference}`,
        acceptedAt: 0,
        duplicate: false,
        carrier: "acme"
      })
      assert.deepStrictEqual([acme.submitted, backup.submitted], [[message.reference], []])
      yield* acme.answerWith(unavailable("unavailable"))
      assert.strictEqual(yield* outcome(router), "accepted by backup")
    }))

  it.effect("a carrier whose status is not bound is passed over without a submit", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: names("acme", "backup") }]
      })
      yield* acme.setState("connecting")
      assert.strictEqual(yield* outcome(router), "accepted by backup")
      yield* acme.setState("throttled")
      assert.strictEqual(yield* outcome(router), "accepted by backup")
      assert.strictEqual(acme.submitted.length, 0)
      yield* acme.setState("bound")
      assert.strictEqual(yield* outcome(router), "accepted by acme")
    }))

  it.effect("CarrierUnavailable (unavailable, throttled, timeout) → the next carrier", () =>
    Effect.gen(function*() {
      const [a, b, c, d] = [fake("a"), fake("b"), fake("c"), fake("d")]
      const router = yield* Router.make({
        carriers: [a.named, b.named, c.named, d.named],
        routes: [{ market: "AU", carriers: names("a", "b", "c", "d") }]
      })
      yield* a.answerWith(unavailable("unavailable"))
      yield* b.answerWith(unavailable("throttled"))
      yield* c.answerWith(unavailable("timeout"))
      const message = outbound()
      assert.strictEqual(yield* outcome(router, message), "accepted by d")
      assert.deepStrictEqual([a, b, c, d].map((f) => f.submitted), [[message.reference], [message.reference], [
        message.reference
      ], [message.reference]])
    }))

  it.effect("a refusal about the route → the next; when all refuse so, the last refusal is the answer", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: names("acme", "backup") }]
      })
      yield* acme.answerWith(refuse("sender_not_allowed", true, "smpp:0x0000000A"))
      assert.strictEqual(yield* outcome(router), "accepted by backup")
      yield* backup.answerWith(refuse("rejected_by_carrier", true, "smpp:0x00000045"))
      const refused = yield* Effect.flip(router.carrier.submit(outbound()))
      assert.strictEqual(refused._tag, "CarrierRefused")
      assert.deepStrictEqual(
        refused._tag === "CarrierRefused" ? [refused.code, refused.carrierCode] : [],
        ["rejected_by_carrier", "smpp:0x00000045"]
      )
      assert.deepStrictEqual([acme.submitted.length, backup.submitted.length], [2, 2])
    }))

  it.effect("a refusal about the recipient or content fails at once, the next carrier never tried", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: names("acme", "backup") }]
      })
      yield* acme.answerWith(refuse("invalid_destination", false, "smpp:0x0000000B"))
      const refused = yield* Effect.flip(router.carrier.submit(outbound()))
      assert.deepStrictEqual(
        refused._tag === "CarrierRefused" ? [refused.code, refused.carrierCode, refused.failover] : [],
        ["invalid_destination", "smpp:0x0000000B", false]
      )
      assert.deepStrictEqual([acme.submitted.length, backup.submitted.length], [1, 0])
    }))

  it.effect("a refusal about the route beside a carrier that cannot take it now: unavailable (tried again later)", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: names("acme", "backup") }]
      })
      yield* acme.answerWith(refuse("sender_not_allowed", true))
      yield* backup.setState("connecting")
      assert.strictEqual(yield* outcome(router), "unavailable unavailable")
    }))

  it.effect("no route → CarrierRefused no_route, nothing submitted", () =>
    Effect.gen(function*() {
      const acme = fake("acme")
      const router = yield* Router.make({
        carriers: [acme.named],
        routes: [{ market: "AU", prefix: "+6147", carriers: names("acme") }, { market: "NZ", carriers: names("acme") }]
      })
      const refused = yield* Effect.flip(router.carrier.submit(outbound({ to: "+61412345678" })))
      assert.deepStrictEqual(
        refused._tag === "CarrierRefused" ? [refused.code, refused.failover] : [],
        ["no_route", false]
      )
      assert.strictEqual(yield* outcome(router, outbound({ market: "SG", to: "+6581234567" })), "refused no_route")
      assert.strictEqual(acme.submitted.length, 0)
    }))

  it.effect("every carrier down → CarrierUnavailable (throttled when one throttled)", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: names("acme", "backup") }]
      })
      yield* acme.setState("connecting")
      yield* backup.answerWith(unavailable("timeout"))
      assert.strictEqual(yield* outcome(router), "unavailable unavailable")
      yield* backup.setState("throttled")
      assert.strictEqual(yield* outcome(router), "unavailable throttled")
      assert.deepStrictEqual([acme.submitted.length, backup.submitted.length], [0, 1])
    }))

  it.effect("weights 3:1 spread 4,000 messages (sequential references) within 5 % of 3:1", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "NZ", carriers: [{ carrier: "acme", weight: 3 }, { carrier: "backup", weight: 1 }] }]
      })
      const answers = yield* repeat(4_000, toNz(router))
      assert.isTrue(answers.every((a) => a.startsWith("accepted")))
      assert.closeTo(acme.submitted.length, 3_000, 150)
      assert.strictEqual(acme.submitted.length + backup.submitted.length, 4_000, "one submit each")
    }))

  it.effect("a resubmission (its reference again, after a crash) goes first to the weighted carrier picked before", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "NZ", carriers: [{ carrier: "acme", weight: 1 }, { carrier: "backup", weight: 1 }] }]
      })
      for (let i = 0; i < 20; i++) {
        const message = outbound({ market: "NZ", to: "+64211234567" })
        const first = yield* outcome(router, message)
        assert.deepStrictEqual(
          new Set(yield* repeat(10, outcome(router, message))),
          new Set([first]),
          "where the carrier's dedupe on the reference applies"
        )
      }
    }))

  it.effect("a weighted carrier throttling shifts its share to the other, failing no message", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("acme"), fake("backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "NZ", carriers: [{ carrier: "acme", weight: 3 }, { carrier: "backup", weight: 1 }] }]
      })
      yield* acme.answerWith(unavailable("throttled"))
      const answers = yield* repeat(400, toNz(router))
      assert.deepStrictEqual(new Set(answers), new Set(["accepted by backup"]))
      assert.closeTo(acme.submitted.length, 300, 40, "its share was offered to it first")
      yield* acme.setState("throttled")
      const passed = acme.submitted.length
      assert.deepStrictEqual(new Set(yield* repeat(400, toNz(router))), new Set(["accepted by backup"]))
      assert.strictEqual(acme.submitted.length, passed, "a throttled status: no submit at all")
      assert.strictEqual(backup.submitted.length, 800)
    }))

  it.effect("one log line per change of state of a carrier and of a route, none per message", () =>
    logged((lines) =>
      Effect.gen(function*() {
        const [acme, backup] = [fake("acme"), fake("backup")]
        const router = yield* Router.make({
          carriers: [acme.named, backup.named],
          routes: [{ market: "AU", carriers: names("acme", "backup") }, { market: "NZ", carriers: names("backup") }]
        })
        yield* repeat(5, outcome(router))
        assert.deepStrictEqual(lines, [])
        yield* acme.setState("connecting")
        yield* repeat(5, outcome(router))
        yield* backup.answerWith(unavailable("unavailable"))
        yield* repeat(5, outcome(router))
        yield* repeat(5, outcome(router, outbound({ market: "NZ", to: "+64211234567" })))
        yield* acme.setState("bound")
        yield* repeat(5, outcome(router))
        yield* backup.accepting
        yield* repeat(5, outcome(router, outbound({ market: "NZ", to: "+64211234567" })))
        assert.deepStrictEqual(lines, [
          {
            level: "WARN",
            text: "Routing: carrier acme cannot take messages now (connecting); its routes fail over"
          },
          {
            level: "WARN",
            text: "Routing: carrier backup cannot take messages now (unavailable); its routes fail over"
          },
          {
            level: "WARN",
            text:
              "Routing: no carrier of routes.0 (AU) can take messages now (acme: connecting, backup: unavailable); " +
              "they stay queued and are tried again when their lease ends"
          },
          {
            level: "WARN",
            text: "Routing: no carrier of routes.1 (NZ) can take messages now (backup: unavailable); " +
              "they stay queued and are tried again when their lease ends"
          },
          { level: "INFO", text: "Routing: carrier acme takes messages again" },
          { level: "INFO", text: "Routing: routes.0 (AU) takes messages again" },
          { level: "INFO", text: "Routing: carrier backup takes messages again" },
          { level: "INFO", text: "Routing: routes.1 (NZ) takes messages again" }
        ])
      })
    ))

  it.effect("the inbox takes every carrier's reports, tagged with its name, one carrier's flood starving none", () =>
    Effect.gen(function*() {
      const [acme, backup, quiet] = [fake("acme"), fake("backup"), fake("quiet")]
      const silent: Router.Named = { name: "silent", carrier: quiet.named.carrier }
      const router = yield* Router.make({
        carriers: [acme.named, silent, backup.named],
        routes: [{ market: "*", carriers: names("acme", "backup", "silent") }]
      })
      const report = (carrierMessageId: string): DeliveryReportInbox.DeliveryReport => ({
        carrierMessageId,
        outcome: "delivered",
        at: 0,
        carrier: "whatever the carrier said"
      })
      for (let i = 0; i < 250; i++) yield* acme.report(report(`a${i}`))
      for (let i = 0; i < 10; i++) yield* backup.report(report(`b${i}`))
      const first = yield* router.inbox.take(100)
      const second = yield* router.inbox.take(100)
      assert.strictEqual(first.length, 100)
      assert.strictEqual(second.length, 100)
      const taken = [...first, ...second]
      assert.deepStrictEqual(
        taken.filter((r) => r.carrier === "backup").map((r) => r.carrierMessageId),
        Array.from({ length: 10 }, (_, i) => `b${i}`),
        "backup's reports within two takes, though acme always has more than a take"
      )
      assert.isTrue(taken.every((r) => r.carrier === (r.carrierMessageId.startsWith("a") ? "acme" : "backup")))
      assert.strictEqual((yield* router.inbox.take(1_000)).length, 60)
      assert.deepStrictEqual(yield* router.inbox.take(1_000), [])
    }))

  it.effect("the view: each carrier's state in order; unroutable lists a market whose carriers are all down, and *", () =>
    Effect.gen(function*() {
      const [acme, backup, sim] = [fake("acme"), fake("backup"), fake("sim")]
      const routes: ReadonlyArray<Routes.Route> = [
        { market: "AU", carriers: names("acme", "backup") },
        { market: "AU", prefix: "+6147", carriers: names("backup") },
        { market: "NZ", carriers: names("acme") },
        { market: "GB", prefix: "+447", carriers: names("backup") },
        { market: "*", carriers: names("sim") }
      ]
      const router = yield* Router.make({ carriers: [acme.named, backup.named, sim.named], routes })
      assert.strictEqual(router.view.routes, routes)
      assert.deepStrictEqual(yield* router.view.unroutable, [])
      yield* acme.setState("connecting")
      assert.deepStrictEqual(yield* router.view.carriers, [
        { name: "acme", status: { state: "connecting" } },
        { name: "backup", status: { state: "bound" } },
        { name: "sim", status: { state: "bound" } }
      ])
      assert.deepStrictEqual(yield* router.view.unroutable, ["NZ"], "* does not take NZ's messages: NZ has a route")
      yield* backup.setState("throttled")
      assert.deepStrictEqual(yield* router.view.unroutable, ["AU", "NZ"], "GB's other messages go by *")
      yield* sim.setState("connecting")
      assert.deepStrictEqual(yield* router.view.unroutable, ["AU", "NZ", "GB", "*"])
      assert.deepStrictEqual(yield* router.carrier.status!, { state: "throttled" }, "none bound, one throttled")
      yield* backup.setState("connecting")
      assert.deepStrictEqual(yield* router.carrier.status!, { state: "connecting" })
      yield* acme.setState("bound")
      assert.deepStrictEqual(yield* router.view.unroutable, ["GB", "*"])
      assert.deepStrictEqual(yield* router.carrier.status!, { state: "bound" })
    }))

  it.effect("counts each try by carrier and outcome, and the latency of each submit", () =>
    Effect.gen(function*() {
      const [acme, backup] = [fake("counted-acme"), fake("counted-backup")]
      const router = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: names("counted-acme", "counted-backup") }]
      })
      yield* acme.setState("connecting")
      yield* outcome(router)
      yield* acme.setState("bound")
      yield* acme.answerWith(unavailable("timeout"))
      yield* outcome(router)
      yield* acme.answerWith(refuse("sender_not_allowed", true))
      yield* outcome(router)
      const series = (yield* Metric.snapshot).filter((pair) =>
        pair.metricKey.tags.some((tag) => tag.key === "carrier" && tag.value.startsWith("counted-"))
      )
      const tagsOf = (pair: (typeof series)[number]) =>
        pair.metricKey.tags.map((tag) => `${tag.key}=${tag.value}`).sort().join(",")
      const counts = Object.fromEntries(
        series.filter((pair) => pair.metricKey.name === "sendline_carrier_submits").map((pair) => [
          tagsOf(pair),
          MetricState.isCounterState(pair.metricState) ? pair.metricState.count : NaN
        ])
      )
      assert.deepStrictEqual(counts, {
        "carrier=counted-acme,outcome=passed_over": 1,
        "carrier=counted-acme,outcome=timeout": 1,
        "carrier=counted-acme,outcome=refused": 1,
        "carrier=counted-backup,outcome=accepted": 3
      })
      const latencies = Object.fromEntries(
        series.filter((pair) => pair.metricKey.name === "sendline_carrier_submit_duration_seconds").map((pair) => [
          tagsOf(pair),
          MetricState.isHistogramState(pair.metricState) ? pair.metricState.count : NaN
        ])
      )
      assert.deepStrictEqual(latencies, { "carrier=counted-acme": 2, "carrier=counted-backup": 3 })
    }))

  it.effect("RoutesInvalid for a carrier name given twice", () =>
    Effect.gen(function*() {
      const [acme, again] = [fake("acme"), fake("acme")]
      const error = yield* Effect.flip(Router.make({
        carriers: [acme.named, again.named],
        routes: [{ market: "*", carriers: names("acme") }]
      }))
      assert.deepStrictEqual(error.problems, [`the carrier "acme" is given twice`])
    }))

  it.effect("RoutesInvalid for a route naming a carrier it was not given", () =>
    Effect.gen(function*() {
      const acme = fake("acme")
      const error = yield* Effect.flip(Router.make({
        carriers: [acme.named],
        routes: [{ market: "AU", carriers: names("acme", "ghost") }, { market: "*", carriers: names("sim") }]
      }))
      assert.strictEqual(error._tag, "RoutesInvalid")
      assert.deepStrictEqual(error.problems, [
        `routes.0 (AU) names the carrier "ghost", which "carriers" does not configure`,
        `routes.1 (*) names the carrier "sim", which "carriers" does not configure`
      ])
    }))
})
