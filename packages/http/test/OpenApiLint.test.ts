import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Api } from "@sendline/api/Api"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { root } from "./support/Build.js"

/** Redocly CLI's lint of `document` under the repository's `redocly.yaml` (`extends: [recommended]`): its JSON report. */
const lint = async (document: unknown) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sendline-openapi-"))
  const file = path.join(dir, "openapi.json")
  fs.writeFileSync(file, JSON.stringify(document, null, 2))
  try {
    const { stdout } = await promisify(execFile)(
      path.join(root, "node_modules/.bin/redocly"),
      ["lint", "--config", path.join(root, "redocly.yaml"), "--format=json", file],
      { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" } }
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }))
    return JSON.parse(stdout) as {
      totals: { errors: number; warnings: number }
      problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("OpenAPI document under Redocly's recommended rules", () => {
  it("GET /v1/openapi.json's document lints with 0 errors and 0 warnings", async () => {
    const report = await lint(OpenApi.fromApi(Api))
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
    assert.deepStrictEqual(problems, [])
    assert.deepStrictEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 })
  }, 60_000)

  it("the lint reports what breaks a rule (a document without servers fails)", async () => {
    const { servers: _, ...document } = OpenApi.fromApi(Api)
    const report = await lint(document)
    assert.isAbove(report.totals.errors, 0)
    assert.include(report.problems.map((p) => p.ruleId), "no-empty-servers")
  }, 60_000)
})
