/**
 * The handler of the health group: `GET /health`, outside `/v1` and without a key.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import * as Respond from "../Respond.js"

/** `GET /health`: answers while the server is up. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(Api, "health", (handlers) =>
  handlers.handle("health", () => Effect.map(Respond.envelope(200, { status: "ok" }), (body) => Respond.toResponse(body))))
