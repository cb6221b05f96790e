/**
 * The identifier checks against the registries' own examples and numbers they publish (the sources
 * are in docs/decisions.md, "Legal identifiers").
 */
import { assert, describe, it } from "@effect/vitest"
import { Identifier, Markets } from "@sendline/core"
import { Either } from "effect"

/** The normalised value a check answers, or its refusal's code, field and message. */
const outcome = (result: ReturnType<typeof Identifier.check>) =>
  Either.match(result, {
    onLeft: (refused) => ({ code: refused.code, field: refused.field, message: refused.message }),
    onRight: (normalised) => normalised
  })

/** What `check` answers for `type` and `value`. */
const checked = (type: string, value: string) => outcome(Identifier.check(type, value))

/** Asserts that each of `values` passes as `type`, answering its digits and letters without spaces. */
const assertValid = (type: string, values: ReadonlyArray<string>) => {
  for (const value of values) assert.strictEqual(checked(type, value), value.replace(/ /g, ""), `${type} ${value}`)
}

/** Asserts that each of `values` has the form of `type` but fails its check digits or letter, named `name`. */
const assertFailsCheck = (type: string, name: string, values: ReadonlyArray<string>) => {
  for (const value of values) {
    assert.deepStrictEqual(checked(type, value), {
      code: "invalid_identifier",
      field: "identifier_value",
      message: `${type} ${value.replace(/ /g, "")} fails its ${name}.`
    }, `${type} ${value}`)
  }
}

/** Asserts that each of `values` is not of the form of `type`, whose message starts `form`. */
const assertNotOfForm = (type: string, form: string, values: ReadonlyArray<string>) => {
  for (const value of values) {
    const refused = checked(type, value)
    assert.isTrue(typeof refused === "object" && refused.field === "identifier_value", `${type} ${value} is refused`)
    assert.match((refused as { message: string }).message, new RegExp(`^${form}`), `${type} ${value}`)
  }
}

