/**
 * The one text check of the fields that take free text (`internal/text`): control characters, bidi
 * controls and zero-width characters are refused, each class by name; what a mail's header or a
 * line of its body quotes is made one line without them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Text from "../../src/internal/text.js"

/** Every character the check refuses, by class: CONTRACT §1's hygiene of issue 29. */
const refused: Record<string, ReadonlyArray<string>> = {
  "C0 controls": ["\u0000", "\u0001", "\u0007", "\u0009", "\u001b", "\u001f"],
  "CR and LF": ["\r", "\n", "\r\n"],
  "DEL and C1 controls": ["\u007f", "\u0080", "\u0085", "\u009b", "\u009f"],
  "bidi embeddings and overrides": ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e"],
  "bidi isolates": ["\u2066", "\u2067", "\u2068", "\u2069"],
  "bidi marks": ["\u200e", "\u200f", "\u061c"],
  "zero-width characters": ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
}

/** What `requiredText` came to: the text, or its error's code and field. */
const outcome = (text: string) =>
  Effect.runSync(Effect.either(Text.requiredText("use_case", text, 1000))).pipe(
    Either.match({ onLeft: (e) => `${e.code} ${e.field}`, onRight: (t) => t })
  )

describe("text", () => {
  for (const [name, characters] of Object.entries(refused)) {
    it(`requiredText refuses ${name} anywhere in the text: 422 invalid_characters naming the field`, () => {
      for (const character of characters) {
        for (const text of [`Acme${character}Pty`, `${character}Acme`, `Acme${character}`]) {
          assert.strictEqual(outcome(text), "invalid_characters use_case", JSON.stringify(text))
        }
      }
    })
  }

  it("requiredText takes letters of any script, punctuation, emoji and ordinary spaces", () => {
    for (
      const text of [
        "Acme Pty Ltd",
        "Café Zoë & Co.",
        "株式会社アクメ",
        "شركة أكمي",
        "Acme 🚀",
        "O'Brien-Smith (Aust.)",
        "a\u00a0b"
      ]
    ) {
      assert.strictEqual(outcome(text), text)
    }
    assert.strictEqual(outcome("  "), "invalid_parameter use_case", "blank is still 400")
  })

  it("unsafeCharacter names the first refused character by its code point and class", () => {
    assert.deepStrictEqual(Text.unsafeCharacter("Acme\u202ePty\u0007"), { codePoint: "U+202E", kind: "a bidi control" })
    assert.deepStrictEqual(Text.unsafeCharacter("a\u0085"), { codePoint: "U+0085", kind: "a control character" })
    assert.deepStrictEqual(Text.unsafeCharacter("a\ufeff"), { codePoint: "U+FEFF", kind: "a zero-width character" })
    assert.isUndefined(Text.unsafeCharacter("Acme Pty Ltd"))
  })

  it("oneLine: line breaks and controls become a space, bidi and zero-width characters go; the rest is kept", () => {
    assert.strictEqual(Text.oneLine("Evil\r\nBcc: victim@target.example"), "Evil  Bcc: victim@target.example")
    assert.strictEqual(Text.oneLine("a\u2028b\u2029c\u0085d\u0007e"), "a b c d e")
    assert.strictEqual(Text.oneLine("Ac\u200bme\u202e Ltd\ufeff"), "Acme Ltd")
    assert.strictEqual(Text.oneLine("<b>Acme</b> & Café"), "<b>Acme</b> & Café")
  })
})
