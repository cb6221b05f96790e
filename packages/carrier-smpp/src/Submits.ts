/**
 * The `submit_sm` PDUs of one message, as pure data: the alphanumeric Sender ID as source (TON 5,
 * NPI 0), the E.164 recipient without its `+` as destination (TON 1, NPI 1), `data_coding` 0 and
 * unpacked GSM 03.38 septets for a GSM-7 body, 8 and UTF-16BE for a UCS-2 one, a final delivery
 * receipt asked for, and a relative `validity_period`, so that the SMSC itself reports a message it
 * could not deliver in time (`EXPIRED`). A body longer than one segment goes in the parts of core's
 * `Segments.parts`, each behind a concatenation UDH (`05 00 03 ref total seq`, `esm_class` 0x40).
 *
 * @since 0.1.0
 */
import { Segments } from "@sendline/core"

/** TON and NPI of an alphanumeric source address. @since 0.1.0 @category constants */
export const alphanumericSource = { ton: 5, npi: 0 } as const
/** TON and NPI of an international (E.164) destination. @since 0.1.0 @category constants */
export const internationalDestination = { ton: 1, npi: 1 } as const
/** `data_coding` of each encoding: the SMSC default alphabet (GSM 03.38) and UCS-2. @since 0.1.0 @category constants */
export const dataCoding = { "GSM-7": 0, "UCS-2": 8 } as const
/** `esm_class` with the UDH indicator: the short message begins with a user data header. @since 0.1.0 @category constants */
export const udhIndicator = 0x40
/** `registered_delivery`: a receipt when the message reaches a final state, delivered or not. @since 0.1.0 @category constants */
export const finalReceipt = 0x01

/** The parameters of one `submit_sm`, by their SMPP names. @since 0.1.0 @category models */
export interface SubmitSm {
  readonly source_addr_ton: number
  readonly source_addr_npi: number
  readonly source_addr: string
  readonly dest_addr_ton: number
  readonly dest_addr_npi: number
  readonly destination_addr: string
  readonly esm_class: number
  readonly registered_delivery: number
  /** Relative (SMPP 3.4 §7.1.1): `YYMMDDhhmmss000R`, how long the SMSC tries to deliver it. */
  readonly validity_period: string
  readonly data_coding: number
  /** The user data: the UDH, when there is one, then the payload bytes. */
  readonly short_message: Uint8Array
}

const twoDigits = (n: number) => n.toString().padStart(2, "0")

/**
 * `minutes` as a relative time of SMPP 3.4 §7.1.1 (`YYMMDDhhmmss000R`, days and under only, so
 * that an SMSC reading the fields as calendar ones reads the same): 2880 → `000002000000000R`.
 *
 * @since 0.2.0
 * @category encoding
 */
export const validityPeriod = (minutes: number): string => {
  const whole = Math.max(1, Math.floor(minutes))
  return `0000${twoDigits(Math.floor(whole / 1440))}${twoDigits(Math.floor((whole % 1440) / 60))}${
    twoDigits(whole % 60)
  }00000R`
}

/** The 6-octet concatenation UDH of part `seq` (from 1) of `total`, 8-bit reference `ref`. @since 0.1.0 @category encoding */
export const concatenationUdh = (ref: number, total: number, seq: number): Uint8Array =>
  Uint8Array.of(0x05, 0x00, 0x03, ref & 0xff, total, seq)

/** A part's payload bytes: unpacked septets for GSM-7, UTF-16BE code units for UCS-2. @since 0.1.0 @category encoding */
export const payload = (part: string, encoding: Segments.Encoding): Uint8Array => {
  if (encoding === "GSM-7") {
    const septets = Segments.gsm7Septets(part)
    if (septets !== undefined) return septets
  }
  return Uint8Array.from(Buffer.from(part, "utf16le").swap16())
}

/**
 * The `submit_sm`s of a message, in part order; `ref` is the concatenation reference its parts
 * share (used only when there are several); the SMSC tries each for `validityMinutes`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (
  message: { readonly senderId: string; readonly to: string; readonly body: string },
  ref: number,
  validityMinutes: number
): ReadonlyArray<SubmitSm> => {
  const encoding = Segments.count(message.body).encoding
  const parts = Segments.parts(message.body)
  const common = {
    source_addr_ton: alphanumericSource.ton,
    source_addr_npi: alphanumericSource.npi,
    source_addr: message.senderId,
    dest_addr_ton: internationalDestination.ton,
    dest_addr_npi: internationalDestination.npi,
    destination_addr: message.to.replace(/^\+/, ""),
    registered_delivery: finalReceipt,
    validity_period: validityPeriod(validityMinutes),
    data_coding: dataCoding[encoding]
  }
  if (parts.length <= 1) return [{ ...common, esm_class: 0, short_message: payload(message.body, encoding) }]
  return parts.map((part, i) => {
    const udh = concatenationUdh(ref, parts.length, i + 1)
    const bytes = payload(part, encoding)
    const short_message = new Uint8Array(udh.length + bytes.length)
    short_message.set(udh)
    short_message.set(bytes, udh.length)
    return { ...common, esm_class: udhIndicator, short_message }
  })
}
