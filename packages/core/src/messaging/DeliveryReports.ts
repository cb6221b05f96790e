/**
 * The DeliveryReports worker (CONTRACT §3): takes the carrier's delivery reports from the
 * `DeliveryReportInbox` and moves each `sent` message to `delivered` (with `delivered_at`; its
 * `price` is the one quoted at send) or `undelivered` (with `error`), emitting the matching event.
 *
 * A report can overtake its own `sent` transition (a fast network, or a dispatcher that died
 * between the carrier's accept and the write): a report for a message still `queued` is held and
 * tried again on later passes, for up to `holdMillis`. A report for an unknown message, or one
 * already past `sent`, is ignored. A report that names only the carrier's id (`reference` absent)
 * finds its message by the id the Dispatcher stored with it; until one does, it is held as an
 * early one. Reports that meet a store failure are held until the store
 * answers, however long: meanwhile the worker backs off and takes no more from the inbox, so the
 * rest wait there (or with the network, when the inbox is full) rather than in the worker's memory.
 * Held reports live in memory: a process that stops loses them (reports not yet taken stay in the
 * inbox).
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import type { IdGenerator } from "../Ids.js"
import * as Worker from "../internal/worker.js"
import * as Metrics from "../Metrics.js"
import type { DeliveryReport } from "./DeliveryReportInbox.js"
import { DeliveryReportInbox } from "./DeliveryReportInbox.js"
import type { Message } from "./Message.js"
import type * as MessageEvents from "./MessageEvents.js"
import * as MessageStore from "./MessageStore.js"
import * as Transition from "./Transition.js"

/** DeliveryReports settings: those of every worker, and how long an early report is held. @since 0.1.0 @category models */
export interface Options extends Worker.Options {
  /** How long a report for a message not yet `sent` is kept and retried before it is dropped. */
  readonly holdMillis: number
}

/**
 * The default settings: those of every worker (batches of 100, 1 s polls), early reports held for
 * 10 minutes.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = { ...Worker.defaults, holdMillis: 10 * 60_000 }

/**
 * The DeliveryReports worker: a pass applies the held reports and those the inbox has now (none
 * while reports that met a store failure wait); `runOnce` counts those it took from the inbox.
 *
 * @since 0.1.0
 * @category services
 */
export class DeliveryReports extends Context.Tag("@sendline/core/DeliveryReports")<
  DeliveryReports,
  Worker.Worker<never> & {
    /** Reports waiting for their message to become `sent`, or for the store to answer. */
    readonly held: Effect.Effect<ReadonlyArray<DeliveryReport>>
  }
>() {}

interface Held {
  readonly report: DeliveryReport
  /** When the report was taken from the inbox. */
  readonly since: number
  /** Why it is held: its message is not `sent` yet, or the store failed. */
  readonly reason: "early" | "store"
}

