/**
 * The request being served: its `req_…` id, set by the envelope middleware and read by every
 * response so that `meta.request_id` and `X-Request-Id` agree.
 *
 * @since 0.1.0
 */
import { Timestamp } from "@sendline/core"
import { Clock, Effect, FiberRef, HashMap } from "effect"

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

/**
 * Makes the current fiber's request the one with `requestId`: its `meta`, and a `request_id` on
 * every line logged from now on. Set, not scoped (`Effect.locally`): each request is handled in a
 * fiber of its own (the platform forks one per request), which ends with it, so there is nothing
 * to restore, and sparing the two scopes is a few µs a request.
 *
 * @since 0.1.0
 * @category fiber refs
 */
export const enter = (requestId: string): Effect.Effect<void> =>
  Effect.zipRight(
    FiberRef.set(current, { requestId }),
    FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("request_id", requestId))
  )

/** `meta` for a response sent now (or at the time fixed for it). @since 0.1.0 @category envelopes */
export const meta: Effect.Effect<{ readonly request_id: string; readonly timestamp: string }> = Effect.zipWith(
  FiberRef.get(current),
  Clock.currentTimeMillis,
  (m, now) => ({ request_id: m.requestId, timestamp: Timestamp.format(m.answeredAt ?? now) })
)
