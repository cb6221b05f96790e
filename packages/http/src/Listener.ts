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
import { Duration, Effect, Layer, Schema } from "effect"
import { createServer, type ServerResponse } from "node:http"

/** How long a drain waits for requests in flight before cutting their connections. @since 0.1.0 @category constants */
export const drainTimeout = Duration.seconds(10)

/** The server could not listen on its address (in use, or not an address of this machine). @since 0.1.0 @category errors */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  message: Schema.String,
  cause: Schema.Defect
}) {}

/**
 * Serves `serving` on a `node:http` server listening on `options`, which the layer creates when
 * built and drains when released, before `serving` (and its request handler) goes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <A, E, R>(
  serving: Layer.Layer<A, E, R>,
  options: { readonly port: number; readonly host: string }
) =>
  Layer.unwrapEffect(Effect.sync(() => {
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
      Effect.timeoutTo({
        duration: drainTimeout,
        onSuccess: () => Effect.void,
        onTimeout: () => Effect.sync(() => server.closeAllConnections())
      }),
      Effect.flatten,
      Effect.zipRight(Effect.logDebug("HTTP connections drained"))
    )

    // Built after `serving`, so released before it: the drain runs while its handler still answers.
    return Layer.scopedDiscard(Effect.addFinalizer(() => drain)).pipe(
      Layer.provideMerge(serving),
      Layer.provide(NodeHttpServer.layer(() => server, options).pipe(
        Layer.mapError(({ cause }) =>
          new ListenFailed({
            message: `Cannot listen on ${options.host}:${options.port} (${cause instanceof Error ? cause.message : String(cause)}).`,
            cause
          })
        )
      ))
    )
  }))
