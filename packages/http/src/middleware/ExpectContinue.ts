/**
 * `Expect: 100-continue` answered only once the request may send its body: Node answers `100
 * Continue` on arrival unless its server has a `checkContinue` listener, and then a client sends
 * its body before its key is checked. `Listener` holds the interim answer of every such request
 * (`hold`); `RequestBody.read` sends it (`release`) when it is about to read the body, after the
 * key and its permission passed. A request refused before then never gets it, and never sends its
 * body. A server that does not hold (a service mounting `Server.nodeHandler` on its own) sends it
 * on arrival, and `release` sends nothing twice.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"

const held = new WeakMap<IncomingMessage, ServerResponse>()

/** Keeps `request`'s `100 Continue` until `release`. @since 0.1.0 @category holding */
export const hold = (request: IncomingMessage, response: ServerResponse): void => {
  held.set(request, response)
}

/** Sends the current request's held `100 Continue`, once; nothing when none is held. @since 0.1.0 @category holding */
export const release = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void> =>
  Effect.sync(() => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const response = held.get(incoming)
    if (response === undefined) return
    held.delete(incoming)
    if (!response.headersSent) response.writeContinue()
  })
