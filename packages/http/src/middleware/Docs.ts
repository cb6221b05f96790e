/**
 * The docs page (`GET /docs`, Scalar, served inline: 3.3 MB of HTML): configured to render offline,
 * every request it makes going to the server that sent it, and sent compressed when the client
 * takes gzip, with an `ETag`, so that a browser asks again with `If-None-Match` and gets 304. The
 * page never changes while the server runs: it is compressed and hashed once.
 *
 * @since 0.1.0
 */
import { HttpServerResponse } from "@effect/platform"
import type { HttpApiScalar, HttpServerRequest } from "@effect/platform"
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"

/** The page's path. @since 0.1.0 @category constants */
export const path = "/docs"

/** The path of the OpenAPI document the page shows. @since 0.1.0 @category constants */
export const openApiPath = "/v1/openapi.json"

// A speech bubble on a green square: the page's icon, inline, so that no browser asks for one.
const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="7" fill="#0a7d55"/><path d="M8 10h16v10h-9l-5 4v-4H8z" fill="#fff"/></svg>`

/** Options Scalar takes that the platform's `ScalarConfig` does not name. */
interface ScalarExtras {
  /** "never": no toolbar, whose Share button uploads the document to scalar.com. */
  readonly showToolbar: "always" | "localhost" | "never"
  /** false: the API client reports no event to api.scalar.com. */
  readonly telemetry: boolean
}

/**
 * The page's Scalar options: it requests nothing from another host (no web fonts, no toolbar, no
 * telemetry, an inline icon) and lists every operation on load, each group open.
 *
 * @since 0.1.0
 * @category constants
 */
export const scalar: HttpApiScalar.ScalarConfig & ScalarExtras = {
  withDefaultFonts: false,
  defaultOpenAllTags: true,
  // Scalar types the icon's <link> by the URL's last ".": the fragment makes it image/svg+xml.
  favicon: `data:image/svg+xml,${encodeURIComponent(icon)}#.svg+xml`,
  showToolbar: "never",
  telemetry: false
}

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
  if (!/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) {
    return HttpServerResponse.setHeaders(response, headers)
  }
  return HttpServerResponse.uint8Array(gzip, {
    contentType: response.body.contentType,
    headers: { ...headers, "content-encoding": "gzip" }
  })
}
