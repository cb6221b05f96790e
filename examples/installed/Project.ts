/**
 * A project of a Sendline user, outside the repository: a folder of its own, the install line the
 * README gives for its use run word for word, its TypeScript checked as strictly as a user's may
 * be, and its programs run with the packages as installed.
 */
import { execFile } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { promisify } from "node:util"

const exec = promisify(execFile)

/** The repository root. */
export const root = resolve(import.meta.dirname, "../..")

/** The uses the README's "Install" section has an install line for. */
export type Use = "sqlite" | "postgres" | "client" | "server"

/**
 * What the README gives a user: an install line per use and the program to run ("Install"), and
 * the `overrides` to add to their package.json on Node 22 and later ("Node versions").
 */
export interface InstallSection {
  readonly lines: Readonly<Record<Use, string>>
  readonly program: string
  readonly overridesFromNode22: Readonly<Record<string, string>>
}

/** The use an install line's comment names (`# embed the core with SQLite, …`). */
const useOf = (comment: string): Use | undefined =>
  ([[/PostgreSQL/, "postgres"], [/SQLite/, "sqlite"], [/client/, "client"], [/server/, "server"]] as const)
    .find(([names]) => names.test(comment))?.[1]

/** The README's "Install" section: each `npm install` line under its use's comment, and its first TypeScript block. */
export const installSection = (readme: string): InstallSection => {
  const start = readme.indexOf("\n## Install\n")
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1))
  const lines: Partial<Record<Use, string>> = {}
  const sectionLines = section.split("\n")
  sectionLines.forEach((line, i) => {
    const use = line.startsWith("# ") ? useOf(line) : undefined
    const next = sectionLines[i + 1]
    if (use !== undefined && next?.startsWith("npm install ")) lines[use] = next
  })
  const program = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  const versions = readme.slice(readme.indexOf("\n## Node versions\n"))
  const overrides = /"overrides": (\{[^}]*\})/.exec(versions.slice(0, versions.indexOf("\n## ", 1)))?.[1]
  const missing = (["sqlite", "postgres", "client", "server"] as const).filter((use) => lines[use] === undefined)
  if (start < 0 || program === undefined || missing.length > 0) {
    throw new Error(`README.md's "Install" section lacks ${missing.join(", ") || "its program"}`)
  }
  if (overrides === undefined) throw new Error(`README.md's "Node versions" section gives no "overrides"`)
  return { lines: lines as Record<Use, string>, program, overridesFromNode22: JSON.parse(overrides) }
}

/** The exact version the repository pins for `name` (a root devDependency). */
const pinned = (name: string): string =>
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[name]

/** Whether this Node is 22 or later, where the README's "Node versions" overrides apply. */
const fromNode22 = Number(process.versions.node.split(".")[0]) >= 22

/**
 * A new ES module project in `dir`, as `npm init -y && npm pkg set type=module` makes it, with the
 * TypeScript and Node types of the repository to check it with (installed together with the use's
 * own line), and on Node 22 and later the `overrides` the README tells a user to add there.
 */
export const create = (dir: string, overridesFromNode22: Readonly<Record<string, string>>): void => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(
      {
        name: "my-service",
        version: "1.0.0",
        private: true,
        type: "module",
        devDependencies: { "@types/node": pinned("@types/node"), typescript: pinned("typescript") },
        ...(fromNode22 ? { overrides: overridesFromNode22 } : {})
      },
      null,
      2
    )
  )
}

/**
 * Runs the README's install `line` in `dir` with bash, `SENDLINE` the folder holding `packs/`.
 * Registry packages come from npm's cache where it has them; install scripts are off, so on Node
 * 20 the one native addon, better-sqlite3, is given the binary the repository built for this Node
 * (the same version: checked), instead of a 90-second compile. On Node 22 and later the README's
 * override gives a better-sqlite3 that ships its binaries, and nothing is given.
 */
export const install = async (dir: string, line: string, sendline: string): Promise<void> => {
  await exec("bash", ["-c", line], {
    cwd: dir,
    env: {
      ...process.env,
      SENDLINE: sendline,
      npm_config_prefer_offline: "true",
      npm_config_ignore_scripts: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      npm_config_loglevel: "error"
    },
    maxBuffer: 16 * 1024 * 1024
  })
  const addon = join(dir, "node_modules/better-sqlite3")
  if (!fromNode22 && existsSync(addon)) {
    const built = join(root, "node_modules/better-sqlite3")
    const version = (path: string) => JSON.parse(readFileSync(join(path, "package.json"), "utf8")).version
    if (version(addon) !== version(built)) {
      throw new Error(`better-sqlite3 ${version(addon)} installed, but the repository built ${version(built)}`)
    }
    mkdirSync(join(addon, "build/Release"), { recursive: true })
    copyFileSync(join(built, "build/Release/better_sqlite3.node"), join(addon, "build/Release/better_sqlite3.node"))
  }
}

/** tsc's errors in a project: its own and Sendline's (which fail it), and those in other packages' types. */
export interface TypeCheck {
  readonly errors: ReadonlyArray<string>
  readonly elsewhere: ReadonlyArray<string>
}

/**
 * Type-checks and compiles `files` of `dir` into `dir/dist` under `strict`,
 * `exactOptionalPropertyTypes` and `skipLibCheck: false`. Errors in the project's files and in
 * `@sendline/*` types fail it; those in other packages' types (none of Sendline's doing, e.g.
 * `ws`'s missing types under `@effect/platform-node`) are returned apart.
 */
export const typeCheck = async (dir: string, files: ReadonlyArray<string>): Promise<TypeCheck> => {
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          types: ["node"],
          outDir: "dist"
        },
        files
      },
      null,
      2
    )
  )
  const output = await exec(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", dir], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024
  }).then(({ stdout }) => stdout, (error: { stdout: string }) => error.stdout)
  const diagnostics = output.split("\n").filter((line) => /error TS\d+/.test(line))
  const ours = (line: string) => !line.includes("node_modules/") || line.includes("node_modules/@sendline/")
  return { errors: diagnostics.filter(ours), elsewhere: diagnostics.filter((line) => !ours(line)) }
}

/** Runs `dist/<script>` of `dir` with `env` added; its output, or its failure with the output. */
export const run = async (
  dir: string,
  script: string,
  env: Readonly<Record<string, string>> = {}
): Promise<string> => {
  const { stderr, stdout } = await exec(process.execPath, [join(dir, "dist", script)], {
    cwd: dir,
    env: { ...process.env, ...env },
    timeout: 60_000
  })
  return stdout + stderr
}
