// Checks every package as npm would publish it (`npm run lint`, after `tsc -b` has built dist/):
// each workspace under packages/ (read from the root package.json's workspaces, so a new package is
// checked once listed there) is packed as `npm run pack` packs it (pack.mjs), and its tarball fails the run on any
// message of publint (strict: warnings are errors, and suggestions fail too), on any problem
// arethetypeswrong finds in an ESM resolution, on a bare import of its dist/ that its package.json
// does not declare, on a README.md or LICENSE (the root's) missing, or on a dist/ module whose source
// it does not ship (left over from a removed one).
//
// arethetypeswrong runs in this process (`@arethetypeswrong/core`, the engine of its CLI, loaded
// once for all packages: 3x faster than a CLI per tarball) with the CLI's `esm-only` profile: the
// packages are ESM only ("type": "module", no CommonJS build, as Effect's own), so the node10
// resolution, which ignores "exports", and a CommonJS `require` are not theirs to pass. Every module
// the "./*" export makes public is checked, not only the named entry points.
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { isBuiltin } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { publint } from "publint"
import { formatMessage } from "publint/utils"
import { pack } from "./pack.mjs"

/** The resolutions an ESM-only package need not pass (the CLI's `--profile esm-only`). */
const notEsm = new Set(["node10", "node16-cjs"])

const root = fileURLToPath(new URL("..", import.meta.url))

/** The repository's LICENSE, which every package ships as its own. */
const license = readFileSync(join(root, "LICENSE"), "utf8")

/** The package an import names (`@effect/sql/SqlClient` → `@effect/sql`), or undefined for a relative path or Node's own. */
const packageOf = (specifier) => {
  if (specifier.startsWith(".") || specifier.startsWith("/") || isBuiltin(specifier)) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/** What every `import … from "x"`, `import "x"`, `export … from "x"` and `import("x")` of a module or declaration names. */
const importsOf = (text) =>
  [...text.matchAll(/(?<![\w$."'])(?:from\s*|import\s*\(\s*|import\s+)"([^"\s]+)"/g)].map((match) => match[1])

/** The problems of one packed package: publint's, arethetypeswrong's, undeclared imports, missing files and stray modules. */
const check = async (tarball) => {
  const data = readFileSync(tarball)
  const problems = []

  const { messages, pkg: manifest } = await publint({
    pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) },
    strict: true
  })
  for (const message of messages) {
    problems.push(`publint ${message.type}: ${formatMessage(message, manifest, { color: false })}`)
  }

  const pkg = createPackageFromTarballData(new Uint8Array(data))
  const base = `/node_modules/${pkg.packageName}/`
  const files = pkg.listFiles().map((file) => file.slice(base.length))

  // the modules "./*" exports: dist/src/<module>.js is "./<module>", but for internal/ ("./internal/*": null)
  const modules = files.filter((file) => /^dist\/src\/.+\.js$/.test(file) && !file.startsWith("dist/src/internal/"))
    .map((file) => `./${file.slice("dist/src/".length, -".js".length)}`)
  const analysis = await checkPackage(pkg, { includeEntrypoints: modules })
  if (analysis.types === false) problems.push("attw: no types")
  else {
    for (const problem of analysis.problems) {
      if ("resolutionKind" in problem && notEsm.has(problem.resolutionKind)) continue
      const where = "entrypoint" in problem ? ` ${problem.entrypoint} (${problem.resolutionKind})` : ""
      problems.push(`attw ${problem.kind}:${where} ${problem.fileName ?? ""}`.trimEnd())
    }
  }

  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {})
  ])
  const undeclared = new Map()
  for (const file of files.filter((file) => /^dist\/.+\.(js|d\.ts)$/.test(file))) {
    for (const name of importsOf(pkg.readFile(`${base}${file}`)).map(packageOf)) {
      if (name !== undefined && !declared.has(name)) undeclared.set(name, file)
    }
  }
  for (const [name, file] of undeclared) {
    problems.push(`undeclared dependency: ${file} imports ${name}, in neither dependencies nor peerDependencies`)
  }

  for (const file of ["README.md", "LICENSE"]) if (!files.includes(file)) problems.push(`no ${file}`)
  if (files.includes("LICENSE") && pkg.readFile(`${base}LICENSE`) !== license) problems.push("LICENSE: not the root's")

  const sources = new Set(files.filter((file) => file.startsWith("src/")))
  for (const file of files.filter((file) => /^dist\/src\/.+\.js$/.test(file))) {
    const source = `src/${file.slice("dist/src/".length, -".js".length)}.ts`
    if (!sources.has(source)) {
      problems.push(`stray module: ${file} has no ${source} (left from a removed source? rebuild dist/)`)
    }
  }

  return {
    entrypoints: Object.keys(analysis.entrypoints ?? {}).length,
    files: files.length,
    name: pkg.packageName,
    problems
  }
}

const started = performance.now()
const destination = mkdtempSync(join(tmpdir(), "sendline-packages-"))
try {
  const packed = pack(destination)
  let failed = 0
  for (const { tarball } of packed) {
    const result = await check(tarball)
    const verdict = result.problems.length === 0 ? "ok" : `${result.problems.length} problem(s)`
    console.log(
      `${result.name.padEnd(26)} ${String(result.files).padStart(4)} files ${
        String(result.entrypoints).padStart(4)
      } entry points  ${verdict}`
    )
    for (const problem of result.problems) console.log(`  ${problem}`)
    if (result.problems.length > 0) failed++
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(
    `check-packages: ${packed.length} packages packed, publint (strict) and attw (esm-only) ${
      failed === 0 ? "clean" : `failed for ${failed}`
    }, in ${seconds} s`
  )
  if (failed > 0) process.exitCode = 1
} finally {
  rmSync(destination, { recursive: true, force: true })
}
