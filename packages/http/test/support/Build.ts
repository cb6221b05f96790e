/**
 * The repository and the `sendline` executable built from it. The default export is vitest's global
 * setup: it builds the executable and the packages it imports (`tsc -b packages/http`, incremental: a
 * fraction of a second when nothing changed) before any test runs, so that the tests that spawn it
 * (`Processes.ts`) run the JavaScript of the sources under test, never an older build. A build that
 * fails (a type error) fails the run, with tsc's output.
 */
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { resolve } from "node:path"

/** The repository root: where `npm run sendline` runs. */
export const root = resolve(import.meta.dirname, "../../../..")

/** The built executable, relative to `root`. */
export const bin = "packages/http/dist/src/bin.js"

/** Builds `sendline` with `tsc -b packages/http`; throws tsc's output if it fails. */
export default function build(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  try {
    execFileSync(process.execPath, [tsc, "-b", "packages/http"], { cwd: root, stdio: "pipe", encoding: "utf8" })
  } catch (error) {
    const { stderr = "", stdout = "" } = error as { stdout?: string; stderr?: string }
    throw new Error(`tsc -b packages/http failed, so the tests would run an older sendline:\n${stdout}${stderr}`)
  }
}
