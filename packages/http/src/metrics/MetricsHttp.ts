/**
 * The handler of the metrics group: reads the store's queue depths (bounded: see core's
 * `QueueDepths`), then answers every metric of the process in the Prometheus text format.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { contentType, MetricsApi } from "@sendline/api/metrics/MetricsApi"
import { served } from "@sendline/api/middleware/Pipeline"
import { Metrics } from "@sendline/core"
import { Effect } from "effect"
import * as Prometheus from "./Prometheus.js"

/** How long a scrape waits for the store's queue depths before it answers with the last ones. */
const queueReadTimeout = "2 seconds"

/**
 * `GET /metrics`: always answers, with the queue gauges as last read when the store fails or is
 * slow (its failure is in `sendline_store_errors`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = HttpApiBuilder.group(served(MetricsApi), "metrics", (handlers) =>
  Effect.gen(function*() {
    const prometheus = yield* Prometheus.Prometheus
    const observeQueues = Metrics.observeStoredQueues.pipe(
      Effect.timeoutFail({ duration: queueReadTimeout, onTimeout: () => "the store did not answer in time" }),
      Effect.catchAll((error) =>
        Effect.logWarning("Metrics: the queue depths were not read; the last ones are served", error)
      )
    )
    return handlers.handle("metrics", () =>
      Effect.zipRight(
        observeQueues,
        Effect.map(prometheus.scrape, (text) => HttpServerResponse.text(text, { contentType }))
      ))
  }))
