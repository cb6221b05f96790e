/**
 * The handlers of the health group.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { HealthApi } from "@sendline/api/health/HealthApi"
import { served } from "@sendline/api/middleware/Pipeline"
import { Readiness, Router, Routes } from "@sendline/core"
import { Cause, type Context, Effect, Option } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"

/** How long a client is asked to wait before it asks again whether the server is ready. */
const retryAfterSeconds = 1

/** Where the carriers stand, as `/ready` names them. */
const carriersOf = (router: Context.Tag.Service<Router.Router>) =>
  Effect.map(router.carriers, (states) =>
    states.map(({ name, status }) => ({
      name,
      state: status.state,
      ...(status.sessions === undefined ? {} : { sessions: status.sessions })
    })))

/** A market as a message names it: `*` is every market without a route of its own. */
const marketName = (market: string) => (market === Routes.anyMarket ? "every other market (*)" : market)

const notReady = (message: string) =>
  ErrorResponse.render({
    code: "unavailable",
    message: `Not ready: ${message}.`,
    headers: { "retry-after": String(retryAfterSeconds) }
  })

/**
 * `GET /health`: answers while the server is up. `GET /ready`: 200 once the store answers within
 * `Readiness.timeout` and is migrated and, with a `Router`, every routed market has a carrier that
 * can take messages, naming each carrier's state; else 503 `unavailable` naming what failed (the
 * store's cause logged; the markets without a carrier).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = HttpApiBuilder.group(served(HealthApi), "health", (handlers) =>
  Effect.gen(function*() {
    const router = yield* Effect.serviceOption(Router.Router)
    const ready = (migration: string) =>
      Option.match(router, {
        onNone: () => Effect.map(Envelope.success(200, { status: "ready", migration }), Envelope.toResponse),
        onSome: (router) =>
          Effect.gen(function*() {
            const carriers = yield* carriersOf(router)
            const unroutable = yield* router.unroutable
            if (unroutable.length > 0) {
              const down = carriers.filter((c) => c.state !== "bound").map((c) => `${c.name} ${c.state}`)
              return yield* notReady(
                `no carrier can take messages for ${unroutable.map(marketName).join(", ")} ` +
                  `(${down.length === 0 ? "no carrier" : down.join(", ")})`
              )
            }
            return Envelope.toResponse(yield* Envelope.success(200, { status: "ready", migration, carriers }))
          })
      })
    return handlers
      .handle("health", () => Effect.map(Envelope.success(200, { status: "ok" }), (body) => Envelope.toResponse(body)))
      .handle("ready", () =>
        Effect.matchEffect(Readiness.ready, {
          onSuccess: ({ migration }) => ready(migration),
          onFailure: (failure) =>
            Effect.zipRight(
              Effect.logWarning(`Not ready: ${failure.message}`, Cause.fail(failure)),
              notReady(failure.message)
            )
        }))
  }))
