/**
 * SMPP throughput: messages a second through `@sendline/carrier-smpp` to an SMSC in this process
 * (the `smpp` package's server, the test SMSC), from the first `submit_sm` to the last receipt
 * taken from the inbox, at windows 1 and 10, beside the simulated carrier's figure on the same
 * path. 16 fibers submit, as the Dispatcher's default concurrency does. The SMSC answers at once
 * (loopback: the client's and the SMSC's own cost, in one process), then 5 ms later (a remote
 * SMSC's round trip: what the window is for).
 *
 * Environment: BENCH_SMPP_MESSAGES (default 5,000; a fifth of it with the 5 ms answers).
 */
import { CarrierMock } from "@sendline/carrier-mock"
import { SmppCarrier } from "@sendline/carrier-smpp"
import { TestSmsc } from "@sendline/carrier-smpp/testing"
import type { Carrier, DeliveryReportInbox } from "@sendline/core"
import { Router, Segments } from "@sendline/core"
import type { Context } from "effect"
import { Duration, Effect, Exit, Fiber, Logger, LogLevel, Redacted, Scope } from "effect"

/** One run's figure. @since 0.1.0 */
interface SmppResult {
  readonly carrier: string
  readonly messages: number
  readonly seconds: number
  readonly perSecond: number
}

const count = Number(process.env["BENCH_SMPP_MESSAGES"] ?? 5_000)
const fibers = 16
/** Messages through the SMSC capped per session: a few seconds on one session. */
const capped = Number(process.env["BENCH_SMPP_CAPPED_MESSAGES"] ?? 1_000)
/** Rounds of the router beside one SMSC direct. */
const routerRounds = 5
const body = "Your code is 493817. It expires in 10 minutes."

const outbound = (i: number): Carrier.Outbound => ({
  reference: `msg_bench_${i}`,
  accountId: "acct_bench",
  // ends 5678 whatever `i`: a number the simulated carrier delivers (its rules go by the last four digits)
  to: `+614${String(i).padStart(4, "0")}5678`,
  senderId: "Sendline",
  body,
  encoding: Segments.count(body).encoding,
  segments: Segments.segmentsOf(body),
  market: "AU"
})

/** Submits `messages` through `carrier` and takes their reports; the time from the first submit to the last report. */
const measure = (
  name: string,
  messages: number,
  carrier: Context.Tag.Service<Carrier.Carrier>,
  inbox: Context.Tag.Service<DeliveryReportInbox.DeliveryReportInbox>
) =>
  Effect.gen(function*() {
    const started = performance.now()
    yield* Effect.forEach(Array.from({ length: messages }, (_, i) => i), (i) => carrier.submit(outbound(i)), {
      concurrency: fibers,
      discard: true
    })
    let reported = 0
    while (reported < messages) {
      const taken = yield* inbox.take(1000)
      reported += taken.length
      if (taken.length === 0) yield* Effect.sleep(Duration.millis(1))
    }
    const seconds = (performance.now() - started) / 1000
    return { carrier: name, messages, seconds, perSecond: messages / seconds } satisfies SmppResult
  })

const simulated = (messages: number) =>
  Effect.flatMap(
    CarrierMock.make({ reportDelay: 0 }),
    ({ carrier, inbox }) => measure("simulated carrier", messages, carrier, inbox)
  )

const smpp = (window: number, answerDelayMillis: number, messages: number) =>
  Effect.scoped(Effect.gen(function*() {
    const smsc = yield* TestSmsc.start({ answerDelayMillis })
    const { carrier, inbox } = yield* SmppCarrier.make({ url: Redacted.make(smsc.url(`window=${window}`)) })
    const name = `SMPP, window ${String(window).padStart(2)}${
      answerDelayMillis > 0 ? `, ${answerDelayMillis} ms answers` : ""
    }`
    const result = yield* measure(name, messages, carrier, inbox)
    if (smsc.submits.length !== messages) {
      return yield* Effect.dieMessage(`the SMSC took ${smsc.submits.length} of ${messages}`)
    }
    return result
  }))

/**
 * The same messages through core's router: to one carrier (the router's own cost), or spread 1:1
 * over two carriers, each to an SMSC of its own.
 */
const routed = (window: number, messages: number, smscCount: 1 | 2) =>
  Effect.scoped(Effect.gen(function*() {
    const smscs = yield* Effect.forEach(Array.from({ length: smscCount }), () => TestSmsc.start({}))
    const carriers = yield* Effect.forEach(smscs, (smsc, i) =>
      Effect.map(
        SmppCarrier.make({ url: Redacted.make(smsc.url(`window=${window}`)) }),
        ({ carrier, inbox }): Router.Named => ({ name: `smsc${i + 1}`, carrier, inbox })
      ))
    const { carrier, inbox } = yield* Router.make({
      carriers,
      routes: [{
        market: "*",
        carriers: [{ carrier: "smsc1", weight: 1 }, ...(smscCount === 2 ? [{ carrier: "smsc2", weight: 1 }] : [])]
      }]
    })
    const name = `router over ${smscCount === 1 ? "one SMSC" : "two SMSCs"}, window ${String(window).padStart(2)}`
    const result = yield* measure(name, messages, carrier, inbox)
    const taken = smscs.reduce((sum, smsc) => sum + smsc.submits.length, 0)
    if (taken !== messages) return yield* Effect.dieMessage(`the SMSCs took ${taken} of ${messages}`)
    return result
  }))

/** Submits a second each session of the capped SMSC takes before it answers ESME_RTHROTTLED, as real ones do. */
const perSessionCap = 200

/**
 * `sessions` sessions to an SMSC that takes at most `perSessionCap` submits a second on each, the
 * carrier's `rate` set a little under what the sessions allow together (as an operator sets it).
 */
