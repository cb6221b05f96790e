/**
 * The messages this process submitted, remembered: each reference the SMSC accepted, for `retain`,
 * so that a resubmission is answered `duplicate`; and each part's carrier id, for three days (at
 * most 100,000 messages), so that a receipt finds its message and a concatenated one reports once.
 */
import type { Carrier, DeliveryReportInbox } from "@sendline/core"
import * as Receipts from "../Receipts.js"

/** A message whose parts were submitted: the carrier's id of each, and the receipts so far. */
interface Track {
  readonly reference: string
  readonly accountId: string
  readonly ids: Array<string | undefined>
  readonly receipts: Map<number, Receipts.Receipt>
  readonly since: number
  done: boolean
}

/** The memory of submitted messages. */
export interface Submitted {
  /** The first receipt of `reference`, answered `duplicate`, when the SMSC accepted it within `retain`. */
  readonly duplicateOf: (reference: string, now: number) => Carrier.CarrierReceipt | undefined
  /** A message about to be submitted in `parts` parts. */
  readonly track: (message: Carrier.Outbound, parts: number, now: number) => Track
  /** The SMSC accepted part `part` as `messageId`: its receipt will find the message. */
  readonly accept: (track: Track, part: number, messageId: string) => void
  /** The message stopped before all its parts were accepted: the ones that were report nothing. */
  readonly abandon: (track: Track) => void
  /** Every part was accepted: the message's receipt, remembered for `duplicate` answers. */
  readonly complete: (track: Track) => Carrier.CarrierReceipt
  /**
   * A receipt's report, once its message's parts have all reported (or one was not delivered);
   * `undefined` while other parts are awaited, or when the message has reported already.
   */
  readonly report: (
    receipt: Receipts.Receipt,
    outcome: "delivered" | "undelivered"
  ) => Omit<DeliveryReportInbox.DeliveryReport, "at"> | undefined
}

/** The tracking kept for receipts: at most this many messages, each for at most three days. */
const trackingLimit = 100_000
const trackingMillis = 3 * 86_400_000

/** Nothing submitted yet; references accepted are remembered `retain` milliseconds; receipts' `err` codes map through `errors`. */
export const make = (retain: number, errors: Receipts.Errors): Submitted => {
  /** Accepted references, oldest first, for `duplicate` answers. */
  const accepted = new Map<string, Carrier.CarrierReceipt>()
  /** Messages awaiting receipts, by the carrier's id of each of their parts; insertion order is age. */
  const tracking = new Map<string, Track>()

  const forget = (now: number) => {
    for (const [reference, receipt] of accepted) {
      if (receipt.acceptedAt >= now - retain) break
      accepted.delete(reference)
    }
    for (const [id, track] of tracking) {
      if (track.since >= now - trackingMillis && tracking.size <= trackingLimit) break
      tracking.delete(id)
    }
  }

  const remember = (track: Track): Carrier.CarrierReceipt => {
    const receipt: Carrier.CarrierReceipt = {
      carrierMessageId: track.ids[0]!,
      acceptedAt: track.since,
      duplicate: false
    }
    accepted.set(track.reference, receipt)
    return receipt
  }

  return {
    duplicateOf: (reference, now) => {
      forget(now)
      const first = accepted.get(reference)
      return first === undefined ? undefined : { ...first, duplicate: true }
    },
    track: (message, parts, now) => ({
      reference: message.reference,
      accountId: message.accountId,
      ids: Array.from({ length: parts }, () => undefined),
      receipts: new Map(),
      since: now,
      done: false
    }),
    accept: (track, part, messageId) => {
      track.ids[part] = messageId
      tracking.set(messageId, track)
      if (track.ids.every((id) => id !== undefined)) remember(track)
    },
    abandon: (track) => {
      track.done = true
    },
    complete: remember,
    report: (receipt, outcome) => {
      const error = outcome === "undelivered" ? { error: Receipts.error(receipt, errors) } : {}
      const track = tracking.get(receipt.id)
      // submitted by an earlier process (or forgotten): the message is found by the carrier's id
      if (track === undefined) return { carrierMessageId: receipt.id, outcome, ...error }
      if (track.done) return undefined
      track.receipts.set(track.ids.indexOf(receipt.id), receipt)
      if (outcome === "delivered" && track.receipts.size < track.ids.length) return undefined
      track.done = true
      return {
        reference: track.reference,
        accountId: track.accountId,
        carrierMessageId: track.ids[0]!,
        outcome,
        ...error
      }
    }
  }
}
