import { assert, describe, it } from "@effect/vitest"
import { CarrierMock, SimulatedUrl } from "@sendline/carrier-mock"
import { Carrier, DeliveryReportInbox } from "@sendline/core"
import { Clock, Config, ConfigProvider, Effect, Either, Fiber, Layer, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const outbound = (reference: string, to: string, segments = 1): Carrier.Outbound => ({
  reference,
  accountId: "acct_test",
  to,
  senderId: "Acme",
  body: "Hello",
  encoding: "GSM-7",
  segments,
  market: "AU"
})

const submit = (message: Carrier.Outbound) =>
  Effect.flatMap(Carrier.Carrier, (carrier) => Effect.either(carrier.submit(message)))
const take = (max = 100) => Effect.flatMap(DeliveryReportInbox.DeliveryReportInbox, (inbox) => inbox.take(max))
const journal = Effect.flatMap(CarrierMock.CarrierMock, (mock) => mock.journal)

const withMock = (options: CarrierMock.Options = {}) => Effect.provide(CarrierMock.layer(options))

describe("CarrierMock", () => {
  it("rules go by the recipient's last four digits", () => {
    assert.strictEqual(CarrierMock.ruleFor("+61412340000"), "undeliver")
    assert.strictEqual(CarrierMock.ruleFor("+61412349999"), "refuse")
    assert.strictEqual(CarrierMock.ruleFor("+61412345555"), "silent")
    assert.strictEqual(CarrierMock.ruleFor("+61412347777"), "flaky")
    assert.strictEqual(CarrierMock.ruleFor("+61412345678"), "deliver")
    assert.strictEqual(CarrierMock.ruleFor("+61412342222"), "refuse")
    assert.strictEqual(CarrierMock.ruleFor("+61412341111"), "undeliver")
  })

  it.effect("accepts, then reports delivered after the report delay", () =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const receipt = yield* submit(outbound("msg_1", "+61412345678"))
      assert.deepStrictEqual(
        receipt,
        Either.right({ carrierMessageId: "mock_00000001", acceptedAt: start, duplicate: false })
      )
      assert.deepStrictEqual(yield* take(), [])
      yield* TestClock.adjust("2999 millis")
      assert.deepStrictEqual(yield* take(), [])
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* take(), [{
        reference: "msg_1",
        accountId: "acct_test",
        carrierMessageId: "mock_00000001",
        outcome: "delivered",
        at: start + 3_000
      }])
      assert.deepStrictEqual(yield* take(), [], "a report is taken once")
    }).pipe(withMock({ reportDelay: "3 seconds" })))

  it.effect("0000 is reported undelivered with an error, 5555 never reports", () =>
    Effect.gen(function*() {
      yield* submit(outbound("msg_u", "+61412340000"))
      yield* submit(outbound("msg_s", "+61412345555"))
      yield* TestClock.adjust("1 hour")
      const reports = yield* take()
      assert.strictEqual(reports.length, 1)
      assert.strictEqual(reports[0]!.reference, "msg_u")
      assert.strictEqual(reports[0]!.outcome, "undelivered")
      assert.deepStrictEqual(reports[0]!.error, CarrierMock.undeliveredError)
      assert.deepStrictEqual((yield* journal).map((e) => e.decision), ["accepted", "accepted"])
    }).pipe(withMock()))

  it.effect("9999 is refused at submit, every time, and never charged", () =>
    Effect.gen(function*() {
      const first = yield* submit(outbound("msg_r", "+61412349999"))
      const again = yield* submit(outbound("msg_r", "+61412349999"))
      for (const answer of [first, again]) {
        assert.isTrue(
          Either.isLeft(answer) && answer.left._tag === "CarrierRefused" && answer.left.code === "invalid_destination"
        )
      }
      assert.deepStrictEqual((yield* journal).map((e) => e.decision), ["refused", "refused"])
      assert.strictEqual(yield* Effect.flatMap(CarrierMock.CarrierMock, (m) => m.charged), 0)
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(yield* take(), [])
    }).pipe(withMock()))

  it.effect("each refusal suffix is refused with its code, the carrier's own code and its failover", () =>
    Effect.gen(function*() {
      const refused = []
      for (const suffix of ["9999", "2222", "3333", "4444", "8888"]) {
        const answer = yield* submit(outbound(`msg_${suffix}`, `+6141234${suffix}`))
        assert.isTrue(Either.isLeft(answer) && answer.left._tag === "CarrierRefused", suffix)
        if (Either.isLeft(answer) && answer.left._tag === "CarrierRefused") {
          const { carrierCode, code, failover } = answer.left
          refused.push({ code, carrierCode, failover })
        }
      }
      assert.deepStrictEqual(refused, [
        { code: "invalid_destination", carrierCode: "sim:invalid_destination", failover: false },
        { code: "barred", carrierCode: "sim:barred", failover: false },
        { code: "blocked_content", carrierCode: "sim:blocked_content", failover: false },
        { code: "sender_not_allowed", carrierCode: "sim:sender_not_allowed", failover: true },
        { code: "rejected_by_carrier", carrierCode: "sim:rejected_by_carrier", failover: true }
      ])
      assert.deepStrictEqual((yield* journal).map((e) => e.code), refused.map((r) => r.code))
    }).pipe(withMock()))

  it.effect("each undelivered suffix is accepted, then reported with its error and the carrier's own code", () =>
    Effect.gen(function*() {
      for (const suffix of ["0000", "1111", "6666", "0500"]) {
        yield* submit(outbound(`msg_${suffix}`, `+6141234${suffix}`))
      }
      yield* TestClock.adjust("1 hour")
      const reports = yield* take()
      assert.deepStrictEqual(reports.map((r) => [r.outcome, r.error]), [
        ["undelivered", CarrierMock.undeliveredError],
        ["undelivered", {
          code: "unknown_subscriber",
          message: "The network does not know the subscriber.",
          carrier_code: "sim:unknown_subscriber"
        }],
        ["undelivered", {
          code: "expired",
          message: "The message expired before it could be delivered.",
          carrier_code: "sim:expired"
        }],
        ["undelivered", {
          code: "carrier_error",
          message: "The carrier failed to deliver the message.",
          carrier_code: "sim:carrier_error"
        }]
      ])
      assert.strictEqual(CarrierMock.undeliveredError.code, "absent_subscriber")
    }).pipe(withMock()))

  it.effect("7777 is unavailable on its first submission and accepted on the next", () =>
    Effect.gen(function*() {
      const first = yield* submit(outbound("msg_f", "+61412347777"))
      assert.isTrue(
        Either.isLeft(first) && first.left._tag === "CarrierUnavailable" && first.left.reason === "unavailable"
      )
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_f", "+61412347777"))))
      assert.deepStrictEqual((yield* journal).map((e) => e.decision), ["unavailable", "accepted"])
    }).pipe(withMock()))

  it.effect("a reference accepted before answers with the same receipt and is not charged again", () =>
    Effect.gen(function*() {
      const first = yield* submit(outbound("msg_d", "+61412345678", 3))
      yield* TestClock.adjust("1 second")
      const second = yield* submit(outbound("msg_d", "+61412345678", 3))
      assert.isTrue(Either.isRight(first) && Either.isRight(second))
      if (Either.isRight(first) && Either.isRight(second)) {
        assert.deepStrictEqual(second.right, { ...first.right, duplicate: true })
      }
      assert.deepStrictEqual((yield* journal).map((e) => e.decision), ["accepted", "duplicate"])
      assert.strictEqual(yield* Effect.flatMap(CarrierMock.CarrierMock, (m) => m.charged), 3)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* take()).length, 1, "one message, one report")
    }).pipe(withMock()))

  it.effect("concurrent submissions of one reference: one accepted, the rest duplicates", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.all(Array.from({ length: 5 }, () => submit(outbound("msg_c", "+61412345678"))), {
        concurrency: "unbounded"
      })
      yield* TestClock.adjust("100 millis")
      assert.isTrue(answers.every(Either.isRight))
      assert.deepStrictEqual((yield* journal).map((e) => e.decision).sort(), [
        "accepted",
        "duplicate",
        "duplicate",
        "duplicate",
        "duplicate"
      ])
    }).pipe(withMock()))

  it.effect("submit latency runs on the Clock", () =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const fiber = yield* Effect.fork(submit(outbound("msg_l", "+61412345678")))
      yield* TestClock.adjust("249 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 millis")
      const answer = yield* Fiber.join(fiber)
      assert.isTrue(Either.isRight(answer) && answer.right.acceptedAt === start + 250)
    }).pipe(withMock({ submitLatency: "250 millis" })))

  it.effect("the throughput cap throttles past N per second and refills with the Clock", () =>
    Effect.gen(function*() {
      const burst = yield* Effect.forEach(Array.from({ length: 7 }, (_, i) => `msg_t${i}`), (ref) =>
        submit(outbound(ref, "+61412345678")))
      const throttled = burst.filter((a) =>
        Either.isLeft(a) && a.left._tag === "CarrierUnavailable" && a.left.reason === "throttled"
      )
      assert.strictEqual(burst.filter(Either.isRight).length, 5)
      assert.strictEqual(throttled.length, 2)
      yield* TestClock.adjust("200 millis") // one token back
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_t5", "+61412345678"))))
      assert.isTrue(Either.isLeft(yield* submit(outbound("msg_t6", "+61412345678"))))
      yield* TestClock.adjust("1 second")
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_t6", "+61412345678"))))
      const decisions = (yield* journal).map((e) =>
        e.decision
      )
      assert.strictEqual(decisions.filter((d) => d === "throttled").length, 3)
      assert.strictEqual(decisions.filter((d) => d === "accepted").length, 7)
    }).pipe(withMock({ maxPerSecond: 5 })))

  it.effect("its status is bound, and throttled while its bucket is empty", () =>
    Effect.gen(function*() {
      const carrier = yield* Carrier.Carrier
      assert.deepStrictEqual(yield* carrier.status!, { state: "bound" })
      yield* submit(outbound("msg_s1", "+61412345678"))
      yield* submit(outbound("msg_s2", "+61412345678"))
      assert.deepStrictEqual(yield* carrier.status!, { state: "throttled" })
      yield* TestClock.adjust("500 millis") // one token back
      assert.deepStrictEqual(yield* carrier.status!, { state: "bound" })
    }).pipe(withMock({ maxPerSecond: 2 })))

  it("SimulatedUrl reads simulated: with its settings as query parameters, and names what it cannot use", () => {
    assert.deepStrictEqual(SimulatedUrl.parse("simulated:"), Either.right({}))
    assert.deepStrictEqual(
      SimulatedUrl.parse("simulated:?report_delay_ms=2000&max_per_second=50&submit_latency_ms=5&retain_ms=0"),
      Either.right({ reportDelay: 2000, maxPerSecond: 50, submitLatency: 5, retain: 0 })
    )
    assert.deepStrictEqual(
      SimulatedUrl.parse("simulated:?journal_path=%2Ftmp%2Fsim.jsonl"),
      Either.right({ journalPath: "/tmp/sim.jsonl" })
    )
    assert.deepStrictEqual(
      SimulatedUrl.parse("simulated:?rate=5"),
      Either.left(
        "has an unknown parameter rate (known: submit_latency_ms, report_delay_ms, max_per_second, retain_ms, journal_path)"
      )
    )
    assert.deepStrictEqual(
      SimulatedUrl.parse("simulated:?report_delay_ms=soon"),
      Either.left("report_delay_ms must be a whole number of milliseconds, 0 or more")
    )
    assert.deepStrictEqual(
      SimulatedUrl.parse("simulated:?max_per_second=0"),
      Either.left("max_per_second must be a number of submissions a second above 0")
    )
    assert.deepStrictEqual(
      SimulatedUrl.parse("simulated://host"),
      Either.left("takes only query parameters after simulated:")
    )
    assert.deepStrictEqual(SimulatedUrl.parse("smpp://a:b@host"), Either.left("must start simulated:"))
  })

  it.effect("layerConfig reads the options from a Config", () =>
    Effect.gen(function*() {
      const burst = yield* Effect.forEach(
        ["msg_c1", "msg_c2", "msg_c3"],
        (ref) => submit(outbound(ref, "+61412345678"))
      )
      assert.deepStrictEqual(burst.map(Either.isRight), [true, true, false])
    }).pipe(
      Effect.provide(CarrierMock.layerConfig({ maxPerSecond: Config.integer("CAP") })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["CAP", "2"]])))
    ))

  it.effect("the inbox hands out at most `max` due reports, oldest first", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 5; i++) {
        yield* submit(outbound(`msg_${i}`, "+61412345678"))
        yield* TestClock.adjust("1 millis")
      }
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual((yield* take(2)).map((r) => r.reference), ["msg_0", "msg_1"])
      assert.deepStrictEqual((yield* take(10)).map((r) => r.reference), ["msg_2", "msg_3", "msg_4"])
    }).pipe(withMock()))

  it.effect("a journal in a directory not yet made is created, its owner's only; a path that cannot be written fails at start", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "carrier-mock-"))
      const journalPath = path.join(dir, "not", "yet", "journal.jsonl")
      yield* Effect.provide(submit(outbound("msg_a", "+61412345678")), CarrierMock.layer({ journalPath }))
      assert.include(fs.readFileSync(journalPath, "utf8"), "\"reference\":\"msg_a\"")
      assert.strictEqual((fs.statSync(journalPath).mode & 0o777).toString(8), "600", "readable by its owner only")

      const blocker = path.join(dir, "a-file")
      fs.writeFileSync(blocker, "")
      for (const unusable of [dir, path.join(blocker, "journal.jsonl")]) {
        const refused = yield* Effect.flip(
          Layer.build(CarrierMock.layer({ journalPath: unusable })).pipe(Effect.scoped)
        )
        assert.instanceOf(refused, CarrierMock.JournalUnavailable)
        assert.include(refused.message, `Cannot use the carrier journal at ${unusable} (`)
      }
    }))

  it.effect("a journal file outlives the mock: the next one dedupes and reports what the first accepted", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "carrier-mock-"))
      const journalPath = path.join(dir, "journal.jsonl")
      const first = CarrierMock.layer({ journalPath })
      yield* Effect.provide(
        Effect.zipRight(submit(outbound("msg_a", "+61412345678")), submit(outbound("msg_b", "+61412349999"))),
        first
      )
      // a crash mid-write leaves half a line behind
      fs.appendFileSync(journalPath, "{\"at\":")

      const second = CarrierMock.layer({ journalPath })
      yield* Effect.gen(function*() {
        const again = yield* submit(outbound("msg_a", "+61412345678"))
        assert.isTrue(
          Either.isRight(again) && again.right.duplicate && again.right.carrierMessageId === "mock_00000001"
        )
        const fresh = yield* submit(outbound("msg_c", "+61412345678"))
        assert.isTrue(Either.isRight(fresh) && fresh.right.carrierMessageId === "mock_00000002")
        yield* TestClock.adjust("1 minute")
        assert.deepStrictEqual((yield* take()).map((r) => r.reference), ["msg_a", "msg_c"])
      }).pipe(Effect.provide(second))
      const decisions = fs.readFileSync(journalPath, "utf8").split("\n").flatMap((l) => {
        try {
          return [JSON.parse(l).decision as string]
        } catch {
          return []
        }
      })
      assert.deepStrictEqual(decisions, ["accepted", "refused", "duplicate", "accepted"])
      fs.rmSync(dir, { recursive: true, force: true })
    }))

  it.effect("with retain, a submission past the window is forgotten: gone from the journal and charges, its reference new again", () =>
    Effect.gen(function*() {
      const charged = Effect.flatMap(CarrierMock.CarrierMock, (m) => m.charged)
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_old", "+61412345678", 2))))
      yield* TestClock.adjust("59 seconds")
      const within = yield* submit(outbound("msg_old", "+61412345678", 2))
      assert.isTrue(Either.isRight(within) && within.right.duplicate, "within the window a resubmission is a duplicate")
      assert.strictEqual(yield* charged, 2)

      yield* TestClock.adjust("2 seconds") // the acceptance at 0 is now 61 seconds old
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_new", "+61412345678"))))
      assert.deepStrictEqual((yield* journal).map((e) => [e.reference, e.decision]), [
        ["msg_old", "duplicate"],
        ["msg_new", "accepted"]
      ])
      assert.strictEqual(yield* charged, 1)

      const again = yield* submit(outbound("msg_old", "+61412345678", 2))
      assert.deepStrictEqual(
        again,
        Either.right({ carrierMessageId: "mock_00000003", acceptedAt: 61_000, duplicate: false })
      )
      assert.strictEqual(yield* charged, 3)
    }).pipe(withMock({ retain: "1 minute" })))

  it.effect("with retain, a resubmission past the window is new even when nothing was submitted in between", () =>
    Effect.gen(function*() {
      yield* submit(outbound("msg_a", "+61412345678"))
      yield* TestClock.adjust("61 seconds")
      const again = yield* submit(outbound("msg_a", "+61412345678"))
      assert.isTrue(Either.isRight(again) && !again.right.duplicate && again.right.carrierMessageId === "mock_00000002")
      assert.deepStrictEqual((yield* journal).map((e) => e.at), [61_000])
    }).pipe(withMock({ retain: "1 minute" })))

  it.effect("with retain, the journal holds exactly the window over many submissions", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 300; i++) {
        yield* submit(outbound(`msg_${i}`, i % 2 === 0 ? "+61412345678" : "+61412349999"))
        const remembered = (yield* journal).map((e) => e.reference)
        const first = Math.max(0, i - 10) // entries at most 10 seconds old stay
        assert.deepStrictEqual(remembered, Array.from({ length: i - first + 1 }, (_, k) => `msg_${first + k}`))
        yield* TestClock.adjust("1 second")
      }
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_0", "+61412345678"))), "long forgotten: accepted anew")
      assert.isTrue(Either.isLeft(yield* submit(outbound("msg_295", "+61412349999"))), "a refusal is refused again")
      const dup = yield* submit(outbound("msg_298", "+61412345678"))
      assert.isTrue(Either.isRight(dup) && dup.right.duplicate, "still in the window: a duplicate")
    }).pipe(withMock({ retain: "10 seconds" })))

  it.effect("with retain, a 7777 reference past the window is unavailable on its first submission again", () =>
    Effect.gen(function*() {
      assert.isTrue(Either.isLeft(yield* submit(outbound("msg_f", "+61412347777"))))
      yield* TestClock.adjust("61 seconds")
      const again = yield* submit(outbound("msg_f", "+61412347777"))
      assert.isTrue(
        Either.isLeft(again) && again.left._tag === "CarrierUnavailable" && again.left.reason === "unavailable"
      )
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_f", "+61412347777"))))
    }).pipe(withMock({ retain: "1 minute" })))

  it.effect("with retain, entries of the journal file past the window are not taken back: no dedupe, no report", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "carrier-mock-"))
      const journalPath = path.join(dir, "journal.jsonl")
      yield* Effect.provide(submit(outbound("msg_a", "+61412345678")), CarrierMock.layer({ journalPath }))
      yield* TestClock.adjust("2 minutes")
      yield* Effect.gen(function*() {
        assert.deepStrictEqual(yield* take(), [], "the report of a submission past the window is not queued again")
        const again = yield* submit(outbound("msg_a", "+61412345678"))
        assert.isTrue(
          Either.isRight(again) && !again.right.duplicate && again.right.carrierMessageId === "mock_00000002"
        )
        assert.deepStrictEqual((yield* journal).map((e) => [e.reference, e.decision, e.at]), [[
          "msg_a",
          "accepted",
          120_000
        ]])
      }).pipe(Effect.provide(CarrierMock.layer({ journalPath, retain: "1 minute" })))
      fs.rmSync(dir, { recursive: true, force: true })
    }))

  it.effect("without retain, nothing is forgotten however long ago", () =>
    Effect.gen(function*() {
      yield* submit(outbound("msg_a", "+61412345678", 2))
      yield* submit(outbound("msg_f", "+61412347777"))
      yield* TestClock.adjust("3650 days")
      yield* submit(outbound("msg_b", "+61412345678"))
      const again = yield* submit(outbound("msg_a", "+61412345678", 2))
      assert.isTrue(Either.isRight(again) && again.right.duplicate && again.right.carrierMessageId === "mock_00000001")
      assert.isTrue(Either.isRight(yield* submit(outbound("msg_f", "+61412347777"))), "7777 seen before: accepted")
      assert.deepStrictEqual((yield* journal).map((e) => [e.reference, e.decision]), [
        ["msg_a", "accepted"],
        ["msg_f", "unavailable"],
        ["msg_b", "accepted"],
        ["msg_a", "duplicate"],
        ["msg_f", "accepted"]
      ])
      assert.strictEqual(yield* Effect.flatMap(CarrierMock.CarrierMock, (m) => m.charged), 4)
    }).pipe(withMock()))

  it.effect("injected reports are handed out like the network's", () =>
    Effect.gen(function*() {
      const mock = yield* CarrierMock.CarrierMock
      const now = yield* Clock.currentTimeMillis
      yield* mock.injectReport({
        reference: "msg_x",
        accountId: "acct_x",
        carrierMessageId: "c",
        outcome: "delivered",
        at: now
      })
      assert.strictEqual((yield* mock.pendingReports).length, 1)
      assert.deepStrictEqual((yield* take()).map((r) => r.reference), ["msg_x"])
    }).pipe(withMock()))
})