const sessionsCapped = (sessions: number, messages: number) =>
  Effect.scoped(Effect.gen(function*() {
    const smsc = yield* TestSmsc.start({ maxPerSecondPerSession: perSessionCap })
    const rate = Math.floor(perSessionCap * 0.9) * sessions
    const { carrier, inbox } = yield* SmppCarrier.make({
      url: Redacted.make(smsc.url(`window=10&sessions=${sessions}&rate=${rate}`))
    })
    return yield* measure(`sessions=${sessions}, ${perSessionCap}/s a session`, messages, carrier, inbox)
  }))

/**
 * The time from the first carrier's fall (its SMSC closed with submits in flight) to the first
 * message the second carrier accepts, while 16 fibers keep submitting through the router.
 */
const failover = Effect.scoped(Effect.gen(function*() {
  const firstScope = yield* Scope.make()
  const first = yield* Scope.extend(TestSmsc.start({}), firstScope)
  const second = yield* TestSmsc.start({})
  const carriers = yield* Effect.forEach([first, second], (smsc, i) =>
    Effect.map(
      SmppCarrier.make({ url: Redacted.make(smsc.url("window=10")) }),
      ({ carrier, inbox }): Router.Named => ({ name: `smsc${i + 1}`, carrier, inbox })
    ))
  const { carrier } = yield* Router.make({
    carriers,
    routes: [{ market: "*", carriers: [{ carrier: "smsc1" }, { carrier: "smsc2" }] }]
  })
  let i = 0
  const submitting = yield* Effect.fork(
    Effect.forEach(
      Array.from({ length: fibers }),
      () => Effect.forever(Effect.ignore(Effect.suspend(() => carrier.submit(outbound(1_000_000 + i++))))),
      { concurrency: "unbounded", discard: true }
    )
  )
  yield* Effect.sleep(Duration.millis(500))
  if (second.submits.length > 0) return yield* Effect.dieMessage("the second SMSC took messages before the fall")
  const fell = performance.now()
  yield* Scope.close(firstScope, Exit.void)
  while (second.submits.length === 0) yield* Effect.sleep(Duration.millis(1))
  const millis = performance.now() - fell
  yield* Fiber.interrupt(submitting)
  return millis
}))

/** Runs the SMPP bench and prints a table. @since 0.1.0 */
export async function runSmppBench(): Promise<ReadonlyArray<SmppResult>> {
  const slow = Math.max(1, Math.round(count / 5))
  console.log(
    `${count.toLocaleString("en")} one-part messages (${
      slow.toLocaleString("en")
    } with 5 ms answers), ${fibers} fibers submitting; submit → receipt taken\n`
  )
  const results = await Effect.runPromise(
    Effect.all([
      simulated(count),
      smpp(1, 0, count),
      smpp(10, 0, count),
      smpp(1, 5, slow),
      smpp(10, 5, slow),
      sessionsCapped(1, capped),
      sessionsCapped(4, capped)
    ]).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
  )
  // The router beside one SMSC direct, in interleaved rounds (a run's order and the JIT's warming
  // would otherwise decide a difference of a few percent): the median of each.
  const rounds = await Effect.runPromise(
    Effect.forEach(
      Array.from({ length: routerRounds }),
      () => Effect.all([smpp(10, 0, count), routed(10, count, 1), routed(10, count, 2)]),
      { concurrency: 1 }
    ).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
  )
  const median = (column: number) => {
    const sorted = rounds.map((round) => round[column]!).sort((a, b) => a.perSecond - b.perSecond)
    return sorted[Math.floor(sorted.length / 2)]!
  }
  const [direct, routedOne, routedTwo] = [median(0), median(1), median(2)]
  const fallMillis = await Effect.runPromise(failover.pipe(Logger.withMinimumLogLevel(LogLevel.Error)))
  console.log("  carrier                          messages   seconds   messages/s")
  for (const r of results) {
    console.log(
      `  ${r.carrier.padEnd(32)} ${r.messages.toLocaleString("en").padStart(8)} ${r.seconds.toFixed(2).padStart(9)}   ${
        Math.round(r.perSecond).toLocaleString("en").padStart(10)
      }`
    )
  }
  const ratio = (a: string, b: string) =>
    results.find((r) => r.carrier === a)!.perSecond / results.find((r) => r.carrier === b)!.perSecond
  const perSecond = (results: ReadonlyArray<SmppResult>) =>
    results.map((r) => Math.round(r.perSecond).toLocaleString("en")).join(", ")
  console.log(`\n  window 10, ${routerRounds} interleaved rounds, messages/s:`)
  console.log(`    one SMSC direct               ${perSecond(rounds.map((r) => r[0]!))}`)
  console.log(`    the router to one SMSC        ${perSecond(rounds.map((r) => r[1]!))}`)
  console.log(`    the router to two SMSCs       ${perSecond(rounds.map((r) => r[2]!))}`)
  const cost = (routed: SmppResult) => `${((1 - routed.perSecond / direct.perSecond) * 100).toFixed(1)} %`
  console.log(
    `\n  the router to two SMSCs beside one SMSC direct (medians): ${cost(routedTwo)} slower ` +
      `(target ≤ 10 %); to one SMSC: ${cost(routedOne)}\n` +
      `  sessions=4 beside sessions=1 at ${perSessionCap}/s a session: ${
        ratio(`sessions=4, ${perSessionCap}/s a session`, `sessions=1, ${perSessionCap}/s a session`).toFixed(2)
      }× ` +
      "(target ≥ 3×)\n" +
      `  the first carrier's fall to the first message the second accepted: ${fallMillis.toFixed(0)} ms ` +
      "(target ≤ 1 s plus the submit timeout, 10 s)"
  )
  return results
}
