/**
 * The Node `WebhookTransport` of `@sendline/core`, on undici's `request` (a dispatcher's, with a
 * callback: no `HttpClient`, no stream, no fiber per post).
 *
 * Each post checks the URL against the URL policy, resolves its host name through the
 * `HostResolver`, checks every address it resolves to (one blocked address refuses the delivery,
 * `blocked_address`, before any connection), and connects only to those checked addresses: it goes
 * through a connection pool pinned to them (undici's connector with a `lookup` that answers with
 * exactly those addresses), so no second resolution can rebind the name. The pool is kept for the
 * next posts to the same name while it resolves to the same addresses (keep-alive: no connection,
 * nor TLS handshake, per delivery); the 256 most recently used are kept. The `Host` header and TLS
 * SNI (and the certificate check) stay the URL's name. A whole post (the resolution, the
 * connection, the answer and its body) has 10 seconds by default (`timeout`), kept by one timer
 * that aborts the request (and the fiber's interruption aborts it too); a 3xx is not followed
 * (`redirect`); the answer's body is read up to 64 KiB (`maxBodyBytes`), the rest dropped with the
 * connection, and its first 4 KiB kept. No span and no `traceparent` go with a post.
 *
 * @since 0.1.0
 */
import { UrlPolicy, WebhookTransport } from "@sendline/core"
import type { ConfigError } from "effect"
import { Config, Data, Duration, Effect, Layer } from "effect"
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
 * How many pinned pools are kept, each for one host name and the addresses checked for it: the
 * least recently used beyond it is closed once its posts can have ended (after the timeout).
 */
const maxPools = 256

/** Whether `headers` has a `Content-Type`, whatever its case. */
const hasContentType = (headers: Readonly<Record<string, string>>): boolean =>
  Object.keys(headers).some((name) => name.toLowerCase() === "content-type")

