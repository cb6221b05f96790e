/**
 * Headers as they came on the wire. Node keeps the first of several `Authorization` headers and
 * joins several `Idempotency-Key` headers with ", "; a proxy in front may read either another way,
 * so a request that sends one of them more than once is refused rather than guessed at.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"

/** How many times the header `name` (lower case) came with `request`; 0 or 1 when not served by Node. @since 0.1.0 @category headers */
export const count = (request: HttpServerRequest.HttpServerRequest, name: string): number => {
  const raw = NodeHttpServerRequest.toIncomingMessage(request)?.rawHeaders
  if (raw === undefined) return request.headers[name] === undefined ? 0 : 1
  let seen = 0
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) seen++
  return seen
}
