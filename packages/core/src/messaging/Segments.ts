/**
 * SMS segment counting: GSM 03.38 default alphabet plus its extension table (3GPP TS 23.038, no national
 * shift tables, no transliteration), otherwise UCS-2. Pure. `count` is the full preview a send or a
 * preview computes; `segmentsOf` counts segments alone, without allocating.
 *
 * @since 0.1.0
 */

/** The data coding a body is sent with. @since 0.1.0 @category models */
export type Encoding = "GSM-7" | "UCS-2"

/** Preview of how a body is encoded and split into segments. @since 0.1.0 @category models */
export interface SegmentInfo {
  readonly encoding: Encoding
  /** Number of SMS segments (0 for an empty body). */
  readonly segments: number
  /** Unicode code points in the body (an emoji counts 1). */
  readonly characters: number
  /** Total septets (GSM-7) or UTF-16 code units (UCS-2). */
  readonly units: number
  /** Capacity per segment that applies: 160/153 septets or 70/67 code units. */
  readonly unitsPerSegment: number
  /** Distinct characters outside the GSM-7 set, in first-appearance order (empty for GSM-7). */
  readonly ucs2Characters: ReadonlyArray<string>
}

const GSM_SINGLE = 160
const GSM_MULTI = 153
const UCS2_SINGLE = 70
const UCS2_MULTI = 67

// 3GPP TS 23.038 §6.2.1 default alphabet, in code order 0x00..0x7F. 0x09 is CAPITAL C WITH CEDILLA (U+00C7);
// 0x1B is the escape to the extension table, not a character, so it is left out. Non-ASCII letters are
// written as escapes so that look-alikes (U+2206 vs U+0394, U+2126 vs U+03A9, ...) cannot slip in.
const BASIC =
  // 0x00 @ £ $ ¥ è é ù ì ò Ç LF Ø ø CR Å å
  "@\u00A3$\u00A5\u00E8\u00E9\u00F9\u00EC\u00F2\u00C7\n\u00D8\u00F8\r\u00C5\u00E5" +
  // 0x10 Δ _ Φ Γ Λ Ω Π Ψ Σ Θ Ξ (ESC) Æ æ ß É
  "\u0394_\u03A6\u0393\u039B\u03A9\u03A0\u03A8\u03A3\u0398\u039E\u00C6\u00E6\u00DF\u00C9" +
  // 0x20 space ! " # ¤ % & ' ( ) * + , - . /
  " !\"#\u00A4%&'()*+,-./" +
  // 0x30
  "0123456789:;<=>?" +
  // 0x40 ¡ A..O
  "\u00A1ABCDEFGHIJKLMNO" +
  // 0x50 P..Z Ä Ö Ñ Ü §
  "PQRSTUVWXYZ\u00C4\u00D6\u00D1\u00DC\u00A7" +
  // 0x60 ¿ a..o
  "\u00BFabcdefghijklmno" +
  // 0x70 p..z ä ö ñ ü à
  "pqrstuvwxyz\u00E4\u00F6\u00F1\u00FC\u00E0"

// 3GPP TS 23.038 §6.2.1.1 extension table (each costs ESC + 1 = 2 septets): form feed ^ { } \ [ ~ ] | €
const EXTENSION = "\f^{}\\[~]|\u20AC"

// Septets per UTF-16 code unit: 0 = not in GSM-7, 1 = default alphabet, 2 = extension table.
// Every GSM-7 character is a single BMP code unit, so surrogates are always 0.
const SEPTETS: Uint8Array = (() => {
  const table = new Uint8Array(0x10000)
  for (let i = 0; i < BASIC.length; i++) table[BASIC.charCodeAt(i)] = 1
  for (let i = 0; i < EXTENSION.length; i++) table[EXTENSION.charCodeAt(i)] = 2
  return table
})()

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff

// Greedy packing of an all-GSM body into 153-septet segments; an escape pair that does not fit moves wholly on.
const packGsm = (body: string): number => {
  const length = body.length
  let segments = 1
  let fill = 0
  for (let i = 0; i < length; i++) {
    const w = SEPTETS[body.charCodeAt(i)]!
    if (fill + w > GSM_MULTI) {
      segments++
      fill = w
    } else {
      fill += w
    }
  }
  return segments
}

const gsmSegments = (body: string, septets: number): number => {
  if (septets === 0) return 0
  if (septets <= GSM_SINGLE) return 1
  // Without escape pairs nothing can straddle: plain division.
  if (septets === body.length) return Math.ceil(septets / GSM_MULTI)
  return packGsm(body)
}

// UCS-2 segments; `from` is an index before which the body is known to hold no surrogates.
const ucs2Segments = (body: string, from: number): number => {
  const length = body.length
  if (length <= UCS2_SINGLE) return length === 0 ? 0 : 1
  let i = from
  for (; i < length - 1; i++) {
    if (isHighSurrogate(body.charCodeAt(i)) && isLowSurrogate(body.charCodeAt(i + 1))) break
  }
  // Without surrogate pairs nothing can straddle: plain division.
  if (i >= length - 1) return Math.ceil(length / UCS2_MULTI)
  // Greedy packing into 67-unit segments; a surrogate pair that does not fit moves wholly on.
  let segments = 1
  let fill = 0
  for (let j = 0; j < length; j++) {
    let w = 1
    if (j + 1 < length && isHighSurrogate(body.charCodeAt(j)) && isLowSurrogate(body.charCodeAt(j + 1))) {
      w = 2
      j++
    }
    if (fill + w > UCS2_MULTI) {
      segments++
      fill = w
    } else {
      fill += w
    }
  }
  return segments
}

