#!/usr/bin/env node
// `npm run pack [-- DIR]`: packs every package under packages/ (the workspaces of the root
// package.json) into DIR (default packs/), each as `sendline-<name>.tgz` without its version, so
// that the README's install lines name the same files release after release. Packs what `tsc -b`
// built: `npm run pack` builds first. check-packages.mjs packs through `pack` too.
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The directories of the public workspaces under packages/, a trailing `*` of a pattern expanded, in the root's order. */
export const packageDirectories = () => {
  const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  return workspaces.filter((pattern) => pattern.startsWith("packages/")).flatMap((pattern) =>
    pattern.endsWith("/*")
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true }).filter((entry) => entry.isDirectory())
        .map((entry) => `${pattern.slice(0, -1)}${entry.name}`)
      : [pattern]
  ).filter((dir) => {
    try {
      return !JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).private
    } catch {
      return false
    }
  })
}

/** Packs every package into `destination` with one `npm pack`; each package's name and tarball path. */
export const pack = (destination) => {
  mkdirSync(destination, { recursive: true })
  const packed = JSON.parse(execFileSync(
    "npm",
    ["pack", "--json", "--pack-destination", destination, ...packageDirectories().flatMap((dir) => ["-w", dir])],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }
  ))
  return packed.map(({ filename, name }) => {
    const tarball = join(destination, `sendline-${name.replace(/^@sendline\//, "")}.tgz`)
    renameSync(join(destination, filename), tarball)
    return { name, tarball }
  })
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? "")).href) {
  for (const { name, tarball } of pack(resolve(process.argv[2] ?? join(root, "packs")))) {
    console.log(`${name} → ${tarball}`)
  }
}
