import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Segments from "../../src/messaging/Segments.js"

// 3GPP TS 23.038 default alphabet as Unicode code points, indexed by GSM code 0x00..0x7F (null = 0x1B escape).
// Written independently of the implementation, as numbers, so it cannot share a typo with it.
const GSM_BASIC_CODE_POINTS: ReadonlyArray<number | null> = [
  0x40,
  0xa3,
  0x24,
  0xa5,
  0xe8,
  0xe9,
  0xf9,
  0xec,
  0xf2,
  0xc7,
  0x0a,
  0xd8,
  0xf8,
  0x0d,
  0xc5,
  0xe5,
  0x394,
  0x5f,
  0x3a6,
  0x393,
  0x39b,
  0x3a9,
  0x3a0,
  0x3a8,
  0x3a3,
  0x398,
  0x39e,
  null,
  0xc6,
  0xe6,
  0xdf,
  0xc9,
  0x20,
  0x21,
  0x22,
  0x23,
  0xa4,
  0x25,
  0x26,
  0x27,
  0x28,
  0x29,
  0x2a,
  0x2b,
  0x2c,
  0x2d,
  0x2e,
  0x2f,
  0x30,
  0x31,
  0x32,
  0x33,
  0x34,
  0x35,
  0x36,
  0x37,
  0x38,
  0x39,
  0x3a,
  0x3b,
  0x3c,
  0x3d,
  0x3e,
  0x3f,
  0xa1,
  0x41,
  0x42,
  0x43,
  0x44,
  0x45,
  0x46,
  0x47,
  0x48,
  0x49,
  0x4a,
  0x4b,
  0x4c,
  0x4d,
  0x4e,
  0x4f,
  0x50,
  0x51,
  0x52,
  0x53,
  0x54,
  0x55,
  0x56,
  0x57,
  0x58,
  0x59,
  0x5a,
  0xc4,
  0xd6,
  0xd1,
  0xdc,
  0xa7,
  0xbf,
  0x61,
  0x62,
  0x63,
  0x64,
  0x65,
  0x66,
  0x67,
  0x68,
  0x69,
  0x6a,
  0x6b,
  0x6c,
  0x6d,
  0x6e,
  0x6f,
  0x70,
  0x71,
  0x72,
  0x73,
  0x74,
  0x75,
  0x76,
  0x77,
  0x78,
  0x79,
  0x7a,
  0xe4,
  0xf6,
  0xf1,
  0xfc,
  0xe0
]
// Extension table: form feed ^ { } \ [ ~ ] | €
const GSM_EXTENSION_CODE_POINTS: ReadonlyArray<number> = [0x0c, 0x5e, 0x7b, 0x7d, 0x5c, 0x5b, 0x7e, 0x5d, 0x7c, 0x20ac]

const GSM_BASIC: ReadonlyArray<string> = GSM_BASIC_CODE_POINTS.flatMap((
  cp
) => (cp === null ? [] : [String.fromCodePoint(cp)]))
const GSM_EXTENSION: ReadonlyArray<string> = GSM_EXTENSION_CODE_POINTS.map((cp) => String.fromCodePoint(cp))
const SEPTETS_OF = new Map<string, number>([
  ...GSM_BASIC.map((c) => [c, 1] as const),
  ...GSM_EXTENSION.map((c) => [c, 2] as const)
])

// Characters outside GSM-7, including look-alikes and astral-plane emoji (surrogate pairs).
const NON_GSM: ReadonlyArray<string> = [
  "ç",
  "\u00a0",
  "\t",
  "\u2018",
  "\u2019",
  "\u201c",
  "\u201d",
  "`",
  "Ж",
  "я",
  "中",
  "ğ",
  "\u2206",
  "\u2126",
  "\u00b4",
  "😀",
  "👍",
  "🎉",
  "𝄞",
  "\u{1F3FD}"
]

// Obviously-correct reference: list the unit size of every code point, then pack greedily.
const referenceSegments = (body: string): number => {
  const codePoints = Array.from(body)
  if (codePoints.length === 0) return 0
  const gsm = codePoints.every((c) => SEPTETS_OF.has(c))
  const sizes = codePoints.map((c) => (gsm ? SEPTETS_OF.get(c)! : c.length))
  const total = sizes.reduce((a, b) => a + b, 0)
  const single = gsm ? 160 : 70
  const multi = gsm ? 153 : 67
  if (total <= single) return 1
  const segments: Array<Array<number>> = [[]]
  for (const size of sizes) {
    const current = segments[segments.length - 1]!
    const used = current.reduce((a, b) => a + b, 0)
    if (used + size <= multi) current.push(size)
    else segments.push([size])
  }
  return segments.length
}

