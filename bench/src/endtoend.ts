/**
 * End to end (issue 34): 100,000 messages sent in 100 batches of 1,000 to `sendline serve --demo`
 * as served, on each store, with the simulated carrier (its 2 s delivery report, as served) and a
 * webhook subscription to `message.delivered` whose receiver, in a process of its own, checks
 * every delivery's signature. Timed from the first request to the last message's webhook.
 *
 * Each stage is followed once a second: messages accepted (the batches' answers), sent and
 * delivered (the server's `/metrics`, `sendline_messages_entered`), webhooks received (distinct
 * signed events). A stage's lag is how long after the stage before it it finished; the stage with
 * the longest lag is the limit (the delivered stage's lag is counted past the carrier's report
 * delay, a fixed 2 s wait, not a rate).
 *
 * Environment: BENCH_E2E_MESSAGES (default 100,000), BENCH_E2E_CLIENTS (batches in flight, default
 * 4), BENCH_E2E_TIMEOUT_SECONDS (default 900), BENCH_BATCH_STORES (`sqlite`, `pg`, default both),
 * TEST_DATABASE_URL.
 */
import { CarrierMock } from "@sendline/carrier-mock"
import { batchBodyTo, BATCHES_PATH, demoKey, postBatch, rate, sendlineServe, storeTargets } from "./batch-kit.js"
import type { StoreTarget } from "./batch-kit.js"
import { numberFromEnv, sleep, startServer } from "./servers.js"
import { startReceiver } from "./webhook-receivers.js"

const SECRET = "whsec_bench_end_to_end_0123456789"
/** The simulated carrier's time from acceptance to the delivery report: a wait, not a rate. */
const REPORT_DELAY_MS = 2000
const BATCH = 1000

/** One look at every stage, `at` ms after the first request. */
interface Sample {
  readonly at: number
  readonly accepted: number
  readonly sent: number
  readonly delivered: number
  readonly webhooks: number
}

const stages = ["accepted", "sent", "delivered", "webhooks"] as const
type Stage = (typeof stages)[number]

/** `sendline_messages_entered{status="…"}` of a `/metrics` text. */
const entered = (metrics: string, status: string): number => {
  const match = new RegExp(`^sendline_messages_entered_total\\{status="${status}"\\} (\\d+)`, "m").exec(metrics)
  return match === null ? 0 : Number(match[1])
}

/** `count` AU mobiles that the simulated carrier delivers at the first try (`CarrierMock.ruleFor`). */
const deliverable = (count: number): Array<string> => {
  const numbers: Array<string> = []
  for (let n = 0; numbers.length < count; n++) {
    const to = `+6141${String(n).padStart(7, "0")}`
    if (CarrierMock.ruleFor(to) === "deliver") numbers.push(to)
  }
  return numbers
}

const seconds = (ms: number) => (ms / 1000).toFixed(1)

