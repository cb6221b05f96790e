/**
 * The docs page (`GET /docs`, Scalar, served inline: 3.3 MB of HTML) sent compressed when the client
 * takes gzip, with an `ETag`, so that a browser asks again with `If-None-Match` and gets 304. The
 * page never changes while the server runs: it is compressed and hashed once.
 *
 * @since 0.1.0
 */
import { HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"

/** The page's path. @since 0.1.0 @category constants */
export const path = "/docs"

/** The path of the OpenAPI document the page shows. @since 0.1.0 @category constants */
export const openApiPath = "/v1/openapi.json"

interface Prepared {
  readonly etag: string
  readonly gzip: Uint8Array
}

// The page's body is one object for the server's life; what it gives is kept beside it.
const prepared = new WeakMap<Uint8Array, Prepared>()

const prepare = (body: Uint8Array): Prepared => {
  let done = prepared.get(body)
  if (done === undefined) {
    done = { etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`, gzip: gzipSync(body) }
    prepared.set(body, done)
  }
  return done
}

/**
 * `response` to `GET /docs` as the client can best take it: 304 when it holds the same page, else
 * the page gzipped when it accepts gzip; always with the `ETag`. Any other response as it is.
 *
 * @since 0.1.0
 * @category responses
 */
export const serve = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  if (request.url !== path || response.status !== 200 || response.body._tag !== "Uint8Array") return response
  const body = response.body.body
  const { etag, gzip } = prepare(body)
  const headers = { etag, vary: "Accept-Encoding" }
  if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
  if (!/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) return HttpServerResponse.setHeaders(response, headers)
  return HttpServerResponse.uint8Array(gzip, {
    contentType: response.body.contentType,
    headers: { ...headers, "content-encoding": "gzip" }
  })
}