/** Number of SMS segments the body needs (0 when empty); the fast path, allocation-free. @since 0.1.0 @category counting */
export const segmentsOf = (body: string): number => {
  const length = body.length
  let septets = 0
  for (let i = 0; i < length; i++) {
    const w = SEPTETS[body.charCodeAt(i)]!
    if (w === 0) return ucs2Segments(body, i)
    septets += w
  }
  return gsmSegments(body, septets)
}

const NO_CHARACTERS: ReadonlyArray<string> = Object.freeze([])

/** Full preview of a body: encoding, segments, code points, units and the characters forcing UCS-2. @since 0.1.0 @category counting */
export const count = (body: string): SegmentInfo => {
  const length = body.length
  let septets = 0
  let characters = 0
  let firstNonGsm = -1
  let nonGsm: Set<string> | undefined
  for (let i = 0; i < length; i++) {
    const c = body.charCodeAt(i)
    const w = SEPTETS[c]!
    characters++
    if (w !== 0) {
      septets += w
      continue
    }
    if (firstNonGsm < 0) firstNonGsm = i
    let ch: string
    if (isHighSurrogate(c) && i + 1 < length && isLowSurrogate(body.charCodeAt(i + 1))) {
      ch = body.slice(i, i + 2)
      i++
    } else {
      ch = body.charAt(i)
    }
    if (nonGsm === undefined) nonGsm = new Set()
    nonGsm.add(ch)
  }
  if (nonGsm === undefined) {
    const segments = gsmSegments(body, septets)
    return {
      encoding: "GSM-7",
      segments,
      characters,
      units: septets,
      unitsPerSegment: segments <= 1 ? GSM_SINGLE : GSM_MULTI,
      ucs2Characters: NO_CHARACTERS
    }
  }
  const segments = ucs2Segments(body, firstNonGsm)
  return {
    encoding: "UCS-2",
    segments,
    characters,
    units: length,
    unitsPerSegment: segments <= 1 ? UCS2_SINGLE : UCS2_MULTI,
    ucs2Characters: Array.from(nonGsm)
  }
}

/**
 * The body cut into the parts a concatenated SMS sends, exactly as `segmentsOf` counts them: the
 * whole body when it fits one segment (160 septets or 70 code units), else greedy parts of at most
 * 153 septets or 67 UTF-16 code units, an escape pair or a surrogate pair never split (it moves
 * wholly to the next part). Empty body: no parts.
 *
 * @since 0.1.0
 * @category splitting
 */
export const parts = (body: string): ReadonlyArray<string> => {
  const { encoding, segments } = count(body)
  if (segments <= 1) return segments === 0 ? [] : [body]
  const capacity = encoding === "GSM-7" ? GSM_MULTI : UCS2_MULTI
  const result: Array<string> = []
  let start = 0
  let fill = 0
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    let width: number
    let length = 1
    if (encoding === "GSM-7") {
      width = SEPTETS[c]!
    } else if (isHighSurrogate(c) && i + 1 < body.length && isLowSurrogate(body.charCodeAt(i + 1))) {
      width = 2
      length = 2
    } else {
      width = 1
    }
    if (fill + width > capacity) {
      result.push(body.slice(start, i))
      start = i
      fill = 0
    }
    fill += width
    i += length - 1
  }
  result.push(body.slice(start))
  return result
}

// The GSM 03.38 code of each default-alphabet character, and of each extension character after ESC.
const GSM_CODES: ReadonlyMap<string, ReadonlyArray<number>> = (() => {
  const codes = new Map<string, ReadonlyArray<number>>()
  for (let i = 0; i < BASIC.length; i++) codes.set(BASIC.charAt(i), [i < 0x1b ? i : i + 1])
  // the extension table's codes, in EXTENSION's order: FF ^ { } \ [ ~ ] | €
  const extension = [0x0a, 0x14, 0x28, 0x29, 0x2f, 0x3c, 0x3d, 0x3e, 0x40, 0x65]
  for (let i = 0; i < EXTENSION.length; i++) codes.set(EXTENSION.charAt(i), [0x1b, extension[i]!])
  return codes
})()

/**
 * A GSM-7 text as unpacked septets, one octet each (an extension character as ESC 0x1B and its
 * code): what SMPP carries for `data_coding` 0, the SMSC packing it for the air. `undefined` when
 * a character is outside GSM 03.38 and its extension table (the text is UCS-2).
 *
 * @since 0.1.0
 * @category encoding
 */
export const gsm7Septets = (text: string): Uint8Array | undefined => {
  const out: Array<number> = []
  for (const ch of text) {
    const codes = GSM_CODES.get(ch)
    if (codes === undefined) return undefined
    for (const code of codes) out.push(code)
  }
  return Uint8Array.from(out)
}
