/**
 * SMPP's command statuses: their names, and the ones that say "not now" or "wrong credentials".
 */
import smpp from "smpp"

/** The status names of SMPP 3.4 (and the package's extensions) by code. */
const names: ReadonlyMap<number, string> = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]))

/** `ESME_RTHROTTLED`, or the bare code when it has no name. */
export const name = (status: number): string => names.get(status) ?? `0x${status.toString(16).padStart(8, "0")}`

/** Statuses that say "not now": the submit is tried again after a pause. */
export const transient: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RTHROTTLED!,
  smpp.errors.ESME_RMSGQFUL!,
  smpp.errors.ESME_RSYSERR!,
  smpp.errors.ESME_RX_T_APPN!,
  smpp.errors.ESME_RINVBNDSTS!
])

/** Bind statuses that mean wrong credentials or account, not a passing failure. */
export const credential: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RINVPASWD!,
  smpp.errors.ESME_RINVSYSID!,
  smpp.errors.ESME_RBINDFAIL!,
  smpp.errors.ESME_RINVSYSTYP!
])
