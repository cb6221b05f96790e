/**
 * Delivery receipts: each `deliver_sm` whose `esm_class` marks it a receipt, read (see `Receipts`),
 * matched to its message (see `submitted`) and queued as its report, at most `capacity` at once;
 * the SMSC has its acknowledgement once the report is queued. Other `deliver_sm`s (mobile-originated
 * messages) are acknowledged and ignored.
 */
import type { DeliveryReportInbox } from "@sendline/core"
import { Segments } from "@sendline/core"
import type { Scope } from "effect"
import { Clock, Effect, Queue, Runtime } from "effect"
import type smpp from "smpp"
import * as Receipts from "../Receipts.js"
import type { Receive } from "./session.js"
import type { Submitted } from "./submitted.js"

/** The receipts' queue, filled from the session and taken by the DeliveryReports worker. */
export interface ReceiptInbox {
  readonly receive: Receive
  readonly take: (max: number) => Effect.Effect<ReadonlyArray<DeliveryReportInbox.DeliveryReport>>
}

/** The text of a receipt's `deliver_sm`: its `short_message`, else its `message_payload`, as the bytes were sent. */
const receiptText = (pdu: smpp.Pdu): string => {
  const read = (value: unknown): string => {
    const message = typeof value === "object" && value !== null && !Buffer.isBuffer(value) && "message" in value
      ? (value as { readonly message: unknown }).message
      : value
    if (Buffer.isBuffer(message)) return message.toString("latin1")
    if (typeof message !== "string") return ""
    // The package decodes data_coding 0 and 1 as GSM 03.38; receipts are ASCII: its bytes back.
    const coding = Number(pdu["data_coding"] ?? 0) & 0x0f
    const septets = coding <= 1 ? Segments.gsm7Septets(message) : undefined
    return septets === undefined ? message : Buffer.from(septets).toString("latin1")
  }
  const text = read(pdu["short_message"])
  return text !== "" ? text : read(pdu["message_payload"])
}

/** An empty queue of `capacity` reports, shut down with the scope. */
export const make = (capacity: number, submitted: Submitted): Effect.Effect<ReceiptInbox, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const reports = yield* Effect.acquireRelease(
      Queue.bounded<DeliveryReportInbox.DeliveryReport>(capacity),
      Queue.shutdown
    )

    const receive: Receive = (pdu, acknowledge) => {
      if (!Receipts.isReceipt(Number(pdu["esm_class"] ?? 0))) {
        acknowledge()
        runFork(Effect.logDebug(`SMPP: a mobile-originated message from ${String(pdu["source_addr"])} ignored`))
        return
      }
      const receiptedMessageId = pdu["receipted_message_id"]
      const messageState = pdu["message_state"]
      const receipt = Receipts.parse(receiptText(pdu), {
        receiptedMessageId: typeof receiptedMessageId === "string" ? receiptedMessageId : undefined,
        messageState: typeof messageState === "number" ? messageState : undefined
      })
      const outcome = receipt === undefined ? undefined : Receipts.outcome(receipt.stat)
      if (receipt === undefined || outcome === undefined) {
        acknowledge()
        if (receipt === undefined) {
          runFork(Effect.logWarning("SMPP: a delivery receipt without id or stat acknowledged and ignored"))
        }
        return
      }
      // The tracking is read and written now, before the next PDU of the stream is handled; the
      // SMSC has its acknowledgement once the report is queued (it waits while the queue is full).
      const report = submitted.report(receipt, outcome)
      runFork(
        Effect.flatMap(
          Clock.currentTimeMillis,
          (at) =>
            (report === undefined ? Effect.void : Queue.offer(reports, { ...report, at })).pipe(
              Effect.zipRight(Effect.sync(acknowledge))
            )
        )
      )
    }

    const take = (max: number) =>
      Effect.map(
        Queue.takeUpTo(reports, Math.max(0, max)),
        (chunk): ReadonlyArray<DeliveryReportInbox.DeliveryReport> => Array.from(chunk)
      )

    return { receive, take }
  })
