/**
 * The `Authentication` middleware: the `Authorization` header through core's `Auth`, then the
 * per-key rate limit.
 *
 * @since 0.1.0
 */
import { HttpServerRequest } from "@effect/platform"
import { Auth } from "@sendline/core"
import { Effect, Layer } from "effect"
import { Authentication } from "./Api.js"
import { RateLimiter } from "./RateLimiter.js"

/** Authenticates the bearer key, then takes its rate-limit token. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Authentication, never, Auth.Auth | RateLimiter> = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const auth = yield* Auth.Auth
    const limiter = yield* RateLimiter
    return Authentication.of({
      bearer: () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const principal = yield* auth.authenticate(request.headers.authorization)
          yield* limiter.take(principal.keyId)
          return principal
        })
    })
  })
)
