/**
 * The `node:http` server under the API, closed gracefully. `NodeHttpServer` stops a server by
 * removing its request handler and then closing it; a request that reaches a keep-alive
 * connection in between is never answered, and its open connection keeps the process alive. Here a
 * drain runs first: the server stops listening, idle connections close, every response still to
 * be written carries `Connection: close`, and the drain ends once the last connection has closed
 * (or after `timeouts.drain`, when the rest are cut).
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Ids } from "@sendline/core"
import { Duration, Effect, Layer, Runtime, Schema } from "effect"
import { createServer, type IncomingMessage, maxHeaderSize, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import type { ApiError } from "../envelope/ApiError.js"
import * as ErrorResponse from "../envelope/ErrorResponse.js"
import * as RequestContext from "../envelope/RequestContext.js"
import * as ExpectContinue from "../middleware/ExpectContinue.js"

/**
 * The server's time limits. A request's headers, and then the whole request, must arrive in time:
 * past either it is answered 400 and its connection closed, so that a client trickling bytes cannot
 * hold a connection for Node's five minutes (Node checks every second, so the cut comes up to a
 * second later). A drain waits `drain` for the requests in flight, then cuts their connections.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeouts {
  readonly headers: Duration.Duration
  readonly request: Duration.Duration
  readonly drain: Duration.Duration
}

/** 10 s for the headers, 30 s for the whole request, 10 s for a drain. @since 0.1.0 @category constants */
export const timeouts: Timeouts = {
  headers: Duration.seconds(10),
  request: Duration.seconds(30),
  drain: Duration.seconds(10)
}

/** The server could not listen on its address (in use, or not an address of this machine). @since 0.1.0 @category errors */
export class ListenFailed extends Schema.TaggedError<ListenFailed>("@sendline/http/ListenFailed")("ListenFailed", {
  message: Schema.String,
  cause: Schema.Defect
}) {}

/**
 * What Node's parser refuses before any handler sees it (an unknown method, a malformed request
 * line, headers over Node's limit) still leaves as the error envelope with a request id, on a
 * connection then closed. A connection reset or already closed is just closed.
 */
const answerUnparsable = (error: NodeJS.ErrnoException, socket: Duplex, runtime: Runtime.Runtime<Ids.IdGenerator>) => {
  if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy()
  // Headers too large are 400 too, not 431: CONTRACT §8 gives invalid_request that status only.
  const refused: ApiError = {
    code: "invalid_request",
    message: error.code === "HPE_HEADER_OVERFLOW"
      ? `The request line and headers are larger than the server accepts (${maxHeaderSize / 1024} KiB).`
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? "The request did not arrive in time."
      : "The request is not valid HTTP/1.1."
  }
  const { body, requestId, status } = Runtime.runSync(runtime)(Effect.gen(function*() {
    const requestId = yield* Effect.flatMap(Ids.IdGenerator, (ids) => ids.make("req"))
    const { body, status } = yield* Effect.locally(ErrorResponse.body(refused), RequestContext.current, { requestId })
    return { body, status, requestId }
  }))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * Serves `serving` on a `node:http` server listening on `options`, which the layer creates when
 * built and drains when released, before `serving` (and its request handler) goes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <A, E, R>(
  serving: Layer.Layer<A, E, R>,
  options: { readonly port: number; readonly host: string; readonly timeouts?: Timeouts | undefined }
) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const runtime = yield* Effect.runtime<Ids.IdGenerator>()
    const limits = options.timeouts ?? timeouts
    const server = createServer({
      headersTimeout: Duration.toMillis(limits.headers),
      requestTimeout: Duration.toMillis(limits.request),
      connectionsCheckingInterval: 1000
    })
    server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => answerUnparsable(error, socket, runtime))
    // `100 Continue` waits until the key and its permission pass (`ExpectContinue`).
    server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
      ExpectContinue.hold(request, response)
      server.emit("request", request, response)
    })
    const inFlight = new Set<ServerResponse>()
    let draining = false
    // Registered before the API's handler, so it sees each request first.
    server.on("request", (_request, response: ServerResponse) => {
      if (draining) response.setHeader("connection", "close")
      inFlight.add(response)
      response.once("close", () => inFlight.delete(response))
    })

    // A finalizer cannot be interrupted, so the cut is a timer of its own, not an Effect timeout.
    const drain = Effect.async<void>((resume) => {
      draining = true
      for (const response of inFlight) if (!response.headersSent) response.setHeader("connection", "close")
      const cut = setTimeout(() => server.closeAllConnections(), Duration.toMillis(limits.drain))
      server.close(() => {
        clearTimeout(cut)
        resume(Effect.void)
      })
      server.closeIdleConnections()
    }).pipe(
      Effect.zipRight(Effect.logDebug("HTTP connections drained"))
    )

    // Built after `serving`, so released before it: the drain runs while its handler still answers.
    return Layer.scopedDiscard(Effect.addFinalizer(() => drain)).pipe(
      Layer.provideMerge(serving),
      Layer.provide(
        NodeHttpServer.layer(() => server, options).pipe(
          Layer.mapError(({ cause }) =>
            new ListenFailed({
              message: `Cannot listen on ${options.host}:${options.port} (${
                cause instanceof Error ? cause.message : String(cause)
              }).`,
              cause
            })
          )
        )
      )
    )
  }))