const gsmBasicChar = fc.constantFrom(...GSM_BASIC)
const gsmExtensionChar = fc.constantFrom(...GSM_EXTENSION)
const nonGsmChar = fc.constantFrom(...NON_GSM)
const mixedChar = fc.oneof(
  { arbitrary: gsmBasicChar, weight: 8 },
  { arbitrary: gsmExtensionChar, weight: 3 },
  { arbitrary: nonGsmChar, weight: 1 }
)
const gsmChar = fc.oneof({ arbitrary: gsmBasicChar, weight: 3 }, { arbitrary: gsmExtensionChar, weight: 1 })
const joined = (char: fc.Arbitrary<string>, maxLength: number) =>
  fc.array(char, { maxLength }).map((chars) => chars.join(""))
// Bodies that put an arbitrary character just before a segment boundary (where a 2-unit character would
// straddle it) and land the total right around a multiple of the concatenated capacity.
const emoji = fc.constantFrom(...NON_GSM.filter((c) => c.length === 2))
const aligned = fc
  .tuple(
    fc.boolean(),
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: 0, max: 2 }),
    fc.oneof(fc.constant(null), mixedChar),
    fc.integer({ min: 0, max: 2 }),
    fc.integer({ min: -1, max: 1 })
  )
  .chain(([ucs2, j, d, c, m, e]) =>
    (c !== null ? fc.constant(c) : ucs2 ? emoji : gsmExtensionChar).map((wide) => {
      const capacity = ucs2 ? 67 : 153
      const filler = ucs2 ? "я" : "a"
      const head = capacity * j - d
      return filler.repeat(head) + wide + filler.repeat(Math.max(0, capacity * (j + m) - head - 2 + e))
    })
  )
// Bodies of any size around the interesting boundaries, GSM-only or mixed.
const body = fc.oneof(
  joined(mixedChar, 400),
  joined(gsmChar, 500),
  fc.tuple(fc.integer({ min: 60, max: 160 }), joined(mixedChar, 80)).map(([n, tail]) => "a".repeat(n) + tail),
  fc.tuple(fc.integer({ min: 140, max: 470 }), joined(gsmChar, 20)).map(([n, tail]) => "a".repeat(n) + tail),
  aligned,
  aligned
)

