/**
 * The Node `WebhookTransport` of `@sendline/core`, on `@effect/platform`'s `HttpClient` over undici
 * (`@effect/platform-node`'s `NodeHttpClient.makeUndici`).
 *
 * Each post checks the URL against the URL policy, resolves its host name through the
 * `HostResolver`, checks every address it resolves to (one blocked address refuses the delivery,
 * `blocked_address`, before any connection), and connects only to those checked addresses: it goes
 * through a connection pool pinned to them (undici's connector with a `lookup` that answers with
 * exactly those addresses), so no second resolution can rebind the name. The pool is kept for the
 * next posts to the same name while it resolves to the same addresses (keep-alive: no connection,
 * nor TLS handshake, per delivery); the 256 most recently used are kept. The `Host` header and TLS
 * SNI (and the certificate check) stay the URL's name. A whole post (the resolution, the
 * connection, the answer and its body) has 10 seconds by default (`timeout`); a 3xx is not followed
 * (`redirect`); the answer's body is read up to 64 KiB (`maxBodyBytes`), the rest dropped with the
 * connection, and its first 4 KiB kept. No span and no `traceparent` go with a post.
 *
 * @since 0.1.0
 */
import type { HttpClientError } from "@effect/platform"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { UrlPolicy, WebhookTransport } from "@sendline/core"
import type { ConfigError, Scope } from "effect"
import { Clock, Config, Data, Duration, Effect, Either, Layer, Stream } from "effect"
import type { LookupFunction } from "node:net"
import { isIP } from "node:net"
import * as Undici from "undici"
import * as HostResolver from "./HostResolver.js"

/** How posts are checked and bounded. @since 0.1.0 @category models */
export interface Options {
  /** Whether http and private addresses are allowed (`WEBHOOK_ALLOW_HTTP`, `WEBHOOK_ALLOW_PRIVATE`). */
  readonly policy: UrlPolicy.UrlPolicy
  /** How long a whole post may take, resolution to the end of the body (default 10 seconds). */
  readonly timeout?: Duration.DurationInput | undefined
  /** How much of an answer's body is read before the rest is dropped (default 64 KiB). */
  readonly maxBodyBytes?: number | undefined
}

/** The default `timeout`, CONTRACT §7's 10 seconds. @since 0.1.0 @category constants */
export const defaultTimeout: Duration.Duration = Duration.seconds(10)

/** The default `maxBodyBytes`: 64 KiB. @since 0.1.0 @category constants */
export const defaultMaxBodyBytes = 64 * 1024

/** A failure before its duration is known: becomes a `TransportFailure` at the end of the post. */
class Problem extends Data.TaggedError("Problem")<{
  readonly reason: WebhookTransport.FailureReason
  readonly message: string
  readonly status?: number | undefined
  readonly cause?: unknown
}> {}

/** The `code` of a Node error, or of the first error in its chain of causes that has one. */
const codeOf = (error: unknown): string | undefined => {
  for (let current = error, depth = 0; typeof current === "object" && current !== null && depth < 8; depth++) {
    const { cause, code } = current as { readonly code?: unknown; readonly cause?: unknown }
    if (typeof code === "string") return code
    current = cause
  }
  return undefined
}

const refused = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EHOSTDOWN", "EADDRNOTAVAIL"])
const unresolved = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME"])
const tlsCode =
  /^(ERR_SSL_|ERR_TLS_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|EPROTO$)/

/**
 * The error class of a failed connection, request or body read, by its Node error code: refused or
 * unreachable, a resolution, TLS, a socket timeout; anything else broke an open connection.
 *
 * @since 0.1.0
 * @category errors
 */
export const reasonOf = (error: unknown): WebhookTransport.FailureReason => {
  const code = codeOf(error)
  if (code === undefined) return "connection_reset"
  if (refused.has(code)) return "connection_refused"
  if (unresolved.has(code)) return "dns"
  if (code === "ETIMEDOUT") return "timeout"
  if (tlsCode.test(code)) return "tls"
  return "connection_reset"
}

