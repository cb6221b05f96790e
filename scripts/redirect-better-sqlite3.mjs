// `node --import=<this file>`, on Node 22 or 24 (scripts/test-on-node-line.sh gives it to every
// Node process of its run through NODE_OPTIONS; the send bench to its Node 24 servers): every file of
// the workspace's better-sqlite3 (12.x, whose binary is built for Node 20, and which the lockfile
// keeps for Node 20) resolves to the same file of scripts/node<major>/node_modules/better-sqlite3
// (13.2.0, whose prebuilt binary is the one for this Node line), whether it is asked for by name
// (`@effect/sql-sqlite-node`'s import, a `require`) or by path (vitest resolves a bare name itself,
// then imports the file). `module.registerHooks` runs the hook in this thread, for `import` and
// `require` alike. Were any process to load the workspace's copy anyway, its binary would refuse to
// load (it is built for Node 20's module version), so no process runs 12.x on this Node unnoticed.
//
// When BETTER_SQLITE3_LOADS names a file, each process appends one line to it the first time it loads
// better-sqlite3: its pid, Node version and better-sqlite3 version (test-on-node-line.sh counts them).
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import module from "node:module"
import { fileURLToPath } from "node:url"

const major = process.versions.node.split(".")[0]
const copy = new URL(`node${major}/node_modules/better-sqlite3/`, import.meta.url)
if (typeof module.registerHooks !== "function") {
  throw new Error(
    `redirect-better-sqlite3: Node ${process.version} has no module.registerHooks (Node 22.15 or later has)`
  )
}
if (!existsSync(new URL("package.json", copy))) {
  throw new Error(
    `redirect-better-sqlite3: no better-sqlite3 for Node ${major} at ${fileURLToPath(copy)} ` +
      `(sh scripts/install-node-line.sh ${major} installs it)`
  )
}
const version = JSON.parse(readFileSync(new URL("package.json", copy), "utf8")).version
const entry = new URL("lib/index.js", copy).href
const loads = process.env.BETTER_SQLITE3_LOADS
let recorded = false

// any file of a better-sqlite3 installed under a node_modules folder, and its path inside the package
const packageFile = /\/node_modules\/better-sqlite3\/(.*)$/

module.registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context)
    const inside = resolved.url.startsWith(copy.href) ? undefined : packageFile.exec(resolved.url)
    if (inside === undefined || inside === null) return resolved
    const url = new URL(inside[1], copy)
    if (!existsSync(url)) {
      throw new Error(`redirect-better-sqlite3: ${resolved.url} has no counterpart in better-sqlite3 ${version}`)
    }
    if (url.href === entry && loads !== undefined && !recorded) {
      recorded = true
      appendFileSync(loads, `${process.pid} node ${process.version} better-sqlite3 ${version}\n`)
    }
    return { ...resolved, url: url.href }
  }
})
