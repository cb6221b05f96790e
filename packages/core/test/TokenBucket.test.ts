import { describe, expect, it } from "@effect/vitest"
import * as TokenBucket from "../src/TokenBucket.js"

describe("TokenBucket", () => {
  it("holds one second's worth: 3 a second lets three through at once, then one a third of a second", () => {
    const bucket = TokenBucket.make(3, 0)
    expect([bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([0, 0, 0])
    expect(bucket.take(0)).toBe(334)
    expect(bucket.take(333)).toBe(1)
    expect(bucket.take(334)).toBe(0)
  })

  it("never holds more than a second's worth, however long it waits", () => {
    const bucket = TokenBucket.make(2, 0)
    bucket.take(0)
    bucket.take(0)
    expect(bucket.isFull(60_000)).toBe(true)
    expect([bucket.take(60_000), bucket.take(60_000), bucket.take(60_000)]).toEqual([0, 0, 500])
  })

  it("a rate below one a second lets one request through, then the next after its interval", () => {
    const bucket = TokenBucket.make(0.5, 0)
    expect(bucket.take(0)).toBe(0)
    expect(bucket.take(0)).toBe(2000)
    expect(bucket.take(1500)).toBe(500)
    expect(bucket.take(2000)).toBe(0)
  })

  it("is full again once refilled, and not before", () => {
    const bucket = TokenBucket.make(10, 0)
    bucket.take(0)
    expect(bucket.isFull(50)).toBe(false)
    expect(bucket.isFull(100)).toBe(true)
  })

  it("a clock read out of order takes nothing back", () => {
    const bucket = TokenBucket.make(1, 1000)
    expect(bucket.take(1000)).toBe(0)
    expect(bucket.take(900)).toBe(1000)
    expect(bucket.take(2000)).toBe(0)
  })
})
