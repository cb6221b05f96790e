/**
 * Sendline's metrics, from Effect's `Metric` module: defined here once (the messages' own in
 * `messaging/MessageMetrics`, with the statuses they count), updated where the thing
 * they count happens, exported by whoever embeds the core (the server serves them at `/metrics`
 * in the Prometheus text format).
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `sendline_http_requests` | counter | `method`, `route` (the route's template), `status` |
 * | `sendline_http_request_duration_seconds` | histogram | `method`, `route`, `status` |
 * | `sendline_messages_entered` | counter | `status`: each message entering it, as committed (`MessageMetrics`) |
 * | `sendline_queue_depth` | gauge | `queue`: the items due now (at most `queueReadLimit`) |
 * | `sendline_queue_oldest_due_age_seconds` | gauge | `queue`: how long its longest due item has waited |
 * | `sendline_webhook_attempts` | counter | `outcome`: `succeeded`, `failed`, `skipped` |
 * | `sendline_webhook_subscriptions_disabled` | counter | |
 * | `sendline_store_errors` | counter | `operation`: `read`, `write`, `transaction` |
 * | `sendline_carrier_submits` | counter | `carrier` (its configured name), `outcome`: what became of the router's try |
 * | `sendline_carrier_submit_duration_seconds` | histogram | `carrier`: time from a submit to its answer |
 * | `sendline_carrier_state` | gauge | `carrier`, `state`: 1 for the state it is in now (`bound`, `connecting`, `throttled`), else 0 |
 * | `sendline_carrier_sessions` | gauge | `carrier`, `state`: its sessions `bound` and `connecting` (configured, not bound) |
 * | `sendline_carrier_window_in_use` | gauge | `carrier`: submits awaiting their answer |
 * | `sendline_carrier_window_size` | gauge | `carrier`: the most submits that may await their answer |
 *
 * Prometheus shows each counter as `<name>_total`. No label carries an account, a key, a phone
 * number or any other value a caller chooses: every label's values are a fixed set. Each labelled
 * series is made once and kept, so that counting costs a hook update and no label set: these sit
 * on the send path.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Effect, Metric, MetricBoundaries, MetricKey, MetricLabel } from "effect"
import * as QueueDepths from "./QueueDepths.js"

/** A counter of one label set. @since 0.1.0 @category models */
export type Counter = Metric.Metric.Counter<number>

/** A gauge of one label set. @since 0.1.0 @category models */
export type Gauge = Metric.Metric.Gauge<number>

/** A histogram of one label set. @since 0.1.0 @category models */
export type Histogram = Metric.Metric.Histogram<number>

/** The labels every update passes: none, the series' own being in its key. */
const noLabels: ReadonlyArray<MetricLabel.MetricLabel> = []

const labels = (pairs: Readonly<Record<string, string>>) =>
  Object.entries(pairs).map(([key, value]) => MetricLabel.make(key, value))

/** The fixed series, each made once at module load: `registerAll` makes them exist at zero. */
const fixed: Array<Counter | Gauge> = []

const keep = <M extends Counter | Gauge>(metric: M): M => {
  fixed.push(metric)
  return metric
}

/**
 * A fixed counter (monotonic: exported as `<name>_total`) with the labels `pairs`, listed at zero
 * by `registerAll`. Make each once, at module load.
 *
 * @since 0.1.0
 * @category constructors
 */
export const counter = (name: string, description: string, pairs: Readonly<Record<string, string>> = {}): Counter =>
  keep(
    Metric.fromMetricKey(
      MetricKey.taggedWithLabels(MetricKey.counter(name, { description, incremental: true }), labels(pairs))
    )
  )

const gauge = (name: string, description: string, pairs: Readonly<Record<string, string>>): Gauge =>
  keep(Metric.fromMetricKey(MetricKey.taggedWithLabels(MetricKey.gauge(name, { description }), labels(pairs))))

/** One series per value of a label, made at once. @since 0.1.0 @category constructors */
export const byLabel = <K extends string, M>(values: ReadonlyArray<K>, make: (value: K) => M): Readonly<Record<K, M>> =>
  Object.fromEntries(values.map((value) => [value, make(value)])) as Record<K, M>

/** Counts one on `counter`; synchronous, allocating nothing. @since 0.1.0 @category updates */
export const increment = (counter: Counter): void => counter.unsafeUpdate(1, noLabels)

// --- HTTP ----------------------------------------------------------------------------------------

/** The request latency histogram's buckets, in seconds: 1 ms to 10 s. @since 0.1.0 @category constants */
export const requestDurationBoundaries: MetricBoundaries.MetricBoundaries = MetricBoundaries.fromIterable([
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10
])

/** The request counter and latency histogram of one method, route template and status. @since 0.1.0 @category models */
export interface RequestSeries {
  readonly requests: Counter
  readonly duration: Histogram
}

/**
 * The series of requests to `route` (a template such as `/v1/messaging/messages/:id`, never a
 * raw path) answered `status`: made anew at each call, so callers keep what they make.
 *
 * @since 0.1.0
 * @category constructors
 */
