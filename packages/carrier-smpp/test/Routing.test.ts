/**
 * Core's router over SMPP carriers, each bound to a real SMSC in this process (CONTRACT §11): the
 * split by weight, throttling shifting a carrier's share, what fails over and what does not, a
 * carrier down at start and back, and one log line per change of state.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Carrier } from "@sendline/core"
import { Router, Segments } from "@sendline/core"
import { Effect, Either, Logger, Redacted, Schedule } from "effect"
import smpp from "smpp"
import * as SmppCarrier from "../src/SmppCarrier.js"
import { TestSmsc } from "../src/testing/index.js"

let counter = 0
const outbound = (over: Partial<Carrier.Outbound> = {}): Carrier.Outbound => {
  const body = "Your code is 493817"
  return {
    reference: `msg_routing_${++counter}`,
    accountId: "acct_1",
    to: `+614${String(10_000_000 + counter).padStart(8, "0")}`,
    senderId: "Sendline",
    body,
    encoding: Segments.count(body).encoding,
    segments: Segments.segmentsOf(body),
    market: "AU",
    ...over
  }
}

/** An SMPP carrier named `name` bound to `smsc`. */
const named = (name: string, smsc: TestSmsc.Smsc, query = "window=10") =>
  Effect.map(
    SmppCarrier.make({ url: Redacted.make(smsc.url(query)), reconnectMin: "20 millis", reconnectMax: "50 millis" }),
    ({ carrier, inbox }): Router.Named => ({ name, carrier, inbox })
  )

/** The lines logged at warning and info while `effect` runs, in `lines`. */
const capturingLogs = (lines: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message }) => {
      lines.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
  )

/** The two carriers' order in the AU route: weighted 3:1, or acme then backup. */
const weighted = [{ carrier: "acme", weight: 3 }, { carrier: "backup", weight: 1 }] as const
const inOrder = [{ carrier: "acme" }, { carrier: "backup" }] as const

/** Two SMSCs, `acme` and `backup` bound to them, and the router over both with one AU route of `carriers`. */
const acmeAndBackup = (carriers: typeof weighted | typeof inOrder) =>
  Effect.gen(function*() {
    const [a, b] = [yield* TestSmsc.start(), yield* TestSmsc.start()]
    const { carrier } = yield* Router.make({
      carriers: [yield* named("acme", a), yield* named("backup", b)],
      routes: [{ market: "AU", carriers }]
    })
    return { a, b, carrier }
  })

const submitAll = (carrier: Router.Named["carrier"], messages: ReadonlyArray<Carrier.Outbound>) =>
  Effect.forEach(messages, (m) => Effect.either(carrier.submit(m)), { concurrency: 16 })

