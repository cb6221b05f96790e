/**
 * The route a request is answered by, as its template (`/v1/messaging/messages/:id`), found the
 * way the server's router finds it (the same `find-my-way` rules, under the same router
 * configuration): what the request log names a request by, never its raw path, which may carry an
 * id or anything a client typed.
 *
 * @since 0.1.0
 */
import { HttpLayerRouter, HttpRouter } from "@effect/platform"
import { Effect, FiberRef } from "effect"
import { Api } from "../Api.js"
import * as Docs from "../server/Docs.js"

/** The template of the route that answers `method` on `url` (its query ignored); undefined when none does. @since 0.1.0 @category models */
export type Find = (method: string, url: string) => string | undefined

/** Every route the server serves: the API's endpoints, its OpenAPI document and the docs page. */
const routes = (): ReadonlyArray<readonly [method: string, path: HttpLayerRouter.PathInput]> => [
  ...Object.values(Api.groups).flatMap((group) =>
    Object.values<typeof group.endpoints[string]>(group.endpoints).map((endpoint) => [endpoint.method, endpoint.path] as const)
  ),
  ["GET", Docs.openApiPath],
  ["GET", Docs.path]
]

/**
 * Finds templates under the router configuration of the fiber (set where the server is built:
 * `HttpRouter.setRouterConfig`); a HEAD request is answered by the GET route, as the router does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Find> = Effect.map(FiberRef.get(HttpRouter.currentRouterConfig), (config) => {
  const router = HttpLayerRouter.FindMyWay.make<string>(config)
  for (const [method, path] of routes()) router.on(method, path, path)
  return (method, url) => (router.find(method, url) ?? (method === "HEAD" ? router.find("GET", url) : undefined))?.handler
})
