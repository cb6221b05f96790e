import { assert, describe, it } from "@effect/vitest"
import { type Brand, Ids, Mail, RelationshipMail } from "@sendline/core"
import { Effect } from "effect"

const brand: Brand.Brand = {
  id: "brand_01m810vyc0923e1mzzvf7z7131",
  name: "Acme Pty Ltd",
  identifierType: "ABN",
  identifierValue: "51824753556",
  market: "AU",
  status: "verified",
  contact: { name: "Jo Citizen", email: "jo@acme.example", phone: "+61412345678" },
  createdAt: 0
}

const relationship: Brand.BrandRelationship = {
  id: "rel_01m810vyc0923e1mzzvf7z7132",
  brandId: brand.id,
  provider: { accountId: "acct_01m810vyc0923e1mzzvf7z7133", name: "Bolt Messaging", type: "cpaas" },
  status: "pending",
  createdAt: 0
}

describe("RelationshipMail", () => {
  it("is addressed to the brand's contact and names the provider and the brand in its subject", () => {
    const mail = RelationshipMail.make(brand, relationship)
    assert.strictEqual(mail.to, "jo@acme.example")
    assert.strictEqual(mail.subject, "Approve Bolt Messaging to send SMS for Acme Pty Ltd?")
  })

  it("tells who submitted what, what approving allows, and how to approve or reject it", () => {
    const { text } = RelationshipMail.make(brand, relationship)
    assert.match(text, /^Dear Jo Citizen,/)
    for (
      const expected of [
        "Bolt Messaging (cpaas, account acct_01m810vyc0923e1mzzvf7z7133) has submitted Acme Pty Ltd, ABN 51824753556, market AU",
        "can neither read nor change the brand, nor register Sender IDs under it",
        "the Brand Owner account that holds ABN 51824753556 (permission brands:write)",
        "POST /v1/brand-relationships/rel_01m810vyc0923e1mzzvf7z7132/approve",
        "POST /v1/brand-relationships/rel_01m810vyc0923e1mzzvf7z7132/reject",
        "GET /v1/brand-relationships?status=pending",
        "If you do not know Bolt Messaging, reject it."
      ]
    ) assert.include(text, expected)
  })

  it("is plain text, one line per line of ours: what a submitter or an account wrote never adds a line or a header", () => {
    const evil: Brand.BrandRelationship = {
      ...relationship,
      provider: {
        ...relationship.provider,
        name: "Bolt\r\nBcc: victim@target.example\n\nTo approve, POST /v1/brand-relationships/rel_evil/approve"
      }
    }
    const named: Brand.Brand = {
      ...brand,
      name: "Acme\u2028Pty\u0085Ltd\u202e",
      contact: { ...brand.contact, name: "Jo\rCitizen" }
    }
    const plain = RelationshipMail.make(brand, relationship)
    const mail = RelationshipMail.make(named, evil)
    assert.notMatch(mail.subject, /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/)
    assert.strictEqual(mail.text.split("\n").length, plain.text.split("\n").length)
    assert.notMatch(mail.text, /[\r\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/)
    assert.isFalse(
      mail.text.split("\n").some((line) => line.startsWith("To approve, POST /v1/brand-relationships/rel_evil"))
    )
    assert.notProperty(mail, "html", "text only: nothing is read as HTML")
  })

  it("Mail.make keeps a subject on one line whoever drafted it", () =>
    Effect.gen(function*() {
      const mail = yield* Mail.make({
        to: "jo@acme.example",
        subject: "Hi\r\nBcc: victim@target.example",
        text: "Body\nlines"
      })
      assert.strictEqual(mail.subject, "Hi  Bcc: victim@target.example")
      assert.strictEqual(mail.text, "Body\nlines", "the body's own lines are kept")
    }).pipe(Effect.provide(Ids.layerTest), Effect.runSync))

  it("a change that needs the Brand Owner again says what changed, from what to what, and how to approve it", () => {
    const mail = RelationshipMail.make({ ...brand, website: "https://www.qantas.com.au" }, relationship, {
      website: { before: "https://acme.example", after: "https://www.qantas.com.au" }
    })
    assert.strictEqual(mail.subject, "Approve Bolt Messaging's change to Acme Pty Ltd?")
    for (
      const expected of [
        "Bolt Messaging (cpaas, account acct_01m810vyc0923e1mzzvf7z7133) has changed Acme Pty Ltd, ABN 51824753556",
        "website: \"https://acme.example\" → \"https://www.qantas.com.au\"",
        "Sender IDs already registered under the brand keep sending",
        "POST /v1/brand-relationships/rel_01m810vyc0923e1mzzvf7z7132/approve",
        "POST /v1/brand-relationships/rel_01m810vyc0923e1mzzvf7z7132/reject"
      ]
    ) assert.include(mail.text, expected)
  })
})
