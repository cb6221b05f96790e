/**
 * The request being served: its `req_…` id, set by the envelope middleware and read by every
 * response so that `meta.request_id` and `X-Request-Id` agree.
 *
 * @since 0.1.0
 */
import { Clock, Effect, FiberRef } from "effect"
import { Timestamp } from "@sendline/core"

/** The `meta` of every envelope. @since 0.1.0 @category models */
export interface RequestMeta {
  readonly requestId: string
  /**
   * When the answer is made (epoch ms), if fixed before it is: an answer that may be computed again
   * for an idempotent replay carries the same time both times. Unset, it is the time it is made.
   */
  readonly answeredAt?: number | undefined
}

/** The current request's meta. @since 0.1.0 @category fiber refs */
export const current: FiberRef.FiberRef<RequestMeta> = FiberRef.unsafeMake<RequestMeta>({ requestId: "req_unknown" })

/** `meta` for a response sent now (or at the time fixed for it). @since 0.1.0 @category envelopes */
export const meta: Effect.Effect<{ readonly request_id: string; readonly timestamp: string }> = Effect.zipWith(
  FiberRef.get(current),
  Clock.currentTimeMillis,
  (m, now) => ({ request_id: m.requestId, timestamp: Timestamp.format(m.answeredAt ?? now) })
)
