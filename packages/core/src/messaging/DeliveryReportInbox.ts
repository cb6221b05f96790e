/**
 * The delivery-report port: where the reports a carrier sends back arrive, for the DeliveryReports
 * worker to take. Its own port beside `Carrier`, as a real network pushes its reports (SMPP
 * `deliver_sm`, an HTTP callback) on its own schedule, not as answers to submissions.
 *
 * A push-based adapter puts what it receives in a bounded `Queue` and answers `take` with
 * `Queue.takeUpTo`: while the worker takes nothing (its store is failing) the queue fills, the
 * adapter's pushes wait, and the rest of the reports stay with the network. One that polls its
 * network answers `take` with what the poll returns. `@sendline/carrier-mock` provides it beside
 * its `Carrier`.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import { Context, Schema } from "effect"
import { MessageError } from "./Message.js"

/** What the network finally did with a message. @since 0.1.0 @category models */
export const ReportOutcome = Schema.Literal("delivered", "undelivered")
/** What the network finally did with a message. @since 0.1.0 @category models */
export type ReportOutcome = typeof ReportOutcome.Type

/** A delivery report: the outcome of one accepted submission. @since 0.1.0 @category models */
export const DeliveryReport = Schema.Struct({
  /**
   * The submission's reference: the message id. Absent when the carrier's report names only its
   * own id (an SMPP receipt for a submission of an earlier process): the message is then found by
   * `carrierMessageId`, which the Dispatcher stored with it.
   */
  reference: Schema.optional(Schema.String),
  /** The submission's account, echoed back; absent exactly when `reference` is. */
  accountId: Schema.optional(Schema.String),
  /** The carrier's id for the message, as its acceptance answered (`CarrierReceipt.carrierMessageId`). */
  carrierMessageId: Schema.String,
  /** The name of the carrier the report came from, when several stand behind the inbox (a router's). */
  carrier: Schema.optional(Schema.String),
  outcome: ReportOutcome,
  /** Why it was not delivered; present when `outcome` is `undelivered`. */
  error: Schema.optional(MessageError),
  /** When the network delivered it or gave up (epoch milliseconds, the carrier's clock). */
  at: Schema.Number
})
/** A delivery report from the carrier. @since 0.1.0 @category models */
export type DeliveryReport = typeof DeliveryReport.Type

/** The delivery reports that have arrived from the carrier, oldest first. @since 0.1.0 @category ports */
export class DeliveryReportInbox extends Context.Tag("@sendline/core/DeliveryReportInbox")<DeliveryReportInbox, {
  /**
   * Takes up to `max` of the reports that have arrived, oldest first, without waiting. A report
   * taken leaves the inbox: the taker records it.
   */
  readonly take: (max: number) => Effect.Effect<ReadonlyArray<DeliveryReport>>
}>() {}