/** The deepest message of an error chain, with its code: what the delivery log shows. */
const describe = (error: unknown): string => {
  let current = error
  while (typeof current === "object" && current !== null && "cause" in current && current.cause !== undefined) {
    current = current.cause
  }
  const text = current instanceof Error ? current.message : String(current)
  const code = codeOf(error)
  return code === undefined || text.includes(code) ? text : `${code}: ${text}`
}

/** A `lookup` that answers every resolution with `addresses`, the ones the policy checked. */
const pinnedLookup =
  (addresses: ReadonlyArray<HostResolver.ResolvedAddress>): LookupFunction => (_hostname, options, callback) => {
    if (options.all === true) return callback(null, addresses.map(({ address, family }) => ({ address, family })))
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined
    const first = addresses.find(({ family }) => wanted === undefined || family === wanted) ?? addresses[0]!
    callback(null, first.address, first.family)
  }

/**
 * How many pinned clients are kept, each for one host name and the addresses checked for it: the
 * least recently used beyond it is closed once its posts can have ended (after the timeout).
 */
const maxClients = 256

/** A client whose request lasts as long as the scope it runs in. */
type ScopedClient = HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>

/** A pinned client and the dispatcher (connection pool) under it. */
interface Pinned {
  readonly client: ScopedClient
  readonly dispatcher: Undici.Dispatcher
}

/** The `Content-Type` among `headers`, whatever its case. */
const contentTypeOf = (headers: Readonly<Record<string, string>>): string | undefined =>
  Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type")?.[1]

