import { assert, describe, it } from "@effect/vitest"
import { Contact } from "@sendline/core"
import { Either } from "effect"

/** "ok", or the code and field a check refuses with. */
const outcome = <A>(result: Either.Either<A, { readonly field?: string | undefined; readonly code: string }>) =>
  Either.match(result, { onLeft: (refused) => `${refused.code} ${refused.field}`, onRight: () => "ok" })

const representative: Contact.Contact = { name: "Jane Citizen", email: "jane@acme.example", phone: "+61412345678" }

describe("Contact", () => {
  it("an e-mail is something, one @ and a domain with a dot, without whitespace, at most 254 characters", () => {
    for (
      const email of ["jane@acme.example", "jane.citizen+brands@mail.acme.com.au", `${"j".repeat(241)}@acme.example`]
    ) {
      assert.strictEqual(outcome(Contact.checkEmail(email)), "ok", email)
    }
    for (
      const email of [
        "jane",
        "jane@acme",
        "@acme.example",
        "jane@@acme.example",
        "jane @acme.example",
        " jane@acme.example",
        `${"j".repeat(242)}@acme.example`
      ]
    ) {
      assert.strictEqual(outcome(Contact.checkEmail(email)), "invalid_contact contact.email", email)
    }
  })

  it("an e-mail's domain is a domain name: no IP literal, no IP address, no dotless host, no all-digit top-level label", () => {
    for (const email of ["jo@mail.acme.example", "jo@xn--caf-dma.example", "jo@café.example", "jo@a-b.example"]) {
      assert.strictEqual(outcome(Contact.checkEmail(email)), "ok", email)
    }
    for (
      const email of [
        "a@[127.0.0.1]",
        "a@[IPv6:::1]",
        "a@127.0.0.1",
        "a@10.0.0.1",
        "a@localhost",
        "a@acme.123",
        "a@-acme.example",
        "a@acme-.example",
        "a@acme..example",
        "a@.acme.example",
        "a@acme.example.",
        "a@acme_corp.example",
        "jo<victim@target.example>",
        "jo,victim@target.example",
        "\"jo\"@acme.example"
      ]
    ) {
      assert.strictEqual(outcome(Contact.checkEmail(email)), "invalid_contact contact.email", email)
    }
  })

  it("control, bidi and zero-width characters are refused in every contact field and the website, naming the field", () => {
    for (const character of ["\u0007", "\u0085", "\u202e", "\u2066", "\u200f", "\u200b", "\ufeff"]) {
      const at = JSON.stringify(character)
      assert.strictEqual(
        outcome(Contact.check({ ...representative, name: `Jane${character} Citizen` })),
        "invalid_contact contact.name",
        at
      )
      assert.strictEqual(
        outcome(Contact.checkEmail(`jane${character}@acme.example`)),
        "invalid_contact contact.email",
        at
      )
      assert.strictEqual(
        outcome(Contact.checkEmail(`jane@acme${character}.example`)),
        "invalid_contact contact.email",
        at
      )
      assert.strictEqual(outcome(Contact.checkPhone(`+614123${character}45678`)), "invalid_contact contact.phone", at)
      assert.strictEqual(
        outcome(Contact.checkWebsite(`https://qan${character}tas.com.au`)),
        "invalid_contact website",
        at
      )
      assert.strictEqual(
        outcome(Contact.checkWebsite(`https://qantas.com.au/${character}`)),
        "invalid_contact website",
        at
      )
    }
  })

  it("a phone is E.164 exactly as written and valid for its plan, a landline or another country's number too", () => {
    for (const phone of ["+61412345678", "+61298765432", "+6493001234", "+442071234567", "+6561234567"]) {
      assert.strictEqual(outcome(Contact.checkPhone(phone)), "ok", phone)
    }
    for (
      const phone of ["0412345678", "+61 412 345 678", "+610412345678", "61412345678", "+6141234", "+61412345678 "]
    ) {
      assert.strictEqual(outcome(Contact.checkPhone(phone)), "invalid_contact contact.phone", phone)
    }
  })

  it("a website is an http or https URL with a host, without credentials or whitespace", () => {
    for (const website of ["https://acme.example", "http://acme.example/about?x=1", "https://www.acme.com.au:8443/"]) {
      assert.strictEqual(outcome(Contact.checkWebsite(website)), "ok", website)
    }
    for (
      const website of [
        "acme.example",
        "ftp://acme.example",
        "javascript:alert(1)",
        "mailto:jane@acme.example",
        "https://jane:secret@acme.example",
        " https://acme.example",
        "https://acme.example/a b",
        "https://",
        `https://acme.example/${"a".repeat(2048)}`
      ]
    ) {
      assert.strictEqual(outcome(Contact.checkWebsite(website)), "invalid_contact website", website)
    }
  })

  it("a contact passes whole and unchanged, or is refused for its first field at fault: name, e-mail, phone", () => {
    assert.deepStrictEqual(Contact.check(representative), Either.right(representative))
    assert.strictEqual(
      outcome(Contact.check({ ...representative, name: "  ", email: "nope", phone: "nope" })),
      "invalid_contact contact.name"
    )
    assert.strictEqual(
      outcome(Contact.check({ ...representative, email: "nope", phone: "nope" })),
      "invalid_contact contact.email"
    )
    assert.strictEqual(
      outcome(Contact.check({ ...representative, phone: "0412345678" })),
      "invalid_contact contact.phone"
    )
  })
})
