/**
 * The handler of the health group.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import * as Envelope from "../envelope/Envelope.js"

/** `GET /health`: answers while the server is up. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(Api, "health", (handlers) =>
  handlers.handle("health", () => Effect.map(Envelope.success(200, { status: "ok" }), (body) => Envelope.toResponse(body))))
