/**
 * SMPP delivery receipts: the text of a `deliver_sm` whose `esm_class` marks it a receipt
 * (`id:… sub:… dlvrd:… submit date:… done date:… stat:… err:… text:…`, SMPP 3.4 appendix B), and
 * the final states it reports. `DELIVRD` is `delivered`; `UNDELIV`, `EXPIRED`, `REJECTD`, `DELETED`
 * and `UNKNOWN` are `undelivered`; `ACCEPTD` and `ENROUTE` are not final and change nothing. An
 * undelivered message's `error` is normalised (CONTRACT §11): its `err` through the carrier's
 * `errors` map, else by its state; `carrier_code` keeps both (`UNDELIV:001`).
 *
 * @since 0.1.0
 */
import type { Routes } from "@sendline/core"

/** A normalised carrier error code (CONTRACT §11). @since 0.2.0 @category models */
export type CarrierErrorCode = NonNullable<Routes.CarrierEntry["errors"]>[string]

/** A carrier's map of its receipts' `err` codes to normalised ones (the routes file's `errors`). @since 0.2.0 @category models */
export type Errors = Readonly<Record<string, CarrierErrorCode>>

/** What a receipt says, as read from its text and TLVs. @since 0.1.0 @category models */
export interface Receipt {
  /** The carrier's id of the message: the `receipted_message_id` TLV where present, else the text's `id`. */
  readonly id: string
  /** The state, upper case (`DELIVRD`); from the text's `stat`, else the `message_state` TLV. */
  readonly stat: string
  /** The network's error code (the text's `err`), when given. */
  readonly err: string | undefined
}

/** The final states a receipt may report, delivered first. @since 0.1.0 @category constants */
export const finalStats = ["DELIVRD", "UNDELIV", "EXPIRED", "REJECTD", "DELETED", "UNKNOWN"] as const

/** A final state. @since 0.1.0 @category models */
export type FinalStat = typeof finalStats[number]

/** The `message_state` TLV's values (SMPP 3.4 §5.2.28) as the states a receipt's text names. @since 0.1.0 @category constants */
export const messageStates: ReadonlyMap<number, string> = new Map([
  [1, "ENROUTE"],
  [2, "DELIVRD"],
  [3, "EXPIRED"],
  [4, "DELETED"],
  [5, "UNDELIV"],
  [6, "ACCEPTD"],
  [7, "UNKNOWN"],
  [8, "REJECTD"]
])

/** Whether `esm_class` marks a `deliver_sm` as a delivery receipt (message type bits 2–5 = 0001). @since 0.1.0 @category parsing */
export const isReceipt = (esmClass: number): boolean => (esmClass & 0x3c) === 0x04

/** The value of `key:` in a receipt text, up to the next space. */
const field = (text: string, key: string): string | undefined =>
  new RegExp(`(?:^|\\s)${key}:(\\S*)`, "i").exec(text)?.[1]

/**
 * Reads a receipt from its text and TLVs; `undefined` when it names no id or no state.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  text: string,
  tlvs: { readonly receiptedMessageId?: string | undefined; readonly messageState?: number | undefined } = {}
): Receipt | undefined => {
  const id = tlvs.receiptedMessageId !== undefined && tlvs.receiptedMessageId !== ""
    ? tlvs.receiptedMessageId
    : field(text, "id")
  const stat = field(text, "stat")?.toUpperCase() ??
    (tlvs.messageState === undefined ? undefined : messageStates.get(tlvs.messageState))
  if (id === undefined || id === "" || stat === undefined || stat === "") return undefined
  return { id, stat, err: field(text, "err") }
}

/** What a final state makes of the message; `undefined` for a state that is not final. @since 0.1.0 @category parsing */
export const outcome = (stat: string): "delivered" | "undelivered" | undefined =>
  stat === "DELIVRD" ? "delivered" : (finalStats as ReadonlyArray<string>).includes(stat) ? "undelivered" : undefined

/** The normalised code of each final state other than `DELIVRD`, when no `errors` entry names its `err`. @since 0.2.0 @category constants */
export const statCodes: Readonly<Record<Exclude<FinalStat, "DELIVRD">, CarrierErrorCode>> = {
  EXPIRED: "expired",
  REJECTD: "rejected_by_carrier",
  UNDELIV: "carrier_error",
  UNKNOWN: "carrier_error",
  DELETED: "carrier_error"
}

/**
 * The message's `error` for a final state other than `DELIVRD`: `code` from `errors` by the
 * receipt's `err`, else from `statCodes` by its state (`carrier_error` for any other);
 * `carrier_code` the state and `err` (`UNDELIV:001`, the state alone without `err`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const error = (
  receipt: Receipt,
  errors: Errors = {}
): { readonly code: CarrierErrorCode; readonly message: string; readonly carrier_code: string } => ({
  code: (receipt.err !== undefined && Object.hasOwn(errors, receipt.err) ? errors[receipt.err] : undefined) ??
    (statCodes as Readonly<Record<string, CarrierErrorCode>>)[receipt.stat] ?? "carrier_error",
  message: `The network reported the message ${receipt.stat}${
    receipt.err === undefined ? "" : ` (err ${receipt.err})`
  }.`,
  carrier_code: receipt.err === undefined ? receipt.stat : `${receipt.stat}:${receipt.err}`
})

/** Receipt text, as an SMSC writes it (for the test SMSC and for tests). @since 0.1.0 @category formatting */
export const text = (receipt: {
  readonly id: string
  readonly stat: string
  readonly err?: string | undefined
  readonly date?: string | undefined
  readonly body?: string | undefined
}): string => {
  const date = receipt.date ?? "2611250000"
  const delivered = receipt.stat === "DELIVRD" ? "001" : "000"
  return `id:${receipt.id} sub:001 dlvrd:${delivered} submit date:${date} done date:${date} stat:${receipt.stat} ` +
    `err:${receipt.err ?? "000"} text:${(receipt.body ?? "").slice(0, 20)}`
}