/** What one exchange ended with, before its duration is known. */
type Exchange =
  | { readonly _tag: "Answered"; readonly status: number; readonly body: string }
  | { readonly _tag: "Failed"; readonly problem: Problem }

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
    const timeoutMillis = Duration.toMillis(timeout)
    const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes
    const { policy } = options

    // A connection pool per host name and set of checked addresses, whose `lookup` answers with
    // exactly those addresses, its connections kept alive between posts: a name that resolves as
    // before reuses them, one that resolves elsewhere (a rebinding) gets another pool, checked as
    // every resolution is. Least recently used first in the map's order; every pool is closed with
    // the layer.
    const pools = new Map<string, Undici.Dispatcher>()
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => Promise.all([...pools.values()].map((pool) => pool.destroy())))
    )
    const poolFor = (host: string, addresses: ReadonlyArray<HostResolver.ResolvedAddress>): Undici.Dispatcher => {
      const key = addresses.length === 1
        ? `${host} ${addresses[0]!.address}`
        : `${host} ${addresses.map(({ address }) => address).sort().join(" ")}`
      const kept = pools.get(key)
      if (kept !== undefined) {
        pools.delete(key)
        pools.set(key, kept)
        return kept
      }
      const pool = new Undici.Agent({ connect: { lookup: pinnedLookup(addresses) } })
      pools.set(key, pool)
      for (const [oldest, evicted] of pools) {
        if (pools.size <= maxPools) break
        pools.delete(oldest)
        // its posts in flight end within the timeout; then its connections close
        setTimeout(() => void evicted.destroy(), timeoutMillis + 1_000).unref()
      }
      return pool
    }

    /** The addresses a host name resolves to, each allowed by the policy, within `millis`. */
    const resolved = (host: string, millis: number) =>
      resolver.resolve(host).pipe(
        Effect.mapError((error) => new Problem({ reason: "dns", message: error.message, cause: error })),
        Effect.timeoutFail({
          duration: Duration.millis(millis),
          onTimeout: () =>
            new Problem({ reason: "timeout", message: `no whole answer within ${Duration.format(timeout)}` })
        })
      )

    /** The first address of `addresses` the policy does not allow, as the failure it causes. */
    const blockedAmong = (
      host: string,
      addresses: ReadonlyArray<HostResolver.ResolvedAddress>
    ): Problem | undefined => {
      if (policy.allowPrivate) return undefined
      const blocked = addresses.find(({ address }) => UrlPolicy.isPrivateHost(address))
      return blocked === undefined ? undefined : new Problem({
        reason: "blocked_address",
        message: `${host} resolves to ${blocked.address}, which the URL policy does not allow`
      })
    }

    /**
     * One POST to the checked addresses, through the pool pinned to them, with `millis` left for it
     * whole: one timer aborts it (the answer's body included) when they have passed, as does the
     * fiber's interruption. The answer's body is read up to `maxBodyBytes`, its first 4 KiB kept;
     * then the rest is dropped with the connection.
     */
    const exchange = (
      request: WebhookTransport.WebhookRequest,
      url: URL,
      addresses: ReadonlyArray<HostResolver.ResolvedAddress>,
      millis: number
    ) =>
      Effect.async<Exchange>((resume) => {
        const controller = new AbortController()
        let timedOut = false
        let done = false
        const end = (exchange: Exchange) => {
          if (done) return
          done = true
          clearTimeout(timer)
          resume(Effect.succeed(exchange))
        }
        const failed = (error: unknown) =>
          end({
            _tag: "Failed",
            problem: timedOut
              ? new Problem({ reason: "timeout", message: `no whole answer within ${Duration.format(timeout)}` })
              : new Problem({ reason: reasonOf(error), message: describe(error), cause: error })
          })
        const timer = setTimeout(() => {
          timedOut = true
          controller.abort()
        }, Math.max(0, millis))
        const headers = hasContentType(request.headers)
          ? request.headers
          : { ...request.headers, "content-type": "application/json" }
        poolFor(url.hostname, addresses).request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: "POST",
          headers,
          body: request.body,
          signal: controller.signal
        }, (error, response) => {
          if (error !== null) return failed(error)
          const { body, statusCode: status } = response
          const kept: Array<Buffer> = []
          let keptBytes = 0
          let read = 0
          if (status >= 300 && status < 400) {
            // not followed, nor read: the connection goes with the body
            body.on("error", () => {})
            body.destroy()
            const location = response.headers["location"]
            return end({
              _tag: "Failed",
              problem: new Problem({
                reason: "redirect",
                message: `answered ${status}${location === undefined ? "" : ` to ${String(location)}`}, not followed`,
                status
              })
            })
          }
          const finish = () => {
            const bytes = kept.length === 1 ? kept[0]! : Buffer.concat(kept)
            end({ _tag: "Answered", status, body: bytes.length === 0 ? "" : WebhookTransport.keptBody(bytes) })
          }
          body.on("error", failed)
          body.on("end", finish)
          body.on("data", (chunk: Buffer) => {
            if (keptBytes < WebhookTransport.keptBodyBytes) {
              const part = chunk.subarray(0, WebhookTransport.keptBodyBytes - keptBytes)
              kept.push(part)
              keptBytes += part.length
            }
            read += chunk.length
            if (read >= maxBodyBytes) {
              // the rest is never read: the connection goes with it
              body.destroy()
              finish()
            }
          })
        })
        return Effect.sync(() => {
          if (done) return
          done = true
          clearTimeout(timer)
          controller.abort()
        })
      })

    const post = (request: WebhookTransport.WebhookRequest): Effect.Effect<
      WebhookTransport.WebhookResponse,
      WebhookTransport.TransportFailure
    > =>
      Effect.clockWith((clock) => {
        const start = clock.unsafeCurrentTimeMillis()
        const settle = (exchange: Exchange) => {
          const durationMillis = clock.unsafeCurrentTimeMillis() - start
          if (exchange._tag === "Answered") {
            return Effect.succeed({ status: exchange.status, durationMillis, body: exchange.body })
          }
          const { cause, message, reason, status } = exchange.problem
          return Effect.fail(WebhookTransport.failure(reason, message, durationMillis, { status, cause }))
        }
        const failWith = (problem: Problem) => settle({ _tag: "Failed", problem })
        if (!UrlPolicy.allows(request.url, policy)) {
          return failWith(new Problem({ reason: "blocked_address", message: "the URL policy does not allow this URL" }))
        }
        const url = new URL(request.url)
        const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
        const send = (addresses: ReadonlyArray<HostResolver.ResolvedAddress>) => {
          const blocked = blockedAmong(host, addresses)
          if (blocked !== undefined) return failWith(blocked)
          const left = timeoutMillis - (clock.unsafeCurrentTimeMillis() - start)
          return Effect.flatMap(exchange(request, url, addresses, left), settle)
        }
        return isIP(host) !== 0
          ? send([{ address: host, family: HostResolver.familyOf(host) }])
          : Effect.matchEffect(resolved(host, timeoutMillis), { onFailure: failWith, onSuccess: send })
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
