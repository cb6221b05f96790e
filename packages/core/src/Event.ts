/**
 * Events: one row per state change, written in the same transaction as the change (the outbox).
 *
 * @since 0.1.0
 */
import type { EventType } from "@sendline/api/Event"
import * as Timestamp from "@sendline/api/Timestamp"

export {
  /** Every event type of INTERFACE.md. @since 0.1.0 @category models */
  EventType
} from "@sendline/api/Event"

/** An event `evt_…`; `data` is the JSON object receivers get. @since 0.1.0 @category models */
export interface Event {
  readonly id: string
  readonly accountId: string
  readonly type: EventType
  readonly subjectId: string
  readonly createdAt: number
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * An event as receivers get it (INTERFACE.md's Payload): `id`, `type`, `created_at`, `data`, in
 * that order: what a webhook delivery carries and what `GET /v1/events/{id}` answers.
 *
 * @since 0.1.0
 * @category encoding
 */
export const payload = (event: Event): EventPayload => ({
  id: event.id,
  type: event.type,
  created_at: Timestamp.format(event.createdAt),
  data: event.data
})

/** An event as receivers get it. @since 0.1.0 @category models */
export interface EventPayload {
  readonly id: string
  readonly type: EventType
  readonly created_at: string
  readonly data: Readonly<Record<string, unknown>>
}

/** The exact bytes a delivery of `event` sends, the same at every attempt: its `payload` as JSON. @since 0.1.0 @category encoding */
export const body = (event: Event): string => JSON.stringify(payload(event))
