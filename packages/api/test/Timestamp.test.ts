import { describe, expect, it } from "@effect/vitest"
import { Timestamp } from "@sendline/api"
import { Option } from "effect"

describe("Timestamp", () => {
  it("formats UTC with +00:00 and milliseconds, never Z", () => {
    expect(Timestamp.format(Date.UTC(2026, 10, 22, 7, 0, 0, 5))).toBe("2026-11-22T07:00:00.005+00:00")
  })

  it("parses Z, numeric offsets and fractions to the same instant", () => {
    const instant = Date.UTC(2026, 10, 22, 7, 0, 0, 250)
    expect(Timestamp.parse("2026-11-22T07:00:00.25Z")).toEqual(Option.some(instant))
    expect(Timestamp.parse("2026-11-22T17:30:00.250+10:30")).toEqual(Option.some(instant))
    expect(Timestamp.parse("2026-11-22T02:00:00.250-05:00")).toEqual(Option.some(instant))
  })

  it("refuses what is not RFC 3339", () => {
    for (
      const bad of ["2026-11-22", "2026-11-22T07:00:00", "2026-02-30T00:00:00Z", "tomorrow", "2026-11-22T24:00:00Z"]
    ) {
      expect(Timestamp.parse(bad)).toEqual(Option.none())
    }
  })

  it("a date-time filter past a whole millisecond: a start begins at the next millisecond, an end at its own", () => {
    const at = Date.UTC(2026, 10, 22, 7, 0, 0, 123)
    expect(Timestamp.parseDateFilter("2026-11-22T07:00:00.1230001Z", false)).toEqual(Option.some(at + 1))
    expect(Timestamp.parseDateFilter("2026-11-22T07:00:00.1239Z", true)).toEqual(Option.some(at))
    expect(Timestamp.parseDateFilter("2026-11-22T07:00:00.123000Z", false)).toEqual(Option.some(at))
    expect(Timestamp.parseDateFilter("2026-11-22T07:00:00.999999+00:00", false)).toEqual(Option.some(at - 123 + 1000))
    expect(Timestamp.parse("2026-11-22T07:00:00.1239Z")).toEqual(Option.some(at))
    expect(Timestamp.parse("2026-11-22T07:00:00.5Z")).toEqual(Option.some(at - 123 + 500))
  })

  it("reads a plain date filter as the start or the end of that UTC day", () => {
    expect(Timestamp.parseDateFilter("2026-11-22", false)).toEqual(Option.some(Date.UTC(2026, 10, 22)))
    expect(Timestamp.parseDateFilter("2026-11-22", true)).toEqual(Option.some(Date.UTC(2026, 10, 23) - 1))
    expect(Timestamp.parseDateFilter("2026-13-01", false)).toEqual(Option.none())
  })
})
