/**
 * The `WebhookTransport` port: one HTTP POST of a signed delivery to a receiver, and what came back.
 * Only the webhook deliverer calls it. `@sendline/webhooks-node` implements it on Node, pinned to
 * the addresses the URL policy checked; `layerTest` answers from a function, for core's tests.
 *
 * Any answer but a redirect is a success here, whatever its status: the caller decides that only a
 * 2xx counts (CONTRACT §7) and records any other as `http_<status>`, with the answer's body for the
 * delivery log. A 3xx is not followed (a redirect could lead past the URL policy) and fails
 * `redirect`. Every other failure is a `TransportFailure` whose `reason` is the error class of the
 * delivery log.
 *
 * @since 0.1.0
 */
import { Context, type Effect, Layer, Schema } from "effect"

/** One delivery as sent: the URL, the headers (signatures included) and the exact body. @since 0.1.0 @category models */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** A receiver's answer. @since 0.1.0 @category models */
export interface WebhookResponse {
  /** The HTTP status, any but 3xx (2xx is a success for the caller, others `http_<status>`). */
  readonly status: number
  /** From the start of the post (resolving its name included) to the end of reading the answer, by `Clock`. */
  readonly durationMillis: number
  /** The first 4 KiB of the answer's body, as UTF-8 text (a character cut at the limit is dropped). */
  readonly body: string
}

/** The error classes of a delivery that got no usable answer. @since 0.1.0 @category models */
export const FailureReason = Schema.Literal(
  "timeout",
  "dns",
  "tls",
  "connection_refused",
  "connection_reset",
  "blocked_address",
  "redirect"
)
/** The error classes of a delivery that got no usable answer. @since 0.1.0 @category models */
export type FailureReason = typeof FailureReason.Type

/** The most of an answer's body a delivery keeps: 4 KiB. @since 0.1.0 @category constants */
export const keptBodyBytes = 4096

/**
 * A delivery that got no usable answer. `timeout`: no whole answer in time; `dns`: the name did not
 * resolve; `tls`: no TLS session (a certificate refused, not TLS at all); `connection_refused`: no
 * connection (refused, unreachable); `connection_reset`: the connection broke before the answer was
 * read; `blocked_address`: the URL or an address its name resolves to is not allowed by the URL
 * policy, and no connection was made; `redirect`: a 3xx answer (its `status` kept), not followed.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportFailure extends Schema.TaggedError<TransportFailure>("@sendline/core/TransportFailure")(
  "TransportFailure",
  {
    reason: FailureReason,
    message: Schema.String,
    /** From the start of the post to the failure, by `Clock`. */
    durationMillis: Schema.Number,
    /** The 3xx status of a `redirect`. */
    status: Schema.optional(Schema.Number),
    cause: Schema.optional(Schema.Defect)
  }
) {}

/** Posts webhook deliveries. @since 0.1.0 @category ports */
export class WebhookTransport extends Context.Tag("@sendline/core/WebhookTransport")<WebhookTransport, {
  /** POSTs `request.body` with its headers to `request.url`: any answer but a 3xx, or why there was none. */
  readonly post: (request: WebhookRequest) => Effect.Effect<WebhookResponse, TransportFailure>
}>() {}

/** A transport whose every post is answered by `answer`, for tests. @since 0.1.0 @category layers */
export const layerTest = (
  answer: (request: WebhookRequest) => Effect.Effect<WebhookResponse, TransportFailure>
): Layer.Layer<WebhookTransport> => Layer.succeed(WebhookTransport, WebhookTransport.of({ post: answer }))

/** The first `keptBodyBytes` of `bytes` as UTF-8 text, a character cut at the limit dropped. @since 0.1.0 @category utils */
export const keptBody = (bytes: Uint8Array): string =>
  new TextDecoder("utf-8").decode(bytes.subarray(0, keptBodyBytes), { stream: true })

/** A `TransportFailure` of `reason` after `durationMillis`, with a redirect's status or a cause. @since 0.1.0 @category constructors */
export const failure = (
  reason: FailureReason,
  message: string,
  durationMillis: number,
  extra: { readonly status?: number | undefined; readonly cause?: unknown } = {}
): TransportFailure =>
  new TransportFailure({
    reason,
    message,
    durationMillis,
    ...(extra.status === undefined ? {} : { status: extra.status }),
    ...(extra.cause === undefined ? {} : { cause: extra.cause })
  })
