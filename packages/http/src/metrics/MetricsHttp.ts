/**
 * The handler of the metrics group: reads the store's queue depths (bounded: see core's
 * `QueueDepths`) and, with a `Router`, where each carrier stands, then answers every metric of the process in the Prometheus text format.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { contentType, MetricsApi } from "@sendline/api/metrics/MetricsApi"
import { served } from "@sendline/api/middleware/Pipeline"
import { Metrics, Router } from "@sendline/core"
import { Effect, Option } from "effect"
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
    // the carriers' gauges, as they stand at the scrape
    const observeCarriers = Option.match(yield* Effect.serviceOption(Router.Router), {
      onNone: () => Effect.void,
      onSome: (router) =>
        Effect.map(router.carriers, (states) => {
          for (const { name, status } of states) Metrics.carrierObserved(name, status)
        })
    })
    return handlers.handle("metrics", () =>
      Effect.zipRight(
        Effect.zipRight(observeQueues, observeCarriers),
        Effect.map(prometheus.scrape, (text) => HttpServerResponse.text(text, { contentType }))
      ))
  }))