describe("Segments", () => {
  describe("GSM 03.38 character set", () => {
    it("costs one septet for each of the 127 default-alphabet characters", () => {
      expect(GSM_BASIC).toHaveLength(127)
      for (const c of GSM_BASIC) {
        expect({ c, info: Segments.count(c) }).toMatchObject({ c, info: { encoding: "GSM-7", units: 1 } })
      }
    })

    it("costs two septets for each extension-table character (^ { } \\ [ ~ ] | € and form feed)", () => {
      for (const c of GSM_EXTENSION) {
        expect({ c, info: Segments.count(c) }).toMatchObject({ c, info: { encoding: "GSM-7", units: 2 } })
      }
    })

    it("recognises no other BMP code unit than the 137 table characters as GSM-7", () => {
      const viaCount: Array<string> = []
      const viaSegmentsOf: Array<string> = []
      const padding = "a".repeat(200) // 2 segments as GSM-7, 3 as UCS-2
      for (let c = 0; c <= 0xffff; c++) {
        const ch = String.fromCharCode(c)
        if (Segments.count(ch).encoding === "GSM-7") viaCount.push(ch)
        if (Segments.segmentsOf(padding + ch) === 2) viaSegmentsOf.push(ch)
      }
      const table = [...GSM_BASIC, ...GSM_EXTENSION].sort()
      expect(viaCount.sort()).toEqual(table)
      expect(viaSegmentsOf.sort()).toEqual(table)
    })

    it("treats capital Ç (0x09) as GSM and small ç as UCS-2", () => {
      expect(Segments.count("Ç").encoding).toBe("GSM-7")
      expect(Segments.count("ç").encoding).toBe("UCS-2")
    })

    it("forces UCS-2 for NBSP, tab and curly quotes", () => {
      for (const c of ["\u00a0", "\t", "\u2018", "\u2019", "\u201c", "\u201d"]) {
        const info = Segments.count(`Hello${c}world`)
        expect({ c, encoding: info.encoding, ucs2: info.ucs2Characters }).toEqual({
          c,
          encoding: "UCS-2",
          ucs2: [c]
        })
      }
    })

    it("forces UCS-2 for look-alikes of GSM Greek letters and for the backtick", () => {
      for (const c of ["\u2206", "\u2126", "`"]) expect(Segments.count(c).encoding).toBe("UCS-2")
    })

    it("costs one septet each for LF and CR", () => {
      expect(Segments.count("a\nb\rc\r\n")).toMatchObject({ encoding: "GSM-7", units: 7, characters: 7 })
      expect(Segments.segmentsOf("\r\n".repeat(80))).toBe(1)
      expect(Segments.segmentsOf("\r\n".repeat(80) + "x")).toBe(2)
    })
  })

  describe("empty body", () => {
    it("has zero segments, characters and units", () => {
      expect(Segments.segmentsOf("")).toBe(0)
      expect(Segments.count("")).toEqual({
        encoding: "GSM-7",
        segments: 0,
        characters: 0,
        units: 0,
        unitsPerSegment: 160,
        ucs2Characters: []
      })
    })
  })

  describe("GSM-7 boundaries", () => {
    it.each([
      [1, 1],
      [159, 1],
      [160, 1],
      [161, 2],
      [306, 2],
      [307, 3],
      [459, 3],
      [460, 4]
    ])("%i septets need %i segment(s)", (n, expected) => {
      const text = "a".repeat(n)
      expect(Segments.segmentsOf(text)).toBe(expected)
      expect(Segments.count(text)).toEqual({
        encoding: "GSM-7",
        segments: expected,
        characters: n,
        units: n,
        unitsPerSegment: expected <= 1 ? 160 : 153,
        ucs2Characters: []
      })
    })

    it("fits 80 extension characters (160 septets) in one segment, not 81", () => {
      expect(Segments.segmentsOf("€".repeat(80))).toBe(1)
      // Concatenated segments hold 76 escape pairs (152 septets) each.
      expect(Segments.count("€".repeat(81))).toMatchObject({ segments: 2, units: 162, characters: 81 })
      expect(Segments.segmentsOf("€".repeat(152))).toBe(2)
      expect(Segments.segmentsOf("€".repeat(153))).toBe(3)
    })

    it("fits an escape pair ending exactly at septet 160 in a single segment", () => {
      expect(Segments.count("a".repeat(158) + "€")).toMatchObject({ segments: 1, units: 160 })
      expect(Segments.count("a".repeat(159) + "€")).toMatchObject({ segments: 2, units: 161 })
    })

    it("moves an escape pair that would straddle septets 153/154 wholly to the next segment", () => {
      // 152 + 2 + 152 = 306 septets would fit 2 segments by plain division, but the € cannot be split.
      const text = "a".repeat(152) + "€" + "a".repeat(152)
      expect(Segments.count(text)).toMatchObject({ segments: 3, units: 306, unitsPerSegment: 153 })
      // With the escape pair fully inside segment 1 the same total needs only 2.
      expect(Segments.segmentsOf("a".repeat(151) + "€" + "a".repeat(153))).toBe(2)
    })
  })

  describe("UCS-2 boundaries", () => {
    it.each([
      [1, 1],
      [70, 1],
      [71, 2],
      [134, 2],
      [135, 3],
      [201, 3],
      [202, 4]
    ])("%i code units need %i segment(s)", (n, expected) => {
      const text = "я".repeat(n)
      expect(Segments.segmentsOf(text)).toBe(expected)
      expect(Segments.count(text)).toEqual({
        encoding: "UCS-2",
        segments: expected,
        characters: n,
        units: n,
        unitsPerSegment: expected <= 1 ? 70 : 67,
        ucs2Characters: ["я"]
      })
    })

    it("moves a surrogate pair that would straddle units 67/68 wholly to the next segment", () => {
      // 66 + 2 + 66 = 134 units would fit 2 segments by plain division, but the emoji cannot be split.
      const text = "a".repeat(66) + "😀" + "b".repeat(66)
      expect(Segments.count(text)).toMatchObject({ encoding: "UCS-2", segments: 3, units: 134, characters: 133 })
      expect(Segments.segmentsOf("a".repeat(65) + "😀" + "b".repeat(67))).toBe(2)
    })

    it("fits 35 emoji (70 units) in one segment, not 36", () => {
      expect(Segments.segmentsOf("😀".repeat(35))).toBe(1)
      // 33 emoji fill 66 units of a 67-unit segment, so 36 emoji need 2 segments.
      expect(Segments.segmentsOf("😀".repeat(36))).toBe(2)
      expect(Segments.segmentsOf("😀".repeat(67))).toBe(3)
    })
  })

  describe("preview fields", () => {
    it("counts code points as characters, an emoji being one", () => {
      expect(Segments.count("hi 😀")).toMatchObject({ characters: 4, units: 5 })
      expect(Segments.count("👍🏽")).toMatchObject({ characters: 2, units: 4 })
    })

    it("counts extension characters once as characters but twice as septets", () => {
      expect(Segments.count("{x}")).toMatchObject({ encoding: "GSM-7", characters: 3, units: 5 })
    })

    it("lists the distinct UCS-2-forcing characters in first-appearance order", () => {
      const info = Segments.count("“Hi” ç😀 ç “ok” 😀 €")
      expect(info.encoding).toBe("UCS-2")
      expect(info.ucs2Characters).toEqual(["“", "”", "ç", "😀"])
    })

    it("lists no UCS-2-forcing characters for a GSM-7 body", () => {
      expect(Segments.count("Price: 5€ [promo] {x}").ucs2Characters).toEqual([])
    })

    it("counts a lone surrogate as one UCS-2 code point", () => {
      expect(Segments.count("a\ud800b")).toMatchObject({
        encoding: "UCS-2",
        characters: 3,
        units: 3,
        ucs2Characters: ["\ud800"]
      })
    })
  })

  describe("properties", () => {
    it("segments equal a greedy reference packing over mixed GSM, extension and non-GSM text", () => {
      fc.assert(
        fc.property(body, (text) => {
          const expected = referenceSegments(text)
          expect(Segments.segmentsOf(text)).toBe(expected)
          expect(Segments.count(text).segments).toBe(expected)
        }),
        { numRuns: 2000 }
      )
    })

    it("encoding is GSM-7 exactly when every character is in the GSM-7 set", () => {
      fc.assert(
        fc.property(body, (text) => {
          const allGsm = Array.from(text).every((c) => SEPTETS_OF.has(c))
          const info = Segments.count(text)
          expect(info.encoding).toBe(allGsm ? "GSM-7" : "UCS-2")
          expect(info.ucs2Characters).toEqual([...new Set(Array.from(text).filter((c) => !SEPTETS_OF.has(c)))])
          expect(info.characters).toBe(Array.from(text).length)
        }),
        { numRuns: 1000 }
      )
    })

    it("segments never decrease when a character is appended", () => {
      fc.assert(
        fc.property(body, mixedChar, (text, c) => {
          expect(Segments.segmentsOf(text + c)).toBeGreaterThanOrEqual(Segments.segmentsOf(text))
        }),
        { numRuns: 2000 }
      )
    })
  })
})

