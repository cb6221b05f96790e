#!/usr/bin/env node
// `npm run pack [-- DIR]`: packs every package under packages/ (the workspaces of the root
// package.json) into DIR (default packs/), each as `sendline-<name>.tgz` without its version, so
// that the README's install lines name the same files release after release. Packs what `tsc -b`
// built: `npm run pack` builds first.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, renameSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const destination = resolve(process.argv[2] ?? join(root, "packs"))
const workspaces = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).workspaces
  .filter((path) => path.startsWith("packages/"))

mkdirSync(destination, { recursive: true })
const npm = process.env.npm_execpath
const [command, prefix] = npm ? [process.execPath, [npm]] : ["npm", []]
const packed = JSON.parse(execFileSync(command, [
  ...prefix,
  "pack",
  "--json",
  "--pack-destination",
  destination,
  ...workspaces.flatMap((path) => ["--workspace", path])
], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }))

for (const { filename, name } of packed) {
  const file = `sendline-${name.replace(/^@sendline\//, "")}.tgz`
  renameSync(join(destination, filename), join(destination, file))
  console.log(`${name} → ${join(destination, file)}`)
}
