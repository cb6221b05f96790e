/**
 * `sendline opt-outs import` as a user runs it: a real process on a real SQLite file, the same
 * import as the API's (`Admin.importOptOuts` → `OptOuts.importCsv`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createAccount, sendline } from "../support/Processes.js"
import { startupPatience } from "../support/Waiting.js"

describe("sendline opt-outs import", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-opt-outs-"))
  const env = { SQLITE_PATH: join(dir, "cli.sqlite"), LOG_LEVEL: "Warning" }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("adds a file's numbers to the account's list, reports the bad lines, and again adds nothing", async () => {
    const acct = await createAccount(env)
    const file = join(dir, "opt-outs.csv")
    writeFileSync(
      file,
      "\uFEFFphone,reason\r\n+61412345678,stop\r\n\r\n+61 412 345 679\r\nnot a number\r\n+61412345678\r\n"
    )
    const first = await sendline(env, "opt-outs", "import", "--account", acct, file)
    expect([first.code, JSON.parse(first.stdout)], first.stderr).toEqual([0, {
      imported: 2,
      already_listed: 1,
      invalid: [{ line: 5, value: "not a number" }]
    }])
    const again = await sendline(env, "opt-outs", "import", "--account", acct, file)
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, already_listed: 3 })

    const unknown = await sendline(env, "opt-outs", "import", "--account", "acct_nobody", file)
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      expect.stringContaining("sendline: not_found: No account acct_nobody.")
    ])
    const missing = await sendline(env, "opt-outs", "import", "--account", acct, join(dir, "none.csv"))
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("invalid_request: Cannot read")])
  }, 7 * startupPatience)
})
