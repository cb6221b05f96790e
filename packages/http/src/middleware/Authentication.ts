/**
 * The two middlewares of `Pipeline`. `Authentication`: the `Authorization` header through core's
 * `Auth`, guarded by the client address's failed-authentication limit (`AuthFailures`), the rate
 * limits, then the permission the endpoint needs (`RequiredPermission`),
 * so that a key without it is refused before its body is read (core checks the permission again:
 * it is the rule); the key's account is named in the request log (`RequestLog`). `CheckBody`: the
 * body, read and checked only now (`RequestBody.read`).
 *
 * @since 0.1.0
 */
import { type HttpApi, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Authentication, CheckBody, RequiredPermission } from "@sendline/api/middleware/Pipeline"
import { Auth, Errors, type Permission } from "@sendline/core"
import { Context, Effect, Layer, Option } from "effect"
import { AuthFailures } from "./AuthFailures.js"
import { RateLimiter } from "./RateLimiter.js"
import * as RawHeaders from "./RawHeaders.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestLog from "./RequestLog.js"

const routeKey = (method: string, path: string) => `${method} ${path}`

/** The permission of each endpoint of `api` that names one, by method and path. */
const permissionsByRoute = (api: HttpApi.HttpApi.Any): ReadonlyMap<string, Permission.Permission> => {
  const byRoute = new Map<string, Permission.Permission>()
  for (const group of Object.values((api as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values<typeof group.endpoints[string]>(group.endpoints)) {
      const permission = Context.getOption(endpoint.annotations, RequiredPermission)
      if (Option.isSome(permission)) byRoute.set(routeKey(endpoint.method, endpoint.path), permission.value)
    }
  }
  return byRoute
}

/** Authenticates the bearer key, takes its rate-limit token and checks the permission `api`'s endpoint needs. @since 0.1.0 @category layers */
export const layer = (
  api: HttpApi.HttpApi.Any
): Layer.Layer<Authentication, never, Auth.Auth | RateLimiter | AuthFailures> =>
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      const auth = yield* Auth.Auth
      const failures = yield* AuthFailures
      const limiter = yield* RateLimiter
      const permissions = permissionsByRoute(api)
      return Authentication.of({
        bearer: () =>
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            const principal = yield* failures.guard(
              request,
              RawHeaders.count(request, "authorization") > 1
                ? new Errors.Unauthenticated({ message: "Send one Authorization header, not several." })
                : auth.authenticate(request.headers.authorization)
            )
            yield* RequestLog.noteAccount(principal.accountId)
            yield* limiter.take(principal.keyId, principal.accountId)
            const { route } = yield* HttpRouter.RouteContext
            const permission = permissions.get(routeKey(route.method, route.path))
            if (permission !== undefined) yield* Auth.requirePermission(principal, permission)
            return principal
          })
      })
    })
  )

/** Reads and checks the body of every request that passed `Authentication`. @since 0.1.0 @category layers */
export const layerCheckBody: Layer.Layer<CheckBody> = Layer.succeed(CheckBody, RequestBody.read)
