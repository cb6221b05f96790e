/**
 * Assembles the `/v1` server: the API's handlers, its middleware, the OpenAPI document, the docs
 * page (`GET /docs`, Scalar, served inline) and a Node HTTP listener.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpRouter, HttpServer } from "@effect/platform"
import type { Auth, Idempotency, Ids, Messaging } from "@sendline/core"
import { Layer } from "effect"
import { Api } from "./Api.js"
import * as Authentication from "./Authentication.js"
import * as Listener from "./Listener.js"
import * as Messages from "./Http/Messages.js"
import * as Middleware from "./Middleware.js"
import * as RateLimiter from "./RateLimiter.js"

/** What the API needs from the core. @since 0.1.0 @category models */
export type Requirements = Messaging.Messaging | Auth.Auth | Idempotency.Idempotency | Ids.IdGenerator

/** How the API is served. @since 0.1.0 @category models */
export interface Options {
  /** Requests per second per API key; 0 turns the limit off. */
  readonly rateLimitPerSecond: number
}

/**
 * The API without a listener: provide an `HttpServer` (or use `HttpApiBuilder.toWebHandler`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerApi = (options: Options) =>
  Layer.mergeAll(
    Middleware.layer,
    HttpApiBuilder.middlewareOpenApi({ path: "/v1/openapi.json" }),
    HttpApiScalar.layer({ path: "/docs" })
  ).pipe(
    Layer.provideMerge(
      HttpApiBuilder.api(Api).pipe(
        Layer.provide(Layer.mergeAll(Messages.layer, Messages.healthLayer)),
        Layer.provide(Authentication.layer)
      )
    ),
    Layer.provide(RateLimiter.layer(options.rateLimitPerSecond))
  )

/** Serves the API on an HTTP server that is provided. @since 0.1.0 @category layers */
export const layerServe = (options: Options) =>
  HttpApiBuilder.serve().pipe(
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(layerApi(options)),
    // Paths match as written: `/V1/…` or `//v1` is not a route (a trailing slash still is).
    Layer.provide(HttpRouter.setRouterConfig({ caseSensitive: true, ignoreDuplicateSlashes: false }))
  )

/**
 * Serves the API on `host:port`, logging the address; on release, requests in flight are answered
 * before the server closes (see `Listener`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options & { readonly port: number; readonly host: string }) =>
  Listener.layer(layerServe(options).pipe(HttpServer.withLogAddress), { port: options.port, host: options.host })