export const requestSeries = (method: string, route: string, status: number): RequestSeries => {
  const pairs = labels({ method, route, status: String(status) })
  return {
    requests: Metric.fromMetricKey(MetricKey.taggedWithLabels(
      MetricKey.counter("sendline_http_requests", { description: "HTTP requests answered", incremental: true }),
      pairs
    )),
    duration: Metric.fromMetricKey(MetricKey.taggedWithLabels(
      MetricKey.histogram(
        "sendline_http_request_duration_seconds",
        requestDurationBoundaries,
        "Time from a request's arrival to its answer, in seconds"
      ),
      pairs
    ))
  }
}

/** Counts one request of `series` that took `seconds`; synchronous, allocating nothing. @since 0.1.0 @category updates */
export const requestAnswered = (series: RequestSeries, seconds: number): void => {
  series.requests.unsafeUpdate(1, noLabels)
  series.duration.unsafeUpdate(seconds, noLabels)
}

// --- carriers ------------------------------------------------------------------------------------

/** What became of one try of a carrier by the router. @since 0.2.0 @category models */
export type CarrierOutcome = "accepted" | "refused" | "throttled" | "unavailable" | "timeout" | "passed_over"

/** The series of each carrier and outcome, made at first use. */
const carrierSeries = new Map<string, { readonly submits: Counter; readonly duration: Histogram }>()

const seriesOf = (carrier: string, outcome: CarrierOutcome) => {
  const key = `${carrier}\u0000${outcome}`
  let series = carrierSeries.get(key)
  if (series === undefined) {
    series = {
      submits: Metric.fromMetricKey(MetricKey.taggedWithLabels(
        MetricKey.counter("sendline_carrier_submits", {
          description: "Tries of a carrier by the router, by outcome (passed_over: not bound or throttled, not tried)",
          incremental: true
        }),
        labels({ carrier, outcome })
      )),
      duration: Metric.fromMetricKey(MetricKey.taggedWithLabels(
        MetricKey.histogram(
          "sendline_carrier_submit_duration_seconds",
          requestDurationBoundaries,
          "Time from a submit to the carrier's answer, in seconds"
        ),
        labels({ carrier })
      ))
    }
    carrierSeries.set(key, series)
  }
  return series
}

/**
 * Counts one try of `carrier` (`sendline_carrier_submits{carrier,outcome}`) and, when it was
 * submitted, its latency (`sendline_carrier_submit_duration_seconds{carrier}`); synchronous.
 *
 * @since 0.2.0
 * @category updates
 */
export const carrierSubmitted = (carrier: string, outcome: CarrierOutcome, seconds?: number): void => {
  const series = seriesOf(carrier, outcome)
  series.submits.unsafeUpdate(1, noLabels)
  if (seconds !== undefined) series.duration.unsafeUpdate(seconds, noLabels)
}

/** Where a carrier stands, as its gauges read it (core's `Carrier.CarrierStatus`). @since 0.2.0 @category models */
export interface CarrierObserved {
  readonly state: "bound" | "connecting" | "throttled"
  readonly sessions?: { readonly bound: number; readonly configured: number } | undefined
  readonly window?: { readonly inUse: number; readonly size: number } | undefined
}

const carrierGauge = (name: string, description: string, pairs: Readonly<Record<string, string>>) =>
  Metric.fromMetricKey(MetricKey.taggedWithLabels(MetricKey.gauge(name, { description }), labels(pairs)))

/**
 * Sets `carrier`'s gauges from where it stands now: its state, its sessions by state and its
 * window in use, those it reports; synchronous. The server calls it for each carrier at each scrape.
 *
 * @since 0.2.0
 * @category updates
 */
export const carrierObserved = (carrier: string, status: CarrierObserved): void => {
  for (const state of ["bound", "connecting", "throttled"] as const) {
    carrierGauge("sendline_carrier_state", "1 for the state a carrier is in now, else 0", { carrier, state })
      .unsafeUpdate(status.state === state ? 1 : 0, noLabels)
  }
  if (status.sessions !== undefined) {
    const { bound, configured } = status.sessions
    const description = "A carrier's sessions, bound and connecting (configured, not bound)"
    carrierGauge("sendline_carrier_sessions", description, { carrier, state: "bound" }).unsafeUpdate(bound, noLabels)
    carrierGauge("sendline_carrier_sessions", description, { carrier, state: "connecting" })
      .unsafeUpdate(Math.max(0, configured - bound), noLabels)
  }
  if (status.window !== undefined) {
    carrierGauge("sendline_carrier_window_in_use", "A carrier's submits awaiting their answer", { carrier })
      .unsafeUpdate(status.window.inUse, noLabels)
    carrierGauge("sendline_carrier_window_size", "The most submits a carrier lets await their answer", { carrier })
      .unsafeUpdate(status.window.size, noLabels)
  }
}

// --- queues --------------------------------------------------------------------------------------

