/**
 * Help text fitted to 100 columns (`HelpText.fit`): what @effect/cli prints, rearranged only where
 * a line would be wider.
 */
import { describe, expect, it } from "@effect/vitest"
import * as HelpText from "../../src/server/HelpText.js"

describe("HelpText.fit", () => {
  it("keeps lines that fit as they are, colours and all, but for trailing spaces", () => {
    const text = "\x1b[0;1mUSAGE\x1b[0m\n\n$ migrate   \n\n  Create or update the database schema"
    expect(HelpText.fit(text, 40)).toBe("\x1b[0;1mUSAGE\x1b[0m\n\n$ migrate\n\n  Create or update the database schema")
  })

  it("wraps a longer line at spaces, indented as it is, a usage's four columns more, an optional part whole", () => {
    expect(HelpText.fit("  A legal identifier the brand account owns, checked as a brand's", 30)).toBe(
      "  A legal identifier the brand\n  account owns, checked as a\n  brand's"
    )
    expect(HelpText.fit("$ create --name NAME [--market MARKET] [--identifier TYPE:VALUE...]", 30)).toBe(
      "$ create --name NAME\n    [--market MARKET]\n    [--identifier TYPE:VALUE...]"
    )
  })

  it("keeps a list of commands that fits as a table", () => {
    const list = "  - migrate        Create or update the schema\n\n  - keys revoke    Revoke an API key"
    expect(HelpText.fit(list, 50)).toBe(list)
  })

  it("shows each command's usage over its description once an entry of the list does not fit", () => {
    const list = [
      "  - migrate                                  Create or update the schema",
      "",
      "  - keys create --account ACCOUNT_ID --permissions LIST  Create an API key",
      "",
      "  - keys    "
    ].join("\n")
    expect(HelpText.fit(list, 40)).toBe([
      "  - migrate",
      "    Create or update the schema",
      "",
      "  - keys create --account ACCOUNT_ID",
      "        --permissions LIST",
      "    Create an API key",
      "",
      "  - keys"
    ].join("\n"))
  })

  it("leaves wider than the width only a word that is", () => {
    const word = "x".repeat(50)
    expect(HelpText.fit(`  short ${word} end`, 30)).toBe(`  short\n  ${word}\n  end`)
  })
})
