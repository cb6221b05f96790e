/**
 * The `node:http` server under the API, closed gracefully. `NodeHttpServer` stops a server by
 * removing its request handler and then closing it; a request that reaches a keep-alive
 * connection in between is never answered, and its open connection keeps the process alive. Here a
 * drain runs first: the server stops listening, idle connections close, every response still to
 * be written carries `Connection: close`, and the drain ends once the last connection has closed
 * (or after `drainTimeout`, when the rest are cut).
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer } from "effect"
import { createServer, type ServerResponse } from "node:http"

/** How long a drain waits for requests in flight before cutting their connections. @since 0.1.0 @category constants */
export const drainTimeout = Duration.seconds(10)

/** A listener on `host:port`, drained on release. @since 0.1.0 @category models */
export interface Listener {
  /** Provides `HttpServer` (and the platform services beside it); serve on it with a layer given to `withDrain`. */
  readonly layer: ReturnType<typeof NodeHttpServer.layer>
  /** Runs `serving` with the drain released before it, so its handler outlives every request. */
  readonly withDrain: <A, E, R>(serving: Layer.Layer<A, E, R>) => Layer.Layer<A, E, R>
}

/** A server listening on `options`, and the drain that closes it. @since 0.1.0 @category constructors */
export const make = (options: { readonly port: number; readonly host: string }): Listener => {
  const server = createServer()
  const inFlight = new Set<ServerResponse>()
  let draining = false
  // Registered before the API's handler, so it sees each request first.
  server.on("request", (_request, response: ServerResponse) => {
    if (draining) response.setHeader("connection", "close")
    inFlight.add(response)
    response.once("close", () => inFlight.delete(response))
  })

  const drain = Effect.async<void>((resume) => {
    draining = true
    for (const response of inFlight) if (!response.headersSent) response.setHeader("connection", "close")
    server.close(() => resume(Effect.void))
    server.closeIdleConnections()
  }).pipe(
    Effect.timeoutTo({ duration: drainTimeout, onSuccess: () => Effect.void, onTimeout: () => Effect.sync(() => server.closeAllConnections()) }),
    Effect.flatten,
    Effect.zipRight(Effect.logDebug("HTTP connections drained"))
  )

  return {
    layer: NodeHttpServer.layer(() => server, options),
    // Built after `serving`, so released before it: the drain runs while its handler still answers.
    withDrain: (serving) => Layer.scopedDiscard(Effect.addFinalizer(() => drain)).pipe(Layer.provideMerge(serving))
  }
}