/**
 * A `WebhookTransport` under `options`, resolving names through the `HostResolver`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const resolver = yield* HostResolver.HostResolver
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes
    const { policy } = options

    // A client per host name and set of checked addresses, over a connection pool of its own whose
    // `lookup` answers with exactly those addresses, its connections kept alive between posts: a
    // name that resolves as before reuses them, one that resolves elsewhere (a rebinding) gets
    // another pool, checked as every resolution is. Least recently used first in the map's order;
    // every pool is closed with the layer.
    const clients = new Map<string, Pinned>()
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => Promise.all([...clients.values()].map(({ dispatcher }) => dispatcher.destroy())))
    )
    const clientFor = (host: string, addresses: ReadonlyArray<HostResolver.ResolvedAddress>): ScopedClient => {
      const key = `${host} ${addresses.map(({ address }) => address).sort().join(" ")}`
      const kept = clients.get(key)
      if (kept !== undefined) {
        clients.delete(key)
        clients.set(key, kept)
        return kept.client
      }
      const dispatcher = new Undici.Agent({ connect: { lookup: pinnedLookup(addresses) } })
      // no span per request and no `traceparent` to the receiver: a delivery tells it nothing of ours
      const client = NodeHttpClient.makeUndici(dispatcher).pipe(
        HttpClient.withTracerDisabledWhen(() => true),
        HttpClient.withTracerPropagation(false),
        HttpClient.withScope
      )
      clients.set(key, { client, dispatcher })
      for (const [oldest, evicted] of clients) {
        if (clients.size <= maxClients) break
        clients.delete(oldest)
        // its posts in flight end within the timeout; then its connections close
        setTimeout(() => void evicted.dispatcher.destroy(), Duration.toMillis(timeout) + 1_000).unref()
      }
      return client
    }

    /** The addresses `url` may be reached at: its IP, or all its name resolves to, each allowed. */
    const checkedAddresses = (url: URL) =>
      Effect.gen(function*() {
        const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
        const addresses = isIP(host) !== 0
          ? [{ address: host, family: HostResolver.familyOf(host) }]
          : yield* Effect.mapError(
            resolver.resolve(host),
            (error) => new Problem({ reason: "dns", message: error.message, cause: error })
          )
        const blocked = policy.allowPrivate
          ? undefined
          : addresses.find(({ address }) => UrlPolicy.isPrivateHost(address))
        if (blocked !== undefined) {
          return yield* new Problem({
            reason: "blocked_address",
            message: `${host} resolves to ${blocked.address}, which the URL policy does not allow`
          })
        }
        return addresses
      })

    /** Reads up to `maxBodyBytes` of `body`, keeping the first 4 KiB; the rest is never read. */
    const readBody = <E>(body: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function*() {
        const kept: Array<Uint8Array> = []
        let keptBytes = 0
        let read = 0
        yield* Stream.runForEachWhile(body, (chunk) =>
          Effect.sync(() => {
            if (keptBytes < WebhookTransport.keptBodyBytes) {
              const part = chunk.subarray(0, WebhookTransport.keptBodyBytes - keptBytes)
              kept.push(part)
              keptBytes += part.length
            }
            read += chunk.length
            return read < maxBodyBytes
          }))
        return WebhookTransport.keptBody(Buffer.concat(kept))
      })

    /** One post to the checked addresses, through the client pinned to them; its request ends with the scope. */
    const send = (
      request: WebhookTransport.WebhookRequest,
      url: URL,
      addresses: ReadonlyArray<HostResolver.ResolvedAddress>
    ) =>
      Effect.gen(function*() {
        const client = clientFor(url.hostname, addresses)
        const response = yield* client.execute(
          HttpClientRequest.post(request.url).pipe(
            HttpClientRequest.bodyText(request.body, contentTypeOf(request.headers) ?? "application/json"),
            HttpClientRequest.setHeaders(request.headers)
          )
        )
        if (response.status >= 300 && response.status < 400) {
          const location = response.headers["location"]
          return yield* new Problem({
            reason: "redirect",
            message: `answered ${response.status}${location === undefined ? "" : ` to ${location}`}, not followed`,
            status: response.status
          })
        }
        // An answer that says its length, within the bound, is read whole (the common case, and
        // ~0.3 ms cheaper than a stream); any other is read as a stream up to the bound.
        const length = Number(response.headers["content-length"] ?? Number.NaN)
        const body = length <= maxBodyBytes
          ? WebhookTransport.keptBody(new Uint8Array(yield* response.arrayBuffer))
          : yield* readBody(response.stream)
        return { status: response.status, body }
      }).pipe(
        Effect.catchTags({
          RequestError: (error) =>
            Effect.fail(new Problem({ reason: reasonOf(error.cause), message: describe(error), cause: error })),
          ResponseError: (error) =>
            Effect.fail(new Problem({ reason: reasonOf(error.cause), message: describe(error), cause: error }))
        }),
        Effect.scoped
      )

    const attempt = (request: WebhookTransport.WebhookRequest) =>
      Effect.gen(function*() {
        if (!UrlPolicy.allows(request.url, policy)) {
          return yield* new Problem({ reason: "blocked_address", message: "the URL policy does not allow this URL" })
        }
        const url = new URL(request.url)
        const addresses = yield* checkedAddresses(url)
        return yield* send(request, url, addresses)
      })

    const post = (request: WebhookTransport.WebhookRequest) =>
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        const result = yield* attempt(request).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () =>
              new Problem({ reason: "timeout", message: `no whole answer within ${Duration.format(timeout)}` })
          }),
          Effect.either
        )
        const durationMillis = (yield* Clock.currentTimeMillis) - start
        return yield* Either.match(result, {
          onLeft: ({ cause, message, reason, status }) =>
            Effect.fail(WebhookTransport.failure(reason, message, durationMillis, { status, cause })),
          onRight: ({ body, status }) => Effect.succeed({ status, durationMillis, body })
        })
      })

    return WebhookTransport.WebhookTransport.of({ post })
  })

/** The transport, resolving names through a `HostResolver` of the caller's. @since 0.1.0 @category layers */
export const layerWithoutResolver = (
  options: Options
): Layer.Layer<WebhookTransport.WebhookTransport, never, HostResolver.HostResolver> =>
  Layer.scoped(WebhookTransport.WebhookTransport, make(options))

/** The transport, resolving names through the system (`node:dns`). @since 0.1.0 @category layers */
export const layer = (options: Options): Layer.Layer<WebhookTransport.WebhookTransport> =>
  Layer.provide(layerWithoutResolver(options), HostResolver.layer)

/** `layer` with its options read from configuration. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<WebhookTransport.WebhookTransport, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
