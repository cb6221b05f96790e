/**
 * The process's Effect metrics in the Prometheus text format: `@effect/opentelemetry` reads
 * Effect's metric registry as an OpenTelemetry metric producer, OpenTelemetry's Prometheus exporter
 * is its reader (never listening itself: `/metrics` is served by the API), and its serializer writes
 * the text, without the `otel_scope_name` label on every series (there is one scope).
 *
 * @since 0.1.0
 */
import { Metrics as OtelMetrics, Resource } from "@effect/opentelemetry"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { Metrics } from "@sendline/core"
import { Context, Effect, Layer } from "effect"
import { version } from "../envelope/Version.js"

/** What `/metrics` answers. @since 0.1.0 @category services */
export class Prometheus extends Context.Tag("@sendline/http/Prometheus")<Prometheus, {
  /** Every metric of the process now, in the Prometheus text exposition format 0.0.4. */
  readonly scrape: Effect.Effect<string>
}>() {}

/** The service's name and version, as `target_info` reports them. */
const resource = Resource.layer({ serviceName: "sendline", serviceVersion: version })

/**
 * `Prometheus`, reading the process's metrics while the layer lives; Sendline's fixed series
 * (core's `Metrics.registerAll`) exist at zero from the start.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Prometheus> = Layer.scoped(
  Prometheus,
  Effect.gen(function*() {
    const reader = new PrometheusExporter({ preventServerStart: true })
    yield* OtelMetrics.registerProducer(yield* OtelMetrics.makeProducer, () => reader)
    yield* Metrics.registerAll
    // prefix, timestamps, resource labels, target_info kept, scope labels left out
    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
    return Prometheus.of({
      scrape: Effect.map(
        Effect.promise(() => reader.collect()),
        ({ resourceMetrics }) => serializer.serialize(resourceMetrics)
      )
    })
  })
).pipe(Layer.provide(resource))