/** Builds the DeliveryReports worker with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<
  Context.Tag.Service<DeliveryReports>,
  never,
  MessageStore.MessageStore | DeliveryReportInbox | IdGenerator
> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const messages = yield* MessageStore.MessageStore
    const inbox = yield* DeliveryReportInbox
    const waiting = yield* Ref.make<ReadonlyArray<Held>>([])
    const transition = yield* Transition.make("DeliveryReports")

    const finish = (message: Message, report: DeliveryReport): MessageEvents.EventfulMessage =>
      report.outcome === "delivered"
        ? { ...message, status: "delivered", deliveredAt: Math.max(report.at, message.sentAt ?? report.at) }
        : {
          ...message,
          status: "undelivered",
          // a normalised code (CONTRACT §11) when the report gives none: what UNDELIV maps to
          error: report.error ?? { code: "carrier_error", message: "The carrier reported the message undelivered." }
        }

    // What a report makes of the message it names: a change to record, or why there is none. A
    // report that names only the carrier's id and finds no message is held as an early one: the
    // Dispatcher that submitted it (this process or another on the same store) may not have
    // recorded the carrier's id yet.
    const decide = (
      report: DeliveryReport,
      found: Option.Option<Message>
    ): Transition.Change | "held" | { readonly ignored: string } => {
      if (Option.isNone(found)) {
        return report.reference === undefined ? "held" : { ignored: `no message ${report.reference}` }
      }
      const message = found.value
      if (message.status === "queued") return "held"
      if (message.status !== "sent") return { ignored: `${message.id} is ${message.status}` }
      return { next: finish(message, report), from: "sent" }
    }

    // The message of each report: by its reference and account, or by the carrier's id when the
    // report names only that; two reads at most.
    const lookUp = (reports: ReadonlyArray<DeliveryReport>) =>
      Effect.gen(function*() {
        const keyed: Array<{ readonly accountId: string; readonly id: string }> = []
        const byCarrierId: Array<MessageStore.CarrierMessageKey> = []
        for (const r of reports) {
          if (r.reference !== undefined && r.accountId !== undefined) {
            keyed.push({ accountId: r.accountId, id: r.reference })
          } else byCarrierId.push({ carrier: r.carrier, carrierMessageId: r.carrierMessageId })
        }
        const [found, foundByCarrierId] = yield* Effect.all([
          keyed.length === 0 ? Effect.succeed([]) : messages.findMany(keyed),
          byCarrierId.length === 0 ? Effect.succeed([]) : messages.findByCarrierMessageIds(byCarrierId)
        ])
        let k = 0
        let c = 0
        return reports.map((r) =>
          r.reference !== undefined && r.accountId !== undefined ? found[k++]! : foundByCarrierId[c++]!
        )
      })

    // Every report of a pass in one read and one store call: for each, why it stays held, if it does.
    const apply = (reports: ReadonlyArray<DeliveryReport>) =>
      Effect.gen(function*() {
        const found = yield* lookUp(reports)
        const held: Array<Held["reason"] | undefined> = []
        const changes: Array<Transition.Change> = []
        for (const [i, report] of reports.entries()) {
          const decision = decide(report, found[i]!)
          held.push(decision === "held" ? "early" : undefined)
          if (decision === "held") continue
          if ("ignored" in decision) yield* Effect.logDebug(`DeliveryReports: ${decision.ignored}; report ignored`)
          else changes.push(decision)
        }
        yield* transition.move(changes)
        return held
      }).pipe(
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning(`DeliveryReports: could not record ${reports.length} reports; holding them`, error),
            reports.map((): Held["reason"] => "store")
          )
        )
      )

    // The held reports are this worker's queue (`sendline_queue_depth{queue="delivery_reports"}`):
    // in memory, so the worker sets its gauges after each pass rather than a scrape asking the store.
    const observeHeld = (now: number) =>
      Effect.map(Ref.get(waiting), (held) => {
        let oldest: number | undefined
        for (const h of held) if (oldest === undefined || h.since < oldest) oldest = h.since
        Metrics.queueObserved("delivery_reports", held.length, oldest, now)
      })

    // Taking reports removes them from the inbox, so from the take to the last write the pass
    // is not interrupted: a worker being stopped finishes the reports it holds.
    const pass = Effect.uninterruptible(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const retry = yield* Ref.getAndSet(waiting, [])
      const storeFailed = retry.some((h) => h.reason === "store")
      const fresh = storeFailed ? [] : yield* inbox.take(settings.batchSize)
      const all: ReadonlyArray<Held> = [
        ...retry,
        ...fresh.map((report) => ({ report, since: now, reason: "early" as const }))
      ]
      const held = all.length === 0 ? [] : yield* apply(all.map((h) => h.report))
      const keep: Array<Held> = []
      for (const [i, h] of all.entries()) {
        const reason = held[i]
        if (reason === undefined) continue
        if (reason === "store" || now - h.since < settings.holdMillis) keep.push({ ...h, reason })
        else {
          yield* Effect.logWarning(
            h.report.reference === undefined
              ? `DeliveryReports: no message carries the carrier's id ${h.report.carrierMessageId}; report dropped`
              : `DeliveryReports: ${h.report.reference} never became sent; report dropped`
          )
        }
      }
      if (keep.length > 0) yield* Ref.update(waiting, (w) => [...w, ...keep])
      yield* observeHeld(now)
      return { taken: fresh.length, backOff: keep.some((h) => h.reason === "store") }
    }))

    return DeliveryReports.of({
      ...Worker.make("DeliveryReports", settings, { pass, logProgress: transition.logProgress }),
      held: Effect.map(Ref.get(waiting), (w) => w.map((h) => h.report))
    })
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (
  options: Partial<Options> = {}
): Layer.Layer<DeliveryReports, never, MessageStore.MessageStore | DeliveryReportInbox | IdGenerator> =>
  Layer.effect(DeliveryReports, make(options))
