/**
 * Storage port for the size of the workers' queues, read when metrics are scraped: for each queue
 * kept in the store, how many items are due now and since when the longest due of them has waited.
 * A store answers from the partial indexes its workers claim through, counting at most `limit`
 * items of each, so that a scrape costs a few index reads however long a queue grows.
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import type { Effect } from "effect"
import { Context, Schema } from "effect"

/**
 * The queues kept in the store, by the worker that works them: `dispatch` (queued messages),
 * `scheduled` (scheduled messages whose time has come), `mail` (pending mails due), `webhook_deliveries`
 * (pending deliveries due) and `expiry` (Sender IDs the ExpiryWatcher must look at).
 *
 * @since 0.1.0
 * @category models
 */
export const StoredQueue = Schema.Literal("dispatch", "scheduled", "mail", "webhook_deliveries", "expiry")
/** A queue kept in the store. @since 0.1.0 @category models */
export type StoredQueue = typeof StoredQueue.Type

/** One queue's backlog at a time. @since 0.1.0 @category models */
export interface Depth {
  readonly queue: StoredQueue
  /** The items due (claimed or not), at most the `limit` asked for. */
  readonly due: number
  /** When the longest due of them fell due (epoch ms); undefined when none is due. */
  readonly oldestDueAt: number | undefined
}

/** The backlogs of the store's queues. @since 0.1.0 @category ports */
export class QueueDepths extends Context.Tag("@sendline/core/QueueDepths")<QueueDepths, {
  /**
   * Each stored queue's `Depth` at `now`, every queue once, in `StoredQueue`'s order; `due` counts
   * at most `limit` items, so that the read stays bounded.
   */
  readonly read: (now: number, limit: number) => Effect.Effect<ReadonlyArray<Depth>, StoreUnavailable>
}>() {}
