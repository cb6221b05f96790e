/**
 * `sendline --help` as a user reads it: every command described, optional flags shown as optional,
 * no line over 100 columns, and answered without loading what only running a command needs.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { sendline } from "../support/Processes.js"

/** The commands a help's list names, as words after `sendline`: ["serve"], …, ["keys", "create"], … */
const listedCommands = (help: string): Array<Array<string>> =>
  section(help, "COMMANDS").filter((line) => line.startsWith("  - ")).map((line) => {
    const words = line.slice(4).split(" ")
    const options = words.findIndex((word) => /^[-[<]/.test(word))
    return words.slice(0, options < 0 ? undefined : options)
  })

/** The lines of `help`'s section `title` (USAGE, DESCRIPTION, OPTIONS, COMMANDS), blank ones left out. */
const section = (help: string, title: string): Array<string> => {
  const lines = help.split("\n")
  const start = lines.indexOf(title)
  if (start < 0) return []
  const end = lines.findIndex((line, i) => i > start && /^[A-Z]+$/.test(line))
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((line) => line.trim() !== "")
}

/** @effect/cli's own options, which every command's help lists but no usage shows. */
const builtIns = /^(--completions|--log-level|\(-h, --help\)|--wizard|--version)(?= |$)/

/** Every command and group, as `sendline --help` lists them. */
const commands: ReadonlyArray<ReadonlyArray<string>> = [
  [],
  ["serve"],
  ["migrate"],
  ["routes"],
  ["routes", "check"],
  ["accounts"],
  ["accounts", "create"],
  ["accounts", "limit"],
  ["keys"],
  ["keys", "create"],
  ["keys", "revoke"],
  ["sids"],
  ["sids", "import"],
  ["opt-outs"],
  ["opt-outs", "import"]
]

describe("sendline --help", () => {
  it("lists every command and group", async () => {
    expect([[], ...listedCommands((await sendline({}, "--help")).stdout)]).toEqual(commands)
  })

  // one process each: a test apiece, each within its own limit on a loaded machine
  for (const path of commands) {
    const name = `sendline ${path.join(" ")} --help`.replace("  ", " ")
    it(`${name}: described in one line, optional flags in brackets, every line within 100 columns`, async () => {
      const help = await sendline({}, ...path, "--help")
      expect(help.code, name).toBe(0)
      expect(help.stderr, name).toBe("")
      const wide = help.stdout.split("\n").filter((line) => line.length > 100)
      expect(wide, name).toEqual([])
      expect(section(help.stdout, "DESCRIPTION"), name).toHaveLength(1)
      // every option the help calls optional is in brackets in the usage
      const usage = section(help.stdout, "USAGE").join(" ").replace(/\s+/g, " ")
      const options = section(help.stdout, "OPTIONS")
      options.forEach((line, i) => {
        if (line.startsWith(" ") || builtIns.test(line)) return
        const next = options.findIndex((other, j) => j > i && !other.startsWith(" "))
        const described = options.slice(i + 1, next < 0 ? undefined : next)
        const optional = described.some((text) => text.includes("This setting is optional."))
        expect(usage.includes(`[${line}]`), `${name}: ${line} in ${usage}`).toBe(optional)
      })
      // each command a group lists has its description: beside its usage when every entry fits
      // the width, else on the next line (HelpText.fit)
      const listed = section(help.stdout, "COMMANDS")
      listed.forEach((line, i) => {
        if (!line.startsWith("  - ")) return
        if (/^ {2}- \S.*? {2,}[A-Z]/.test(line)) return
        const rest = listed.slice(i + 1)
        const description = rest.find((next) => !next.startsWith("        "))
        expect(description, `${name}: ${line}`).toMatch(/^ {4}[A-Z]/)
      })
    })
  }

  it("loads neither the core's index, the stores, the mailer, the webhook transport nor the HTTP server", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sendline-help-"))
    try {
      const trace = join(dir, "imports.txt")
      const hooks = resolve(import.meta.dirname, "fixtures/import-trace.mjs")
      const help = await sendline({ IMPORT_TRACE: trace, NODE_OPTIONS: `--import=${hooks}` }, "--help")
      expect(help.code).toBe(0)
      const loaded = readFileSync(trace, "utf8").split("\n")
      // the trace works: it saw the command line itself
      expect(loaded.some((url) => url.endsWith("/packages/http/dist/src/server/Cli.js"))).toBe(true)
      const heavy = loaded.filter((url) =>
        /\/packages\/(core\/dist\/src\/index|store-sql|store-sqlite|store-postgres|mailer-smtp|webhooks-node|carrier-mock)\b/
          .test(url) ||
        /\/packages\/http\/dist\/src\/(server\/(Server|Config|Store)|Api)\.js$/.test(url) ||
        /\/node_modules\/(@effect\/sql|@effect\/platform-node\/dist\/esm\/NodeHttpServer|better-sqlite3|pg|nodemailer)\b/
          .test(url)
      )
      expect(heavy).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
