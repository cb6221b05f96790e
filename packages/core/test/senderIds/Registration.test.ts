import { assert, describe, it } from "@effect/vitest"
import { Registration } from "@sendline/core"
import * as fc from "fast-check"

describe("Registration.derive (CONTRACT §6: a Sender ID's status from its registrations)", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<Registration.RegistrationStatus>, string]> = [
    [["pending_operator_review", "pending_operator_review", "pending_operator_review"], "pending"],
    [["approved", "approved", "pending_operator_review"], "pending"],
    [["approved", "approved", "approved"], "registered"],
    [["approved", "info_requested", "pending_operator_review"], "info_requested"],
    [["approved", "resubmitted", "approved"], "pending"],
    [["rejected", "approved", "approved"], "rejected"],
    [["rejected", "info_requested", "approved"], "rejected"],
    [[], "pending"]
  ]
  for (const [statuses, expected] of cases) {
    it(`${statuses.join(", ") || "no registrations"} → ${expected}`, () => {
      assert.strictEqual(Registration.derive(statuses), expected)
    })
  }

  it("the order of the registrations never matters, and any rejection wins", () =>
    fc.assert(fc.property(
      fc.array(fc.constantFrom(...Registration.RegistrationStatus.literals), { minLength: 1, maxLength: 5 }),
      (statuses) => {
        const derived = Registration.derive(statuses)
        assert.strictEqual(Registration.derive([...statuses].reverse()), derived)
        if (statuses.includes("rejected")) assert.strictEqual(derived, "rejected")
        assert.strictEqual(derived === "registered", statuses.every((s) => s === "approved"))
      }
    )))
})
