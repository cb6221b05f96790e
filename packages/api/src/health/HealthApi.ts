/**
 * The health group: `GET /health` (liveness) and `GET /ready` (readiness), outside `/v1` and
 * without a key.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Envelope } from "../envelope/Envelope.js"
import * as WireErrors from "../envelope/WireErrors.js"

/** Liveness and readiness. @since 0.1.0 @category groups */
export class HealthApi extends HttpApiGroup.make("health")
  .annotate(OpenApi.Description, "Liveness and readiness of the server, without a key.")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Envelope(Schema.Struct({ status: Schema.Literal("ok") })))
      .annotate(OpenApi.Summary, "Check that the server is alive")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Envelope(Schema.Struct({
        status: Schema.Literal("ready"),
        migration: Schema.String.annotations({ description: "the last migration recorded in the database" })
      })))
      .addError(WireErrors.StoreUnavailable)
      .annotate(OpenApi.Summary, "Readiness: the store answers and is migrated")
      .annotate(
        OpenApi.Description,
        "200 when the store answers a trivial query within 2 seconds and every migration this version needs is " +
          "recorded; else 503 `unavailable` with `Retry-After`, its message naming what failed (the store cannot be " +
          "reached or read, did not answer in time, or lacks migrations)."
      )
  )
{}
