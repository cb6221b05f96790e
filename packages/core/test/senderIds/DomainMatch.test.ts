import { assert, describe, it } from "@effect/vitest"
import { DomainMatch } from "@sendline/core"
import { Option } from "effect"

describe("DomainMatch", () => {
  const labels: ReadonlyArray<readonly [string, string | undefined]> = [
    ["https://www.acme.com.au", "acme"],
    ["https://www.acme.com.au/about?x=1", "acme"],
    ["http://shop.acme.co.uk", "acme"],
    ["https://acme.co.nz", "acme"],
    ["https://ACME.COM.SG", "acme"],
    ["https://a.b.c.acme-group.com", "acme-group"],
    ["https://acme.github.io", "acme"],
    ["https://acme.com.au:8443", "acme"],
    ["https://203.0.113.7", undefined],
    ["https://[2001:db8::1]", undefined],
    ["https://com.au", undefined],
    ["https://localhost", undefined]
  ]
  for (const [website, label] of labels) {
    it(`the registrable label of ${website} is ${label ?? "none"}`, () => {
      assert.deepStrictEqual(DomainMatch.registrableLabel(website), Option.fromNullable(label))
    })
  }

  it("a Sender ID matches when, lowercased without spaces, it appears in the label", () => {
    assert.isTrue(DomainMatch.matches("Acme", "https://www.acme.com.au"))
    assert.isTrue(DomainMatch.matches("ACME Grp", "https://acmegrp.co.uk"))
    assert.isTrue(DomainMatch.matches("Acme", "https://acme-group.com"))
    assert.isFalse(DomainMatch.matches("Acme", "https://www.other.com.au"))
    assert.isFalse(
      DomainMatch.matches("Acme", "https://acme.other.com.au"),
      "a subdomain is not the registrable domain"
    )
    assert.isFalse(DomainMatch.matches("Acme", "https://203.0.113.7"))
    assert.isFalse(DomainMatch.matches("Au", "https://www.acme.com.au"), "the public suffix does not count")
  })
})
