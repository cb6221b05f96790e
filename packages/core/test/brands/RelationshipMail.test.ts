import { assert, describe, it } from "@effect/vitest"
import { type Brand, RelationshipMail } from "@sendline/core"

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
})