/** Every worker queue: those kept in the store, and the delivery reports the DeliveryReports worker holds. @since 0.1.0 @category models */
export type Queue = QueueDepths.StoredQueue | "delivery_reports"

const queues: ReadonlyArray<Queue> = [...QueueDepths.StoredQueue.literals, "delivery_reports"]

/** The most items a scrape counts in one queue: a deeper queue reads as this many. @since 0.1.0 @category constants */
export const queueReadLimit = 10_000

/** `sendline_queue_depth{queue}`: the items due now, at most `queueReadLimit`. @since 0.1.0 @category metrics */
export const queueDepth: Readonly<Record<Queue, Gauge>> = byLabel(
  queues,
  (queue) =>
    gauge("sendline_queue_depth", `Items due in a worker's queue (at most ${queueReadLimit} counted)`, { queue })
)

/** `sendline_queue_oldest_due_age_seconds{queue}`: how long the longest due item has waited (0 when none). @since 0.1.0 @category metrics */
export const queueOldestDueAge: Readonly<Record<Queue, Gauge>> = byLabel(
  queues,
  (queue) =>
    gauge("sendline_queue_oldest_due_age_seconds", "Seconds since the longest due item of a worker's queue fell due", {
      queue
    })
)

/** Sets `queue`'s gauges: `due` items, the longest due since `oldestDueAt` (epoch ms), at `now`. @since 0.1.0 @category updates */
export const queueObserved = (queue: Queue, due: number, oldestDueAt: number | undefined, now: number): void => {
  queueDepth[queue].unsafeUpdate(due, noLabels)
  queueOldestDueAge[queue].unsafeUpdate(oldestDueAt === undefined ? 0 : Math.max(0, now - oldestDueAt) / 1000, noLabels)
}

/**
 * Reads the stored queues' depths now (Clock time) and sets their gauges, so that a scrape shows
 * them as they are; the gauges keep their last values when the store fails.
 *
 * @since 0.1.0
 * @category updates
 */
export const observeStoredQueues: Effect.Effect<void, StoreUnavailable, QueueDepths.QueueDepths> = Effect.gen(
  function*() {
    const store = yield* QueueDepths.QueueDepths
    const now = yield* Clock.currentTimeMillis
    for (const depth of yield* store.read(now, queueReadLimit)) {
      queueObserved(depth.queue, depth.due, depth.oldestDueAt, now)
    }
  }
)

// --- webhooks ------------------------------------------------------------------------------------

/** What a webhook attempt came to, as recorded. @since 0.1.0 @category models */
export type WebhookOutcome = "succeeded" | "failed" | "skipped"

/** `sendline_webhook_attempts{outcome}`: webhook attempts recorded, by outcome. @since 0.1.0 @category metrics */
export const webhookAttempts: Readonly<Record<WebhookOutcome, Counter>> = byLabel(
  ["succeeded", "failed", "skipped"] as const,
  (outcome) => counter("sendline_webhook_attempts", "Webhook delivery attempts recorded, by outcome", { outcome })
)

/** `sendline_webhook_subscriptions_disabled`: subscriptions disabled after their last retry failed. @since 0.1.0 @category metrics */
export const webhookSubscriptionsDisabled: Counter = counter(
  "sendline_webhook_subscriptions_disabled",
  "Webhook subscriptions disabled after a delivery's last retry failed"
)

/** Counts one recorded attempt of `outcome`, and the disable it caused if any. @since 0.1.0 @category updates */
export const webhookAttemptRecorded = (outcome: WebhookOutcome, disabled: boolean): Effect.Effect<void> =>
  Effect.sync(() => {
    webhookAttempts[outcome].unsafeUpdate(1, noLabels)
    if (disabled) webhookSubscriptionsDisabled.unsafeUpdate(1, noLabels)
  })

// --- the store -----------------------------------------------------------------------------------

/** What a store was doing when its database failed. @since 0.1.0 @category models */
export type StoreOperation = "read" | "write" | "transaction"

/** `sendline_store_errors{operation}`: database failures the store reported as `StoreUnavailable`. @since 0.1.0 @category metrics */
export const storeErrors: Readonly<Record<StoreOperation, Counter>> = byLabel(
  ["read", "write", "transaction"] as const,
  (operation) => counter("sendline_store_errors", "Database failures reported as StoreUnavailable", { operation })
)

/** Counts one database failure during `operation`; synchronous. @since 0.1.0 @category updates */
export const storeFailed = (operation: StoreOperation): void => storeErrors[operation].unsafeUpdate(1, noLabels)

/**
 * Makes every fixed series exist, at zero, so that a scrape lists them before their first update
 * (a counter that appears only once it moves hides its first increase from `rate()`): those made by
 * `counter` and this module's gauges, the messages' (`MessageMetrics`, loaded with the core) included.
 *
 * @since 0.1.0
 * @category updates
 */
export const registerAll: Effect.Effect<void> = Effect.sync(() => {
  for (const metric of fixed) metric.register()
})
