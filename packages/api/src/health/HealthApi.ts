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

/**
 * A carrier as `/ready` names it (CONTRACT §11): whether it can take messages now (`bound`), has
 * no session bound (`connecting`) or asked to slow down (`throttled`), with its sessions bound of
 * those configured when it has sessions.
 *
 * @since 0.2.0
 * @category schemas
 */
export const CarrierReadiness = Schema.Struct({
  name: Schema.String.annotations({ description: "the carrier's name in the routes file (`default` for one carrier)" }),
  state: Schema.Literal("bound", "connecting", "throttled"),
  sessions: Schema.optional(Schema.Struct({
    bound: Schema.Int.annotations({ description: "sessions bound now" }),
    configured: Schema.Int.annotations({ description: "sessions configured (`sessions=` of an SMPP URL)" })
  }))
}).annotations({ identifier: "CarrierReadiness" })

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
        migration: Schema.String.annotations({ description: "the last migration recorded in the database" }),
        carriers: Schema.optional(Schema.Array(CarrierReadiness)).annotations({
          description: "each carrier and where it stands, in the order configured (absent when the server " +
            "was given a carrier without routes)"
        })
      })))
      .addError(WireErrors.StoreUnavailable)
      .annotate(OpenApi.Summary, "Readiness: the store answers and is migrated, and every routed market has a carrier")
      .annotate(
        OpenApi.Description,
        "200 when the store answers a trivial query within 2 seconds, every migration this version needs is " +
          "recorded and every market routed has a carrier that can take messages now, naming each carrier's " +
          "state; else 503 `unavailable` with `Retry-After`, its message naming what failed (the store cannot be " +
          "reached or read, did not answer in time, or lacks migrations; or the markets no carrier can take " +
          "messages for). A carrier `connecting` or `throttled` beside one `bound` on the same routes is not a 503: " +
          "its messages fail over."
      )
  )
{}