describe("the router over SMPP carriers", () => {
  it.live(
    "weights 3:1 over 4,000 messages split them within 5 % of 3:1, every one accepted once",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b, carrier } = yield* acmeAndBackup(weighted)
        const answers = yield* submitAll(carrier, Array.from({ length: 4000 }, () => outbound()))
        assert.deepStrictEqual(answers.filter(Either.isLeft), [])
        assert.strictEqual(a.submits.length + b.submits.length, 4000)
        const share = a.submits.length / 4000
        assert.isTrue(Math.abs(share - 0.75) <= 0.75 * 0.05, `acme took ${a.submits.length} of 4,000`)
        const carriers = answers.map((answer) => Either.getOrThrow(answer).carrier)
        assert.strictEqual(carriers.filter((c) => c === "acme").length, a.submits.length)
      })),
    60_000
  )

  it.live(
    "a carrier answering ESME_RTHROTTLED passes its share to the other without failing a message",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b, carrier } = yield* acmeAndBackup(weighted)
        a.setAnswer(() => ({ status: smpp.errors.ESME_RTHROTTLED! }))
        const answers = yield* submitAll(carrier, Array.from({ length: 200 }, () => outbound()))
        assert.deepStrictEqual(answers.filter(Either.isLeft), [])
        assert.isTrue(
          answers.every((answer) => Either.getOrThrow(answer).carrier === "backup"),
          "every message went through backup"
        )
        assert.strictEqual(b.submits.length, 200)
      })),
    60_000
  )

  it.live(
    "a refusal about the recipient fails at the first carrier; one about the sender goes to the next",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b, carrier } = yield* acmeAndBackup(inOrder)
        a.setAnswer((submit) =>
          submit.destinationAddr === "61400000001"
            ? { status: smpp.errors.ESME_RINVDSTADR! }
            : { status: smpp.errors.ESME_RINVSRCADR! }
        )
        const recipient = yield* Effect.flip(carrier.submit(outbound({ to: "+61400000001" })))
        assert.strictEqual(recipient._tag, "CarrierRefused")
        assert.deepInclude(recipient, { code: "invalid_destination", carrierCode: "smpp:0x0000000B", failover: false })
        assert.strictEqual(b.submits.length, 0, "backup never saw the invalid destination")
        const sender = yield* carrier.submit(outbound({ to: "+61400000002" }))
        assert.strictEqual(sender.carrier, "backup")
        assert.deepStrictEqual(b.submits.map((s) => s.destinationAddr), ["61400000002"])
      })),
    60_000
  )

  it.live(
    "every carrier refusing about the route fails the message with the last refusal",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b, carrier } = yield* acmeAndBackup(inOrder)
        a.setAnswer(() => ({ status: smpp.errors.ESME_RINVSRCADR! }))
        b.setAnswer(() => ({ status: smpp.errors.ESME_RSUBMITFAIL! }))
        const refused = yield* Effect.flip(carrier.submit(outbound()))
        assert.deepInclude(refused, {
          _tag: "CarrierRefused",
          code: "rejected_by_carrier",
          carrierCode: "smpp:0x00000045"
        })
      })),
    60_000
  )

  /** An SMPP carrier named `name` whose SMSC is not listening: a port that was just closed. */
  const unreachable = (name: string) =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(TestSmsc.start(), (smsc) => smsc.port))
      const made = yield* SmppCarrier.make({
        url: Redacted.make(`smpp://sendline:secret@127.0.0.1:${port}?window=10`),
        reconnectMin: "20 millis",
        reconnectMax: "50 millis"
      })
      return { port, named: { name, carrier: made.carrier, inbox: made.inbox } satisfies Router.Named }
    })

  it.live("the first carrier down at start: messages go through the second; once it binds, through it again", () => {
    const lines: Array<string> = []
    return Effect.scoped(Effect.gen(function*() {
      const acme = yield* unreachable("acme")
      const b = yield* TestSmsc.start()
      const { carrier } = yield* Router.make({
        carriers: [acme.named, yield* named("backup", b)],
        routes: [{ market: "AU", carriers: [{ carrier: "acme" }, { carrier: "backup" }] }]
      })
      const early = yield* submitAll(carrier, Array.from({ length: 20 }, () => outbound()))
      assert.isTrue(early.every((answer) => Either.getOrThrow(answer).carrier === "backup"))
      const a = yield* TestSmsc.start({ port: acme.port })
      yield* a.until(() => a.boundSessions() === 1)
      // the SMSC counts the bind before the carrier has read its answer: wait for the carrier's own word
      yield* acme.named.carrier.status!.pipe(
        Effect.repeat({ until: (status) => status.state === "bound", schedule: Schedule.spaced("5 millis") })
      )
      const late = yield* submitAll(carrier, Array.from({ length: 20 }, () => outbound()))
      assert.isTrue(late.every((answer) => Either.getOrThrow(answer).carrier === "acme"))
      assert.strictEqual(a.submits.length, 20)
      const passedOver = lines.filter((line) => line.startsWith("Routing: carrier acme cannot take messages now"))
      const back = lines.filter((line) => line.startsWith("Routing: carrier acme takes messages again"))
      assert.deepStrictEqual([passedOver.length, back.length], [1, 1], lines.join("\n"))
    })).pipe(Effect.provide(capturingLogs(lines)))
  }, 60_000)

  it.live("every carrier of the route down: CarrierUnavailable, the route's state logged once, not per message", () => {
    const lines: Array<string> = []
    return Effect.scoped(Effect.gen(function*() {
      const [acme, backup] = [yield* unreachable("acme"), yield* unreachable("backup")]
      const { carrier, view } = yield* Router.make({
        carriers: [acme.named, backup.named],
        routes: [{ market: "AU", carriers: [{ carrier: "acme" }, { carrier: "backup" }] }]
      })
      const answers = yield* submitAll(carrier, Array.from({ length: 10 }, () => outbound()))
      const refused = answers.filter(Either.isLeft).map((answer) => answer.left._tag)
      assert.deepStrictEqual(refused, Array.from({ length: 10 }, () => "CarrierUnavailable"))
      assert.deepStrictEqual(yield* view.unroutable, ["AU"])
      const down = lines.filter((line) => line.startsWith("Routing: no carrier of routes.0 (AU)"))
      assert.strictEqual(down.length, 1, lines.join("\n"))
    })).pipe(Effect.provide(capturingLogs(lines)))
  }, 60_000)
})