describe("Identifier", () => {
  it("ABN: the ABR's example and published ABNs pass, mod 89; a digit changed or swapped fails its check digits", () => {
    // ABR's example of the format; Air New Zealand's ABN, as its site publishes it
    assertValid("ABN", ["51 824 753 556", "51824753556", "70 000 312 685"])
    assertFailsCheck("ABN", "check digits", ["51 824 753 557", "15 824 753 556", "51 824 753 565", "01 824 753 556"])
    assertNotOfForm("ABN", "An ABN is 11 digits", ["5182475355", "518247535560", "51-824-753-556", "ABN 51824753556"])
  })

  it("ACN: ASIC's published examples pass, the last digit the complement of a mod 10 sum; a digit changed fails", () => {
    assertValid("ACN", [
      "000 000 019",
      "000 250 000",
      "000 500 005",
      "000 750 005",
      "001 000 004",
      "001 250 004",
      "001 500 009",
      "001 749 999",
      "001 999 999",
      "002 249 998",
      "002 499 998",
      "002 749 993",
      "002 999 993",
      "003 249 992",
      "003 499 992",
      "003 749 988",
      "003 999 988",
      "004 249 987",
      "004 499 987",
      "004 749 982",
      "004 999 982",
      "005 249 981",
      "005 499 981",
      "005 749 986",
      "005 999 977",
      "006 249 976",
      "006 499 976",
      "006 749 980",
      "006 999 980",
      "007 249 989",
      "007 499 989",
      "007 749 975",
      "007 999 975",
      "008 249 974",
      "008 499 974",
      "008 749 979",
      "008 999 979",
      "009 249 969",
      "009 499 969",
      "009 749 964",
      "009 999 964",
      "010 249 966",
      "010 499 966",
      "010 749 961"
    ])
    assertFailsCheck("ACN", "check digit", ["000 000 018", "010 499 967", "010 499 696"])
    assertNotOfForm("ACN", "An ACN is 9 digits", ["00000019", "0000000190", "A00000019"])
  })

  it("NZBN: NZBNs on the register and GS1's worked example pass their GS1 check digit; a digit changed fails", () => {
    // Fonterra and Air New Zealand on the NZBN register; GS1's check digit example (GTIN-13)
    assertValid("NZBN", ["9429036748471", "9429040402543", "6291041500213"])
    assertFailsCheck("NZBN", "check digit", ["9429036748472", "9429036748417", "9429040402534"])
    assertNotOfForm("NZBN", "An NZBN is 13 digits", ["942903674847", "94290367484710", "94290367484X1"])
  })

  it("UEN: the three forms with their check letters: a business, a local company, another entity", () => {
    // businesses (8 digits), local companies (a year and 5 digits: DBS Bank, Singtel), other
    // entities (T/S/R, year, entity type: LLPs, foreign companies, societies)
    assertValid("UEN", [
      "00192200M",
      "53143018M",
      "196800306E",
      "199201624D",
      "T08LL0003B",
      "S16FC0121D",
      "T01FC6132D",
      "S65SS0033F"
    ])
    assertFailsCheck("UEN", "check letter", ["00192200C", "53143018L", "196800306F", "T08LL0003A", "S16FC0121E"])
    assertNotOfForm("UEN", "A UEN is 8 or 9 digits and a letter", [
      "1234567A", // 7 digits
      "12345678901", // no letter
      "Q08LL0003B", // not R, S or T
      "T08L10003B", // an entity type of one letter
      "T08IO0003B" // letters no entity type uses (the check letter is not defined for them)
    ])
    assert.strictEqual(checked("UEN", "t08ll 0003b"), "T08LL0003B", "letters upper-cased, spaces removed")
  })

  it("CRN: 8 digits, or a Companies House prefix and 6 digits; nothing else (it has no check digit)", () => {
    assertValid("CRN", [
      "00445790",
      "SC123456",
      "NI123456",
      "OC301540",
      "SO300010",
      "NC000123",
      "R0000123",
      "LP012345",
      "SL001234",
      "FC031234",
      "OE000123"
    ])
    assert.strictEqual(checked("CRN", "sc 123 456"), "SC123456")
    assertNotOfForm("CRN", "A CRN is 8 digits, or a Companies House prefix", [
      "0044579",
      "004457901",
      "XY123456",
      "SC12345",
      "SC12345A",
      "S1234567"
    ])
  })

  it("degenerate values that pass their check digits are refused: the digits that number the entity all zero", () => {
    const degenerate = (type: string, value: string) =>
      assert.deepStrictEqual(checked(type, value), {
        code: "invalid_identifier",
        field: "identifier_value",
        message: `${type} ${value} is not one a registry issues: the digits that number the entity are all zero.`
      }, `${type} ${value}`)
    // each passes its check digits or letter (a sum of zero), and numbers no entity
    degenerate("ABN", "10000000000")
    degenerate("ACN", "000000000")
    degenerate("NZBN", "0000000000000")
    degenerate("UEN", "00000000X")
    degenerate("UEN", "200000000W")
    degenerate("UEN", "T08LL0000C")
    degenerate("CRN", "00000000")
    degenerate("CRN", "SC000000")
    degenerate("CRN", "R0000000")
    // a zero-led value that numbers an entity still passes (ASIC's first example; a small company number)
    assertValid("ACN", ["000 000 019"])
    assertValid("CRN", ["00000001", "SC000001"])
    assertValid("UEN", ["196800306E"])
  })

  it("normalises before checking: whitespace of any kind removed, letters upper-cased", () => {
    assert.strictEqual(Identifier.normalise(" 51\t824 753\n556 "), "51824753556")
    assert.strictEqual(checked("ABN", "\u00a051 824\u00a0753 556"), "51824753556")
    assert.strictEqual(Identifier.normalise("sc123456"), "SC123456")
  })

  it("a type Sendline does not check is refused naming identifier_type, as types are case-sensitive", () => {
    for (const type of ["EIN", "abn", ""]) {
      assert.deepStrictEqual(checked(type, "51824753556"), {
        code: "invalid_identifier",
        field: "identifier_type",
        message: `Unknown identifier type ${type}: Sendline checks ABN, ACN, NZBN, UEN, CRN.`
      })
    }
  })

  it("a market takes only its configured types: AU ABN and ACN, NZ NZBN, SG UEN, GB CRN", () => {
    const market = (code: string) => Markets.defaults.find((m) => m.code === code)!
    assert.isTrue(Identifier.allowedIn(market("AU"), "ABN"))
    assert.isTrue(Identifier.allowedIn(market("AU"), "ACN"))
    assert.isFalse(Identifier.allowedIn(market("AU"), "NZBN"))
    assert.isTrue(Identifier.allowedIn(market("GB"), "CRN"))
    assert.strictEqual(outcome(Identifier.checkIn(market("NZ"), "NZBN", "9429 0367 48471")), "9429036748471")
    assert.deepStrictEqual(outcome(Identifier.checkIn(market("AU"), "NZBN", "9429036748471")), {
      code: "invalid_identifier",
      field: "identifier_type",
      message: "AU does not take NZBN identifiers: it takes ABN, ACN."
    })
    assert.deepStrictEqual(
      outcome(Identifier.checkIn(market("AU"), "ABN", "51824753557")),
      checked("ABN", "51824753557"),
      "then the value is checked"
    )
  })
})
