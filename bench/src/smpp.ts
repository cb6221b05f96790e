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
import { Segments } from "@sendline/core"
import type { Context } from "effect"
import { Duration, Effect, Logger, LogLevel, Redacted } from "effect"

/** One run's figure. @since 0.1.0 */
interface SmppResult {
  readonly carrier: string
  readonly messages: number
  readonly seconds: number
  readonly perSecond: number
}

const count = Number(process.env["BENCH_SMPP_MESSAGES"] ?? 5_000)
const fibers = 16
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
      smpp(10, 5, slow)
    ]).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
  )
  console.log("  carrier                          messages   seconds   messages/s")
  for (const r of results) {
    console.log(
      `  ${r.carrier.padEnd(32)} ${r.messages.toLocaleString("en").padStart(8)} ${r.seconds.toFixed(2).padStart(9)}   ${
        Math.round(r.perSecond).toLocaleString("en").padStart(10)
      }`
    )
  }
  return results
}
