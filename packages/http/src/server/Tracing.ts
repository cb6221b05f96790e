/**
 * Traces to an OpenTelemetry collector over OTLP/HTTP (JSON) when `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set: `@effect/opentelemetry`'s tracer on OpenTelemetry's SDK, spans batched
 * (`BatchSpanProcessor`: every 5 s, or `OTEL_BSP_SCHEDULE_DELAY` ms, and when the server stops) and
 * posted to `<endpoint>/v1/traces`. The SDK reads its other `OTEL_*` variables itself
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`…). Unset, no span
 * is exported and none is made where the server can avoid it (see `Services.withoutSpans`).
 *
 * @since 0.1.0
 */
import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option } from "effect"
import { version } from "../envelope/Version.js"

/** Where an OTLP/HTTP collector takes traces: the signal's path under the endpoint. @since 0.1.0 @category urls */
export const tracesUrl = (endpoint: string): string => `${endpoint.replace(/\/+$/, "")}/v1/traces`

/** The endpoint as the start-up line names it: scheme, host and port only, never credentials or a path. */
const describe = (endpoint: string): string => new URL(endpoint).origin

/**
 * The tracer that exports to `endpoint` while the layer lives, flushing what it holds when it is
 * released; with no endpoint, nothing (Effect's own tracer, whose spans go nowhere).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (endpoint: Option.Option<string>): Layer.Layer<never> =>
  Option.match(endpoint, {
    onNone: () => Layer.empty,
    onSome: (url) =>
      Layer.discard(NodeSdk.layer(() => ({
        resource: { serviceName: "sendline", serviceVersion: version },
        spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(url) }))
      }))).pipe(
        Layer.tap(() => Effect.logInfo(`Traces: exported over OTLP/HTTP to ${describe(url)}`))
      )
  })
