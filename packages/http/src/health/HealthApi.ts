/**
 * The health group: `GET /health`, outside `/v1` and without a key.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Envelope } from "../envelope/Envelope.js"

/** Liveness. @since 0.1.0 @category groups */
export class HealthApi extends HttpApiGroup.make("health")
  .annotate(OpenApi.Description, "Liveness of the server, without a key.")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Envelope(Schema.Struct({ status: Schema.Literal("ok") })))
      .annotate(OpenApi.Summary, "Check that the server is alive")
  )
{}
