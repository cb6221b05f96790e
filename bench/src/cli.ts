/**
 * The `sendline` executable's start-up: wall times of `sendline --help` and `sendline migrate` (on an
 * up-to-date SQLite file), each the median of five runs after one unmeasured, as the built
 * JavaScript runs them (`npm run sendline`, `npm start`) and, for the before and after in the same
 * run, as they ran before: the same entry point transpiled at every call (`node --import tsx`). Also
 * what `npm run sendline` pays before the executable starts: `tsc -b packages/http` with nothing to
 * build, and the whole `npm run --silent sendline -- --help`.
 *
 * Target: `sendline --help` under one second on an idle 2-core machine. The load average is
 * printed beside it: on a busy machine every figure is slower.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const RUNS = 5
/** `sendline --help`, built: at most this many seconds (median). */
const TARGET_HELP_SECONDS = 1

const built = ["packages/http/dist/src/bin.js"]
const transpiled = ["--conditions=@sendline/source", "--import", "tsx", "packages/http/src/bin.ts"]
const tsc = [createRequire(import.meta.url).resolve("typescript/bin/tsc"), "-b", "packages/http"]

/** Runs `command args` from the repository root and answers its wall time in seconds; fails if it fails. */
const time = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): number => {
  const start = performance.now()
  const run = spawnSync(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: "utf8" })
  const seconds = (performance.now() - start) / 1000
  if (run.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${run.status ?? run.signal}:\n${run.stdout}${run.stderr}`)
  }
  return seconds
}

const median = (values: ReadonlyArray<number>): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** What one row measured: its runs, in seconds. */
interface Row {
  readonly name: string
  readonly runs: ReadonlyArray<number>
  readonly target: string
}

/** One unmeasured run (caches warm, a store migrated), then `RUNS` measured ones. */
const measure = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) => {
  time(command, args, env)
  return Array.from({ length: RUNS }, () => time(command, args, env))
}

/** What `runCliBench` measured: medians in seconds. */
export interface CliBenchResult {
  readonly help: number
  readonly migrate: number
  readonly helpTranspiled: number
  readonly migrateTranspiled: number
  readonly helpTargetMet: boolean
}

/** Builds the executable if it is out of date, then times its start-up, built and transpiled, and prints a table. */
export async function runCliBench(): Promise<CliBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "sendline-bench-cli-"))
  try {
    const [oneMinute, fiveMinutes] = loadavg()
    console.log(
      `Median of ${RUNS} runs after one unmeasured; load average ${oneMinute!.toFixed(2)} (1 min), ${
        fiveMinutes!.toFixed(2)
      } (5 min) ` +
        `on ${availableParallelism()} cores (the target is for an idle machine)`
    )
    const build = time(process.execPath, tsc, {})
    console.log(`tsc -b packages/http first, so that the built rows run these sources: ${build.toFixed(2)} s`)
    const env = { SQLITE_PATH: join(dataDir, "sendline.sqlite"), DATABASE_URL: "", LOG_LEVEL: "warning" }
    const help = measure(process.execPath, [...built, "--help"], env)
    const migrate = measure(process.execPath, [...built, "migrate"], env)
    const helpTranspiled = measure(process.execPath, [...transpiled, "--help"], env)
    const migrateTranspiled = measure(process.execPath, [...transpiled, "migrate"], env)
    const noBuild = measure(process.execPath, tsc, {})
    const npm = process.platform === "win32" ? "npm.cmd" : "npm"
    const npmHelp = measure(npm, ["run", "--silent", "sendline", "--", "--help"], env)
    const helpTargetMet = median(help) < TARGET_HELP_SECONDS

    const rows: ReadonlyArray<Row> = [
      {
        name: "sendline --help (built)",
        runs: help,
        target: `< ${TARGET_HELP_SECONDS} s: ${helpTargetMet ? "met" : "NOT met"}`
      },
      { name: "sendline migrate (built, up to date)", runs: migrate, target: "(reported)" },
      { name: "sendline --help (tsx, as before)", runs: helpTranspiled, target: "(before)" },
      { name: "sendline migrate (tsx, as before)", runs: migrateTranspiled, target: "(before)" },
      { name: "tsc -b packages/http, nothing to build", runs: noBuild, target: "(reported)" },
      { name: "npm run sendline -- --help", runs: npmHelp, target: "(reported)" }
    ]
    console.log(`\n  ${"command".padEnd(38)} ${"median s".padStart(8)}  ${"runs s".padEnd(29)}  target`)
    for (const row of rows) {
      console.log(
        `  ${row.name.padEnd(38)} ${median(row.runs).toFixed(2).padStart(8)}  ${
          row.runs.map((run) => run.toFixed(2)).join(" ").padEnd(29)
        }  ${row.target}`
      )
    }
    const speedup = (before: ReadonlyArray<number>, after: ReadonlyArray<number>) =>
      (median(before) / median(after)).toFixed(1)
    console.log(
      `\nBuilt against transpiled at every call: --help ${speedup(helpTranspiled, help)}× faster, ` +
        `migrate ${speedup(migrateTranspiled, migrate)}× faster.`
    )
    return {
      help: median(help),
      migrate: median(migrate),
      helpTranspiled: median(helpTranspiled),
      migrateTranspiled: median(migrateTranspiled),
      helpTargetMet
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
