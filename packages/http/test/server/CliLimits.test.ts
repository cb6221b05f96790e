/**
 * `sendline accounts limit` as a user runs it: a real process on a real SQLite file.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createAccount, sendline } from "../support/Processes.js"
import { startupPatience } from "../support/Waiting.js"

describe("sendline accounts limit", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-limits-"))
  const env = { SQLITE_PATH: join(dir, "cli.sqlite"), LOG_LEVEL: "Warning" }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("sets, replaces and removes an account's monthly limit, printing its limits; refuses what is wrong", async () => {
    const acct = await createAccount(env)
    const limit = (...args: Array<string>) => sendline(env, "accounts", "limit", "--account", acct, ...args)

    const set = await limit("--monthly", "AUD:500.00")
    expect([set.code, JSON.parse(set.stdout)]).toEqual([0, {
      account_id: acct,
      limits: [{ currency: "AUD", monthly: "500.0000" }]
    }])
    const replaced = await limit("--monthly", "AUD:1")
    expect(JSON.parse(replaced.stdout).limits).toEqual([{ currency: "AUD", monthly: "1.0000" }])
    const removed = await limit("--remove", "AUD")
    expect([removed.code, JSON.parse(removed.stdout).limits]).toEqual([0, []])

    const again = await limit("--remove", "AUD")
    expect([again.code, again.stdout]).toEqual([1, ""])
    expect(again.stderr).toContain(`sendline: not_found: Account ${acct} has no AUD spending limit.`)
    const badCurrency = await limit("--monthly", "XYZ:1.00")
    expect([badCurrency.code, badCurrency.stderr]).toEqual([1, expect.stringContaining("invalid_parameter")])
    const neither = await limit()
    expect([neither.code, neither.stderr]).toEqual([1, expect.stringContaining("--monthly CURRENCY:AMOUNT")])
  }, 7 * startupPatience)
})