describe("Segments.parts and gsm7Septets", () => {
  const septetsOf = (part: string) => Segments.gsm7Septets(part)!.length
  it("cuts a body into exactly segmentsOf parts that join back to it, none over its capacity", () => {
    fc.assert(
      fc.property(fc.oneof(joined(mixedChar, 700), joined(gsmChar, 700), aligned), (body) => {
        const parts = Segments.parts(body)
        expect(parts.length).toBe(Segments.segmentsOf(body))
        expect(parts.join("")).toBe(body)
        const gsm = Segments.count(body).encoding === "GSM-7"
        for (const part of parts) {
          expect(part.length).toBeGreaterThan(0)
          const units = gsm ? septetsOf(part) : part.length
          expect(units).toBeLessThanOrEqual(parts.length === 1 ? (gsm ? 160 : 70) : (gsm ? 153 : 67))
          // never a lone surrogate at either end of a part
          expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(part)).toBe(false)
        }
      }),
      { numRuns: 2000 }
    )
  })

  it("moves an escape pair that would straddle a boundary wholly to the next part", () => {
    const body = "a".repeat(152) + "€" + "b".repeat(10)
    const parts = Segments.parts(body)
    expect(parts).toEqual(["a".repeat(152), "€" + "b".repeat(10)])
    expect(septetsOf(parts[0]!)).toBe(152)
  })

  it("moves a surrogate pair that would straddle a boundary wholly to the next part", () => {
    const body = "ж".repeat(66) + "😀" + "ж".repeat(5)
    expect(Segments.parts(body)).toEqual(["ж".repeat(66), "😀" + "ж".repeat(5)])
  })

  it("encodes every default-alphabet character as its code and every extension character as ESC + code", () => {
    GSM_BASIC_CODE_POINTS.forEach((cp, code) => {
      if (cp !== null) expect(Array.from(Segments.gsm7Septets(String.fromCodePoint(cp))!)).toEqual([code])
    })
    const extension = [0x0a, 0x14, 0x28, 0x29, 0x2f, 0x3c, 0x3d, 0x3e, 0x40, 0x65]
    GSM_EXTENSION_CODE_POINTS.forEach((cp, i) => {
      expect(Array.from(Segments.gsm7Septets(String.fromCodePoint(cp))!)).toEqual([0x1b, extension[i]])
    })
    expect(Segments.gsm7Septets("a\u00A0b")).toBeUndefined()
  })
})
