import { assert, describe, it } from "@effect/vitest"
import { RetrySchedule } from "@sendline/core"
import { Option } from "effect"

describe("RetrySchedule (CONTRACT §7)", () => {
  it("after the first delivery and each retry fails, the next is due 30 s, 2 min, 15 min, 1 h, 4 h, 24 h after that failure", () => {
    const failedAt = Date.UTC(2026, 10, 22, 7, 0, 0)
    const waits = [0, 1, 2, 3, 4, 5].map((attempt) =>
      Option.getOrThrow(RetrySchedule.nextAttemptAt(attempt, failedAt)) - failedAt
    )
    assert.deepStrictEqual(waits, [30_000, 120_000, 900_000, 3_600_000, 14_400_000, 86_400_000])
  })

  it("when retry 6 fails there is no next attempt", () => {
    assert.strictEqual(RetrySchedule.maxRetries, 6)
    assert.isTrue(Option.isNone(RetrySchedule.nextAttemptAt(6, 0)))
  })
})
