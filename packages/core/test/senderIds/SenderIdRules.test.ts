/**
 * Each market's Sender ID rules: AU's are ACMA's SMS Sender ID Register's (the source is in
 * docs/decisions.md, "Sender ID rules of a market"); the other markets keep CONTRACT §3's format.
 */
import { assert, describe, it } from "@effect/vitest"
import { Markets, SenderIdRules } from "@sendline/core"
import { Either, Option } from "effect"

const market = (code: string) => Option.getOrThrow(Option.fromNullable(Markets.defaults.find((m) => m.code === code)))

/** `"ok"`, or the refusal's code, field and message. */
const checked = (code: string, senderId: string) =>
  Either.match(SenderIdRules.check(market(code), senderId), {
    onLeft: (refused) => ({ code: refused.code, field: refused.field, message: refused.message }),
    onRight: () => "ok" as const
  })

/** Asserts that `senderId` is refused in `code` as `invalid_sender_id`, its message including `rule`. */
const assertRefused = (code: string, senderId: string, rule: string) => {
  const outcome = checked(code, senderId)
  assert.notStrictEqual(outcome, "ok", `${senderId} in ${code}`)
  if (outcome === "ok") return
  assert.strictEqual(outcome.code, "invalid_sender_id")
  assert.strictEqual(outcome.field, "sender_id")
  assert.include(outcome.message, rule, `${senderId} in ${code}`)
}

describe("SenderIdRules: AU follows ACMA's SMS Sender ID Register", () => {
  it("takes brand names of 2–11 characters, restricted words among other words included", () => {
    for (const senderId of ["Acme", "AB", "Acme Bank", "BankWest", "NAB Alerts", "Telstra", "A1", "Hello World"]) {
      assert.strictEqual(checked("AU", senderId), "ok", senderId)
    }
  })

  it("refuses a Sender ID of one character, naming the fewest", () => {
    assertRefused("AU", "A", "at least 2 characters in AU")
  })

  it("refuses a Sender ID containing the word Unverified in any case, anywhere", () => {
    for (const senderId of ["Unverified", "UNVERIFIED", "unverified", "AcmeUnverif", "Unverified1", "xUNVERIFIED"]) {
      const outcome = checked("AU", senderId)
      if (senderId === "AcmeUnverif") assert.strictEqual(outcome, "ok", senderId)
      else assertRefused("AU", senderId, "must not contain the word unverified")
    }
  })

  it("refuses restricted generic words on their own, one or several, in any case and spacing", () => {
    for (
      const senderId of [
        "alert",
        "ALERT",
        "Bank",
        "billing",
        "Notice",
        "URGENT",
        "Info",
        "Verify",
        "Bank Alert",
        "BANKALERT",
        "Anti Fraud",
        "Support"
      ]
    ) {
      assertRefused("AU", senderId, "must not consist only of restricted generic words in AU")
    }
  })

  it("refuses digits only and every breach of CONTRACT §3's format", () => {
    for (const senderId of ["12345", "ABCDEFGHIJKL", " Acme", "Acme!", ""]) {
      assertRefused("AU", senderId, "sender_id must be 1–11")
    }
  })

  it("takes the restricted words as configuration", () => {
    const au = market("AU")
    const configured = { ...au, senderIdRules: { ...Markets.acmaSenderIdRules, restrictedWords: ["promo"] } }
    assert.isTrue(Either.isLeft(SenderIdRules.check(configured, "PROMO")))
    assert.isTrue(Either.isRight(SenderIdRules.check(configured, "Alert")))
  })
})

describe("SenderIdRules: NZ, SG and GB keep CONTRACT §3's rule", () => {
  it("takes one character, restricted words and Unverified, and refuses what §3 refuses", () => {
    for (const code of ["NZ", "SG", "GB"]) {
      for (const senderId of ["A", "Alert", "Bank", "Unverified"]) {
        assert.strictEqual(checked(code, senderId), "ok", `${senderId} in ${code}`)
      }
      for (const senderId of ["12345", "ABCDEFGHIJKL", "Acme!"]) assertRefused(code, senderId, "sender_id must be 1–11")
    }
  })
})
