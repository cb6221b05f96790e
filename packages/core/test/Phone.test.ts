import { assert, describe, it } from "@effect/vitest"
import { Phone } from "@sendline/core"

describe("Phone", () => {
  it("accepts a mobile number of the market", () => {
    assert.isUndefined(Phone.check("+61412345678", "AU"))
    assert.isUndefined(Phone.check("+64211234567", "NZ"))
    assert.isUndefined(Phone.check("+6591234567", "SG"))
    assert.isUndefined(Phone.check("+447400123456", "GB"))
  })

  it("names what is wrong with a recipient", () => {
    assert.strictEqual(Phone.check("0412345678", "AU"), "invalid_phone_number")
    assert.strictEqual(Phone.check("+61 412 345 678", "AU"), "invalid_phone_number")
    assert.strictEqual(Phone.check("+6141234", "AU"), "invalid_phone_number")
    assert.strictEqual(Phone.check("+61298765432", "AU"), "not_a_mobile_number")
    assert.strictEqual(Phone.check("+64211234567", "AU"), "phone_market_mismatch")
  })

  it("knows the country of a number's plan, where the metadata does: a Guernsey mobile is not GB's", () => {
    assert.strictEqual(Phone.countryOf("+64211234567"), "NZ")
    assert.strictEqual(Phone.countryOf("+447911123456"), "GG")
    assert.strictEqual(Phone.check("+447911123456", "GB"), "phone_market_mismatch")
    assert.isUndefined(Phone.countryOf("not a number"))
  })
})
