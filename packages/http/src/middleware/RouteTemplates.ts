/**
 * The route a request is for, as its template (`/v1/messaging/messages/:id`), never its raw path,
 * whose ids would make every message a series of its own: what request metrics and spans are
 * labelled by, and what the request log names a request by. Found as the server's router finds it: the same router (`find-my-way-ts`, as
 * `@effect/platform` re-exports it), with the same settings, on every endpoint of the API served
 * (given by the server, `routesOf`) and the two routes served beside it (the OpenAPI document and
 * the docs page).
 *
 * @since 0.1.0
 */
import { type HttpApi, HttpLayerRouter } from "@effect/platform"
import type { Route } from "../envelope/ErrorResponse.js"
import * as Docs from "./Docs.js"

/**
 * How the server's router matches paths: as written, so `/V1/…` or `//v1` is no route (a
 * trailing slash still is).
 *
 * @since 0.1.0
 * @category constants
 */
export const routerConfig = { caseSensitive: true, ignoreDuplicateSlashes: false } as const

/** What a request that no route takes is labelled with. @since 0.1.0 @category constants */
export const unmatched = "unmatched"

/** Every route a server of `api` answers: its endpoints, the OpenAPI document and the docs page. @since 0.1.0 @category constructors */
export const routesOf = (api: HttpApi.HttpApi.Any): ReadonlyArray<Route> => [
  ...Object.values((api as HttpApi.HttpApi.AnyWithProps).groups).flatMap((group) =>
    Object.values(group.endpoints).map((endpoint) => ({ method: endpoint.method, template: endpoint.path }))
  ),
  { method: "GET", template: Docs.openApiPath },
  { method: "GET", template: Docs.path }
]

/**
 * A lookup of the value `make` gives each of `routes`, made once per route and method here; a request
 * no route takes (a HEAD answered as its GET) gets `orElse`'s value for its method, made once per
 * method too, so that a lookup allocates nothing that lasts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A>(
  routes: ReadonlyArray<Route>,
  make: (method: string, template: string) => A,
  orElse: (method: string) => A
): (method: string, url: string) => A => {
  const router = HttpLayerRouter.FindMyWay.make<A>(routerConfig)
  for (const { method, template } of routes) {
    router.on(method as "GET", template as `/${string}`, make(method, template))
  }
  const others = new Map<string, A>()
  return (method, url) => {
    const found = router.find(method as "GET", url) ?? (method === "HEAD" ? router.find("GET", url) : undefined)
    if (found !== undefined) return found.handler
    let other = others.get(method)
    if (other === undefined) others.set(method, other = orElse(method))
    return other
  }
}

/** The template of the route that answers `method` on `url`; undefined when none does. @since 0.1.0 @category models */
export type Find = (method: string, url: string) => string | undefined

/** Finds the template of the route of `routes` that answers a request, as the router would. @since 0.1.0 @category constructors */
export const find = (routes: ReadonlyArray<Route>): Find =>
  make<string | undefined>(routes, (_, template) => template, () => undefined)
