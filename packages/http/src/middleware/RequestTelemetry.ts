/**
 * Every request counted and timed by route template and status (core's `Metrics.requestSeries`:
 * `sendline_http_requests` and `sendline_http_request_duration_seconds`), and, while traces are
 * exported, given its server span: named `METHOD /route/template`, a child of the caller's
 * `traceparent` if it sent one, with its method, route and status as attributes; never its path's
 * ids, its query or its headers, where keys, references and phone numbers are.
 *
 * It wraps the whole app, outside the envelope middleware, so that it sees the status of every
 * answer as written: refusals, unknown routes and 5xx too. Counting costs a route lookup, two
 * clock reads and two metric updates; the series of a route and status is made once and kept.
 *
 * @since 0.1.0
 */
import { HttpServerError, HttpServerRequest, HttpTraceContext } from "@effect/platform"
import type { HttpApp, HttpServerResponse } from "@effect/platform"
import { Metrics } from "@sendline/core"
import type { Clock } from "effect"
import { Context, Effect, Exit, Option } from "effect"
import type * as ErrorResponse from "../envelope/ErrorResponse.js"
import * as RouteTemplates from "./RouteTemplates.js"

/** A route as requests to it are counted: its labels, its span's name, and its series by status. */
interface Route {
  readonly method: string
  readonly template: string
  readonly spanName: string
  readonly byStatus: Map<number, Metrics.RequestSeries>
}

const route = (method: string, template: string): Route => ({
  method,
  template,
  spanName: `${method} ${template}`,
  byStatus: new Map()
})

/** The series of `status` on `route`, made at its first request. */
const seriesOf = (route: Route, status: number): Metrics.RequestSeries => {
  let series = route.byStatus.get(status)
  if (series === undefined) {
    route.byStatus.set(status, series = Metrics.requestSeries(route.method, route.template, status))
  }
  return series
}

/** The status an app's exit answered with: its response's, or what the server writes for its failure. */
const statusOf = <E>(exit: Exit.Exit<HttpServerResponse.HttpServerResponse, E>): number =>
  Exit.isSuccess(exit) ? exit.value.status : HttpServerError.exitResponse(exit).status

/**
 * The middleware: counts every request on `clock`, by the template of its route among `routes`;
 * with `traced`, each is a server span too.
 *
 * @since 0.1.0
 * @category middleware
 */
export const make = (
  options: {
    readonly clock: Clock.Clock
    readonly traced: boolean
    readonly routes: ReadonlyArray<ErrorResponse.Route>
  }
) => {
  const { clock, routes, traced } = options
  const find = RouteTemplates.make(routes, route, (method) => route(method, RouteTemplates.unmatched))
  return <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const target = find(request.method, request.url)
      const start = clock.unsafeCurrentTimeNanos()
      const counted = Effect.onExit(app, (exit) =>
        Effect.sync(() =>
          Metrics.requestAnswered(
            seriesOf(target, statusOf(exit)),
            Number(clock.unsafeCurrentTimeNanos() - start) / 1e9
          )
        ))
      if (!traced) {
        return counted
      }
      return Effect.useSpan(target.spanName, {
        kind: "server",
        parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
        captureStackTrace: false,
        attributes: { "http.request.method": request.method, "http.route": target.template }
      }, (span) =>
        Effect.onExit(Effect.withParentSpan(counted, span), (exit) =>
          Effect.sync(() =>
            span.attribute("http.response.status_code", statusOf(exit))
          )))
    })
}
