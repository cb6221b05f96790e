import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Template from "../../src/messaging/Template.js"

const name = fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/)
// Text that holds no placeholder of its own: braces only alone or with a character that no name has.
const text = fc.stringMatching(/^[^{}]{0,20}$/)
const value = fc.string({ maxLength: 20 })

describe("Template", () => {
  it("fills each placeholder, repeated ones too, and leaves other braces as they are", () => {
    const filled = Template.fill("{{name}}, {{name}}! {x} {{ name }} {{}} {{{code}}} }}", { name: "Ann", code: "42" })
    expect(filled).toEqual({ _tag: "Filled", body: "Ann, Ann! {x} {{ name }} {{}} {42} }}" })
  })

  it("names the placeholders without a variable, once each, in order", () => {
    expect(Template.fill("{{b}} {{a}} {{b}} {{c}}", { c: "x" })).toEqual({ _tag: "Missing", names: ["b", "a"] })
  })

  it("does not read a variable's value for placeholders", () => {
    expect(Template.fill("{{a}}", { a: "{{b}}" })).toEqual({ _tag: "Filled", body: "{{b}}" })
  })

  it("does not take a name from the object's prototype", () => {
    expect(Template.fill("{{toString}}", {})).toEqual({ _tag: "Missing", names: ["toString"] })
  })

  it("a body without placeholders is itself, whatever the variables", () => {
    fc.assert(fc.property(text, fc.dictionary(name, value), (body, variables) => {
      expect(Template.fill(body, variables)).toEqual({ _tag: "Filled", body })
    }))
  })

  it("filling text, placeholder, text gives text, value, text", () => {
    fc.assert(fc.property(text, name, value, text, (before, n, v, after) => {
      expect(Template.fill(`${before}{{${n}}}${after}`, { [n]: v })).toEqual({
        _tag: "Filled",
        body: `${before}${v}${after}`
      })
      expect(Template.names(`${before}{{${n}}}${after}`)).toEqual([n])
    }))
  })

  it("any placeholder left without its variable is missing", () => {
    fc.assert(fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 5 }), (ns) => {
      const body = ns.map((n) => `{{${n}}}`).join(" ")
      const [first, ...rest] = ns
      const filled = Template.fill(body, Object.fromEntries(rest.map((n) => [n, "v"])))
      expect(filled).toEqual({ _tag: "Missing", names: [first] })
    }))
  })
})
