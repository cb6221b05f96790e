/**
 * End-to-end throughput: messages per second from `Messaging.send` to `delivered`, through the
 * core's API (no HTTP: the send bench measures that), with the workers' passes run back to back
 * and the simulated carrier answering at once. One run per store.
 *
 * Environment: BENCH_MESSAGES (default 20,000), TEST_DATABASE_URL for the PostgreSQL run (skipped
 * with one line when no server answers).
 */
import { CarrierMock } from "@sendline/carrier-mock"
import type { Stores } from "@sendline/core"
import { Auth, Demo, Messaging, Services, UrlPolicy, Workers } from "@sendline/core"
import { PgStore } from "@sendline/store-postgres"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Duration, Effect, Fiber, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** One store's figure. @since 0.1.0 */
interface LifecycleResult {
  readonly store: string
  readonly messages: number
  readonly seconds: number
  readonly perSecond: number
}

const count = Number(process.env["BENCH_MESSAGES"] ?? 20_000)

/** Sends `count` messages while the workers run, and times them until every one is delivered. */
const measure = (store: string) =>
  Effect.gen(function*() {
    const { secret } = yield* Demo.ensure
    const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${secret}`)
    const messaging = yield* Messaging.Messaging
    const input = { to: "+61412345678", senderId: Demo.senderId, body: "Lifecycle bench", market: "AU" }
    const started = performance.now()
    const sending = yield* Effect.fork(
      Effect.all(Array.from({ length: count }, () => messaging.send(principal, input)), {
        concurrency: 64,
        discard: true
      })
    )
    let delivered = 0
    while (delivered < count) {
      const pass = yield* Workers.runOnce
      delivered += pass.reports
      // nothing due yet: a turn of the event loop, so that the sends' store batches run
      if (pass.dispatched === 0 && pass.reports === 0) yield* Effect.sleep(Duration.zero)
    }
    yield* Fiber.join(sending)
    const seconds = (performance.now() - started) / 1000
    const charged = (yield* (yield* CarrierMock.CarrierMock).journal).filter(CarrierMock.isAccepted).length
    if (charged !== count) return yield* Effect.dieMessage(`the carrier accepted ${charged} of ${count}`)
    return { store, messages: count, seconds, perSecond: count / seconds } satisfies LifecycleResult
  })

const run = (store: string, stores: Layer.Layer<Stores.Stores, unknown>) =>
  measure(store).pipe(
    Effect.provide(
      Workers.layerServices({ dispatcher: { batchSize: 500, concurrency: 64 }, deliveryReports: { batchSize: 1000 } })
        .pipe(
          Layer.provideMerge(CarrierMock.layer({ reportDelay: 0, submitLatency: 0 })),
          // as the server's: no subscription here, so the WebhookDeliverer's passes post nothing
          Layer.provideMerge(NodeWebhookTransport.layer({ policy: UrlPolicy.strict })),
          Layer.provideMerge(Services.withoutSpans(Services.layer)), // as the server builds them: no trace exporter
          Layer.provideMerge(stores)
        )
    ),
    Effect.scoped,
    // the workers' progress lines would interleave with the table
    Logger.withMinimumLogLevel(LogLevel.Warning)
  )

/** Runs the end-to-end bench on SQLite and PostgreSQL and prints a table. @since 0.1.0 */
export async function runLifecycleBench(): Promise<ReadonlyArray<LifecycleResult>> {
  console.log(
    `${count.toLocaleString("en")} messages sent by 64 fibers while the workers run; carrier answers at once\n`
  )
  const results: Array<LifecycleResult> = []
  const dir = mkdtempSync(join(tmpdir(), "sendline-lifecycle-"))
  try {
    results.push(
      await Effect.runPromise(run("SQLite (file)", SqliteStore.layerSqlite({ filename: join(dir, "bench.sqlite") })))
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const pg = await Effect.runPromise(Effect.catchAll(TestDatabase.probe, () => Effect.succeedNone))
  if (Option.isSome(pg)) {
    const schema = await Effect.runPromise(TestDatabase.createSchema(pg.value))
    try {
      const url = Redacted.make(TestDatabase.withSchema(pg.value, schema))
      results.push(await Effect.runPromise(run("PostgreSQL", PgStore.layerPg({ url }))))
    } finally {
      await Effect.runPromise(TestDatabase.dropSchema(pg.value, schema))
    }
  }
  console.log("  store            messages   seconds   messages/s (send → delivered)")
  for (const r of results) {
    console.log(
      `  ${r.store.padEnd(15)} ${r.messages.toLocaleString("en").padStart(9)} ${r.seconds.toFixed(2).padStart(9)}   ${
        Math.round(r.perSecond).toLocaleString("en").padStart(10)
      }`
    )
  }
  const sqlite = results[0]!
  console.log(
    `\ntarget ≥ 1,000 messages/s on SQLite from send to delivered: ${sqlite.perSecond >= 1000 ? "met" : "NOT met"}`
  )
  return results
}
