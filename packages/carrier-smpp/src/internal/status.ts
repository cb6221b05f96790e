/**
 * SMPP's command statuses: their names, what a `submit_sm_resp`'s status makes of the message
 * (CONTRACT §11's table), and the bind statuses that say "wrong credentials".
 */
import smpp from "smpp"
import type { CarrierErrorCode } from "../Receipts.js"

/** The status names of SMPP 3.4 (and the package's extensions) by code. */
const names: ReadonlyMap<number, string> = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]))

/** The status as 8 upper-case hex digits: `0x0000000B`. */
const hex = (status: number): string => `0x${status.toString(16).toUpperCase().padStart(8, "0")}`

/** `ESME_RTHROTTLED`, or the bare code when it has no name. */
export const name = (status: number): string => names.get(status) ?? hex(status)

/** The carrier's own code of a refusal, as the message's `error.carrier_code`: `smpp:0x0000000B`. */
export const carrierCode = (status: number): string => `smpp:${hex(status)}`

/** `ESME_RINVDSTADR (0x0000000B)`, or the bare code when it has no name. */
export const describe = (status: number): string => names.has(status) ? `${name(status)} (${hex(status)})` : hex(status)

/**
 * Statuses that say "not now": every submit pauses and the part is tried again, then the message
 * is left to the lease. `ESME_RX_T_APPN` says "temporary" in its name: a refusal for good would fail
 * a message the SMSC may take a moment later.
 */
export const transient: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RTHROTTLED!,
  smpp.errors.ESME_RMSGQFUL!,
  smpp.errors.ESME_RSYSERR!,
  smpp.errors.ESME_RX_T_APPN!
])

/**
 * `ESME_RINVBNDSTS`: the SMSC holds the session not bound. It says nothing of the message, and the
 * same session would answer it again: the session is dropped and bound again, and the part is tried
 * on another session (nothing was sent).
 */
export const unbound: number = smpp.errors.ESME_RINVBNDSTS!

/** Statuses about the recipient: the message fails, no other carrier is tried. */
const destination: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RINVDSTADR!,
  smpp.errors.ESME_RINVDSTTON!,
  smpp.errors.ESME_RINVDSTNPI!
])

/** Statuses about the sender on this account: another carrier may take the message. */
const source: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RINVSRCADR!,
  smpp.errors.ESME_RINVSRCTON!,
  smpp.errors.ESME_RINVSRCNPI!
])

/** The normalised code of a refusal for good (a status neither transient nor `unbound`), and whether another carrier may take the message. */
export const refusal = (status: number): { readonly code: CarrierErrorCode; readonly failover: boolean } =>
  destination.has(status)
    ? { code: "invalid_destination", failover: false }
    : source.has(status)
    ? { code: "sender_not_allowed", failover: true }
    : { code: "rejected_by_carrier", failover: true }

/** Bind statuses that mean wrong credentials or account, not a passing failure. */
export const credential: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RINVPASWD!,
  smpp.errors.ESME_RINVSYSID!,
  smpp.errors.ESME_RBINDFAIL!,
  smpp.errors.ESME_RINVSYSTYP!
])
