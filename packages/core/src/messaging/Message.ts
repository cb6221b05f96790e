/**
 * Messages (CONTRACT §3): the record, its statuses, list filters and keyset positions.
 *
 * @since 0.1.0
 */
import { Encoding, MessageError, MessageStatus, Price } from "@sendline/api/messaging/MessageJson"
import { Schema } from "effect"

export {
  /** Body encodings, as the API names them. @since 0.1.0 @category models */
  Encoding,
  /** Why a message failed or was not delivered, as the API shows it. @since 0.1.0 @category models */
  MessageError,
  /** Message statuses, as the API names them. @since 0.1.0 @category models */
  MessageStatus
} from "@sendline/api/messaging/MessageJson"

/** A message `msg_…`; timestamps are epoch milliseconds. @since 0.1.0 @category models */
export const Message = Schema.Struct({
  id: Schema.String,
  accountId: Schema.String,
  status: MessageStatus,
  to: Schema.String,
  senderId: Schema.String,
  body: Schema.String,
  segments: Schema.Number,
  encoding: Encoding,
  market: Schema.String,
  reference: Schema.optional(Schema.String),
  callbackUrl: Schema.optional(Schema.String),
  price: Price,
  createdAt: Schema.Number,
  scheduledAt: Schema.optional(Schema.Number),
  sentAt: Schema.optional(Schema.Number),
  deliveredAt: Schema.optional(Schema.Number),
  error: Schema.optional(MessageError),
  /**
   * The carrier's own id for the message, from its acceptance (`CarrierReceipt.carrierMessageId`):
   * a delivery report that names only that id (an SMPP receipt after a restart) finds the message by it.
   */
  carrierMessageId: Schema.optional(Schema.String),
  /** The name of the carrier that accepted it (CONTRACT §11): receipts are matched by it; not shown in the API. */
  carrier: Schema.optional(Schema.String),
  /** The `Idempotency-Key` it was sent with: a retry of that send finds it instead of sending again. */
  idempotencyKey: Schema.optional(Schema.String),
  /** The batch `bat_…` it was sent in (since 0.3.0), if any. */
  batchId: Schema.optional(Schema.String)
})
/** A message `msg_…`. @since 0.1.0 @category models */
export type Message = typeof Message.Type

/** List filters of CONTRACT §3, already validated; dates are epoch milliseconds, both inclusive. @since 0.1.0 @category models */
export interface MessageFilter {
  readonly market?: string | undefined
  readonly status?: MessageStatus | undefined
  readonly senderId?: string | undefined
  readonly reference?: string | undefined
  /** Only the messages of this batch (since 0.3.0). */
  readonly batchId?: string | undefined
  /** The first `createdAt` listed. */
  readonly from?: number | undefined
  /** The last `createdAt` listed (not the recipient, which is `Message.to`). */
  readonly to?: number | undefined
}

/** A keyset position: the last row's `createdAt` and `id` (newest first). @since 0.1.0 @category models */
export interface Keyset {
  readonly createdAt: number
  readonly id: string
}