/** One store's run: its samples, the time of each stage's end, and what the receiver saw. */
const run = async (target: StoreTarget, messages: number, clients: number, timeoutMs: number) => {
  const database = await target.database()
  const receiver = await startReceiver(SECRET)
  const server = await startServer(
    sendlineServe(`Sendline (${target.name})`, {
      ...database.env,
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      CARRIER_REPORT_DELAY_MS: String(REPORT_DELAY_MS)
    })
  )
  try {
    const key = await demoKey(server)
    const subscribed = await fetch(`${server.origin}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.okUrl, events: ["message.delivered"], secret: SECRET })
    })
    if (subscribed.status !== 201) throw new Error(`POST /v1/webhooks answered ${subscribed.status}`)
    // The demo's own messages, if any, are counted before the first request.
    const before = await fetch(`${server.origin}/metrics`).then((r) => r.text())
    const base = { sent: entered(before, "sent"), delivered: entered(before, "delivered") }

    const start = performance.now()
    const ended: Partial<Record<Stage, number>> = {}
    const samples: Array<Sample> = []
    let accepted = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const [metrics, count] = await Promise.all([
          fetch(`${server.origin}/metrics`).then((r) => r.text()),
          receiver.ask({ type: "count" })
        ])
        const sample: Sample = {
          at: performance.now() - start,
          accepted,
          sent: entered(metrics, "sent") - base.sent,
          delivered: entered(metrics, "delivered") - base.delivered,
          webhooks: count.distinct
        }
        samples.push(sample)
        if (samples.length % 10 === 0) console.log(`    … ${seconds(sample.at)} s: ${JSON.stringify(sample)}`)
        for (const stage of stages) {
          if (ended[stage] === undefined && sample[stage] >= messages) ended[stage] = sample.at
        }
        await sleep(1000)
      }
    })()

    const numbers = deliverable(messages)
    const batches = Math.ceil(messages / BATCH)
    let next = 0
    await Promise.all(Array.from({ length: clients }, async () => {
      while (next < batches) {
        const n = next++
        const to = numbers.slice(n * BATCH, (n + 1) * BATCH)
        const count = to.length
        const answer = await postBatch(server.origin, key, batchBodyTo(to))
        if (answer.accepted !== count) throw new Error(`a batch accepted ${answer.accepted} of ${count}`)
        accepted += count
      }
    }))
    ended.accepted = performance.now() - start
    const last = await Promise.race([
      receiver.ask({ type: "await", distinct: messages }),
      sleep(timeoutMs).then(() => undefined)
    ])
    sampling = false
    await sampler
    if (last === undefined) throw new Error(`not every webhook arrived within ${seconds(timeoutMs)} s`)
    ended.webhooks = last.at - (performance.timeOrigin + start)
    const count = await receiver.ask({ type: "count" })
    return { samples, ended: ended as Record<Stage, number | undefined>, count }
  } finally {
    await server.stop()
    await receiver.stop()
    await database.drop()
  }
}

/** Runs the end-to-end bench on each store and prints its timeline, stages and limit. @since 0.3.0 */
export async function runEndToEndBench(): Promise<void> {
  const messages = numberFromEnv("BENCH_E2E_MESSAGES", 100_000)
  const clients = numberFromEnv("BENCH_E2E_CLIENTS", 4)
  const timeoutMs = numberFromEnv("BENCH_E2E_TIMEOUT_SECONDS", 900) * 1000
  console.log(
    `${rate(messages)} messages in ${
      rate(Math.ceil(messages / BATCH))
    } batches (${BATCHES_PATH}, ${clients} in flight) ` +
      `to sendline serve --demo (simulated carrier, 2 s reports), a webhook of message.delivered for each,\n` +
      `signatures checked by the receiver; from the first request to the last webhook.\n`
  )
  for (const target of await storeTargets()) {
    const { count, ended, samples } = await run(target, messages, clients, timeoutMs)
    console.log(`  ${target.name}`)
    console.log(`    ${"s".padStart(6)} ${stages.map((stage) => stage.padStart(10)).join(" ")}`)
    const every = Math.max(1, Math.ceil(samples.length / 20))
    samples.forEach((sample, i) => {
      if (i % every === 0 || i === samples.length - 1) {
        console.log(
          `    ${seconds(sample.at).padStart(6)} ${stages.map((s) => rate(sample[s]).padStart(10)).join(" ")}`
        )
      }
    })
    let previous = 0
    let limit: { stage: Stage; lag: number } | undefined
    console.log(
      `\n    ${"stage".padEnd(10)} ${"ended s".padStart(8)} ${"lag s".padStart(7)} ${"msg/s".padStart(8)}` +
        `   (lag: after the stage before it; delivered's past the ${seconds(REPORT_DELAY_MS)} s report delay)`
    )
    for (const stage of stages) {
      const end = ended[stage] ?? NaN
      // The delivered stage waits the report delay whatever the rates: its lag is what is past it.
      const lag = end - previous - (stage === "delivered" ? REPORT_DELAY_MS : 0)
      console.log(
        `    ${stage.padEnd(10)} ${seconds(end).padStart(8)} ${seconds(lag).padStart(7)} ${
          rate(messages / (end / 1000)).padStart(8)
        }`
      )
      if (limit === undefined || lag > limit.lag) limit = { stage, lag }
      previous = end
    }
    const total = ended.webhooks ?? NaN
    console.log(
      `\n    ${target.name}: ${rate(messages)} messages, first request → last webhook ${seconds(total)} s ` +
        `(${rate(messages / (total / 1000))} messages/s end to end); ${
          rate(count.distinct)
        } events signed and received, ` +
        `${rate(count.requests - count.distinct)} again, ${rate(count.unsigned)} with a bad signature; ` +
        `the limit: ${limit?.stage} (finished ${seconds(limit?.lag ?? NaN)} s after the stage before it)\n`
    )
  }
}
