/**
 * The handlers of the health group.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { HealthApi } from "@sendline/api/health/HealthApi"
import { served } from "@sendline/api/middleware/Pipeline"
import { Readiness } from "@sendline/core"
import { Cause, Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"

/** How long a client is asked to wait before it asks again whether the server is ready. */
const retryAfterSeconds = 1

/**
 * `GET /health`: answers while the server is up. `GET /ready`: 200 once the store answers within
 * `Readiness.timeout` and is migrated, else 503 `unavailable` naming what failed (its cause logged).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = HttpApiBuilder.group(served(HealthApi), "health", (handlers) =>
  handlers
    .handle("health", () => Effect.map(Envelope.success(200, { status: "ok" }), (body) => Envelope.toResponse(body)))
    .handle("ready", () =>
      Effect.matchEffect(Readiness.ready, {
        onSuccess: ({ migration }) =>
          Effect.map(Envelope.success(200, { status: "ready", migration }), (body) => Envelope.toResponse(body)),
        onFailure: (notReady) =>
          Effect.zipRight(
            Effect.logWarning(`Not ready: ${notReady.message}`, Cause.fail(notReady)),
            ErrorResponse.render({
              code: "unavailable",
              message: `Not ready: ${notReady.message}.`,
              headers: { "retry-after": String(retryAfterSeconds) }
            })
          )
      })))
