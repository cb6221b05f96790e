/**
 * The metrics group: `GET /metrics`, outside `/v1` and without a key, for a Prometheus scraper.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"

/** The media type of the Prometheus text exposition format 0.0.4. @since 0.1.0 @category constants */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** The server's metrics in the Prometheus text format. @since 0.1.0 @category groups */
export class MetricsApi extends HttpApiGroup.make("metrics").add(
  HttpApiEndpoint.get("metrics", "/metrics")
    .addSuccess(HttpApiSchema.Text({ contentType }))
    .annotate(OpenApi.Summary, "Metrics in the Prometheus text format")
    .annotate(
      OpenApi.Description,
      "Requests by route and status with their latency, messages entering each status, the workers' queue depths " +
        "and oldest due items, webhook attempts by outcome and store errors; no label names an account, a key or a phone number."
    )
).annotate(OpenApi.Description, "Operational metrics for a Prometheus scraper, without a key.") {}
