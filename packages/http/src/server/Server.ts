/**
 * Assembles the `/v1` server: the API's handlers, its middleware, the OpenAPI document, the docs
 * page (`GET /docs`, Scalar, served inline and offline: `Docs.scalar`) and a Node HTTP listener.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpRouter, HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Api } from "@sendline/api/Api"
import type {
  Auth,
  Batches,
  Brands,
  EventLog,
  Idempotency,
  Ids,
  Messaging,
  OperatorReview,
  OptOuts,
  QueueDepths,
  Readiness,
  SenderIds,
  Spending,
  Webhooks
} from "@sendline/core"
import { Deferred, Effect, Layer, type Scope } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as BrandRelationshipsHttp from "../brands/BrandRelationshipsHttp.js"
import * as BrandsHttp from "../brands/BrandsHttp.js"
import * as HealthHttp from "../health/HealthHttp.js"
import * as MessagesHttp from "../messaging/MessagesHttp.js"
import * as UsageHttp from "../messaging/UsageHttp.js"
import * as MetricsHttp from "../metrics/MetricsHttp.js"
import * as Prometheus from "../metrics/Prometheus.js"
import * as Authentication from "../middleware/Authentication.js"
import * as AuthFailures from "../middleware/AuthFailures.js"
import * as Docs from "../middleware/Docs.js"
import * as Middleware from "../middleware/Middleware.js"
import * as RateLimiter from "../middleware/RateLimiter.js"
import * as RequestTelemetry from "../middleware/RequestTelemetry.js"
import * as RouteTemplates from "../middleware/RouteTemplates.js"
import * as OptOutsHttp from "../optOuts/OptOutsHttp.js"
import * as OperatorRegistrationsHttp from "../senderIds/OperatorRegistrationsHttp.js"
import * as SenderIdsHttp from "../senderIds/SenderIdsHttp.js"
import * as EventsHttp from "../webhooks/EventsHttp.js"
import * as WebhooksHttp from "../webhooks/WebhooksHttp.js"
import * as Listener from "./Listener.js"

/** What the API needs from the core. @since 0.1.0 @category models */
export type Requirements =
  | Messaging.Messaging
  | Batches.Batches
  | Brands.Brands
  | SenderIds.SenderIds
  | OperatorReview.OperatorReview
  | Auth.Auth
  | Idempotency.Idempotency
  | Webhooks.Webhooks
  | EventLog.EventLog
  | OptOuts.OptOuts
  | Spending.Spending
  | Ids.IdGenerator
  | QueueDepths.QueueDepths
  | Readiness.Readiness

/** How the API is served. @since 0.1.0 @category models */
export interface Options {
  /** Requests per second per API key; 0 turns the limit off. */
  readonly rateLimitPerSecond: number
  /** Requests per second per account, across its keys; 0 (the default) turns the limit off. */
  readonly rateLimitPerAccountPerSecond?: number | undefined
  /** Failed authentications per client address a minute before 429; 60 by default, 0 turns the limit off. */
  readonly authFailuresPerMinute?: number | undefined
  /** Reverse proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client; none by default. */
  readonly trustProxy?: ReadonlyArray<string> | undefined
  /**
   * Whether each request is a span (`RequestTelemetry`): for a server that exports traces; off by
   * default, when a span would cost the request time and go nowhere.
   */
  readonly traced?: boolean | undefined
}

/** Every route the server answers. */
const routes = RouteTemplates.routesOf(Api)

/**
 * The API without a listener: provide an `HttpServer`, or take it as a Node handler (`nodeHandler`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerApi = (options: Options) =>
  Layer.mergeAll(
    Middleware.layer(routes),
    HttpApiBuilder.middlewareOpenApi({ path: Docs.openApiPath }),
    HttpApiScalar.layer({ path: Docs.path, scalar: Docs.scalar })
  ).pipe(
    Layer.provideMerge(
      HttpApiBuilder.api(Api).pipe(
        Layer.provide(Layer.mergeAll(
          MessagesHttp.layer,
          UsageHttp.layer,
          BrandsHttp.layer,
          BrandRelationshipsHttp.layer,
          SenderIdsHttp.layer,
          OperatorRegistrationsHttp.layer,
          WebhooksHttp.layer,
          EventsHttp.layer,
          OptOutsHttp.layer,
          HealthHttp.layer,
          MetricsHttp.layer
        )),
        Layer.provide(Layer.mergeAll(Authentication.layer(Api), Authentication.layerCheckBody))
      )
    ),
    Layer.provide(Layer.mergeAll(
      RateLimiter.layer({ perKey: options.rateLimitPerSecond, perAccount: options.rateLimitPerAccountPerSecond ?? 0 }),
      AuthFailures.layer({ perMinute: options.authFailuresPerMinute ?? 60, trustProxy: options.trustProxy }),
      Prometheus.layer
    ))
  )

/**
 * Serves the API on an HTTP server that is provided, every request counted (and with `traced` a
 * span) by `RequestTelemetry`; the platform's own request span stays off, ours replacing it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerServe = (options: Options) =>
  Layer.unwrapEffect(
    Effect.map(Effect.clock, (clock) =>
      HttpApiBuilder.serve(RequestTelemetry.make({ clock, traced: options.traced === true, routes })))
  ).pipe(
    HttpMiddleware.withTracerDisabledWhen(() =>
      true
    ),
    Layer.provide(layerApi(options)),
    Layer.provide(HttpRouter.setRouterConfig(RouteTemplates.routerConfig))
  )

/** A Node request listener: what `node:http`'s `request` event, Express or Connect call. @since 0.1.0 @category models */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

/**
 * The API as a Node request handler, for a service that already has its own `node:http` server
 * (or Express…): it hands Sendline the requests whose path starts with `/v1` (and `/docs`,
 * `/health` if it likes), and keeps its own listener, routes and shutdown. The handler serves
 * until the scope closes.
 *
 * @since 0.1.0
 * @category handlers
 */
export const nodeHandler = (options: Options): Effect.Effect<NodeHandler, never, Requirements | Scope.Scope> =>
  Effect.gen(function*() {
    const handler = yield* Deferred.make<NodeHandler>()
    // An `HttpServer` that listens nowhere: serving on it makes the Node handler and hands it over.
    const handingOver = HttpServer.make({
      address: { _tag: "TcpAddress", hostname: "mounted", port: 0 },
      serve: (app, middleware) =>
        Effect.flatMap(
          middleware === undefined ? NodeHttpServer.makeHandler(app) : NodeHttpServer.makeHandler(app, middleware),
          (made) => Deferred.succeed(handler, made)
        )
    })
    yield* Layer.build(
      layerServe(options).pipe(
        Layer.provide(Layer.succeed(HttpServer.HttpServer, handingOver)),
        Layer.provide(NodeHttpServer.layerContext)
      )
    )
    return yield* Deferred.await(handler)
  })

/**
 * Serves the API on `host:port`, logging the address; on release, requests in flight are answered
 * before the server closes (see `Listener`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options & { readonly port: number; readonly host: string }) =>
  Listener.layer(layerServe(options).pipe(HttpServer.withLogAddress), { port: options.port, host: options.host })
