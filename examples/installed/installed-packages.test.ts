/**
 * Sendline as its users install it: every package packed (`scripts/pack.mjs`, as `npm run pack`),
 * then, for each use the README's "Install" section names, a new project in a temporary folder
 * outside the repository, installed with that section's line word for word. The projects'
 * TypeScript is checked under `strict`, `exactOptionalPropertyTypes` and `skipLibCheck: false`, and
 * run: the section's program (queued, then delivered), the client's example against a server
 * started from the installed `@sendline/http`, and the installed `sendline` executable. A
 * dependency missing from a package's package.json fails the use that needs it.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll } from "vitest"
import { serveDemo } from "../support/DemoServer.js"
import * as Project from "./Project.js"

const exec = promisify(execFile)
const work = mkdtempSync(join(tmpdir(), "sendline-installed-"))
const sendline = join(work, "sendline")
const section = Project.installSection(readFileSync(join(Project.root, "README.md"), "utf8"))
const timings: Array<string> = []

/** `task`, its time added to the summary printed at the end. */
const timed = async <A>(label: string, task: () => Promise<A>): Promise<A> => {
  const start = performance.now()
  const result = await task()
  timings.push(`${label}: ${((performance.now() - start) / 1000).toFixed(1)} s`)
  return result
}

const dirs: Record<Project.Use, string> = {
  sqlite: join(work, "embed-sqlite"),
  postgres: join(work, "embed-postgres"),
  client: join(work, "client"),
  server: join(work, "server")
}
let installed: Record<Project.Use, Promise<void>>
let checked: Record<Exclude<Project.Use, "server">, Promise<Project.TypeCheck>>

/** Each project's own TypeScript: the README's program, a PostgreSQL embedding, the client's example. */
const programs: Record<Exclude<Project.Use, "server">, { readonly file: string; readonly text: () => string }> = {
  sqlite: { file: "send.ts", text: () => section.program },
  postgres: {
    file: "store.ts",
    text: () =>
      [
        `import { SmppCarrier } from "@sendline/carrier-smpp"`,
        `import { Services, UrlPolicy, Workers } from "@sendline/core"`,
        `import { PgStore } from "@sendline/store-postgres"`,
        `import { NodeWebhookTransport } from "@sendline/webhooks-node"`,
        `import { Layer, Redacted } from "effect"`,
        ``,
        `export const Sendline = Workers.layer().pipe(`,
        `  Layer.provideMerge(Services.layer),`,
        `  Layer.provideMerge(SmppCarrier.layer({ url: Redacted.make("smpp://sendline:secret@127.0.0.1:2775") })),`,
        `  Layer.provideMerge(NodeWebhookTransport.layer({ policy: UrlPolicy.strict })),`,
        `  Layer.provideMerge(PgStore.layerPg({ url: Redacted.make("postgres://postgres@127.0.0.1:5432/test") }))`,
        `)`,
        `console.log(Layer.isLayer(Sendline) ? "loaded" : "not a layer")`,
        ``
      ].join("\n")
  },
  client: { file: "send.ts", text: () => readFileSync(join(Project.root, "examples/client/send.ts"), "utf8") }
}

beforeAll(async () => {
  await timed("build (tsc -b) and pack", async () => {
    const tsc = join(Project.root, "node_modules/typescript/bin/tsc")
    await exec(process.execPath, [tsc, "-b"], { cwd: Project.root })
    await exec(process.execPath, [join(Project.root, "scripts/pack.mjs"), join(sendline, "packs")], {
      cwd: Project.root
    })
  })
  const installing = (use: Project.Use) => {
    Project.create(dirs[use], section.overridesFromNode22)
    return timed(`install (${use})`, () => Project.install(dirs[use], section.lines[use], sendline))
  }
  installed = {
    sqlite: installing("sqlite"),
    postgres: installing("postgres"),
    client: installing("client"),
    server: installing("server")
  }
  // each project is type-checked as soon as it is installed, beside the others' installs
  const checking = (use: Exclude<Project.Use, "server">) =>
    installed[use].then(() => {
      writeFileSync(join(dirs[use], programs[use].file), programs[use].text())
      return timed(`type-check (${use})`, () => Project.typeCheck(dirs[use], [programs[use].file]))
    })
  checked = { sqlite: checking("sqlite"), postgres: checking("postgres"), client: checking("client") }
  // each test awaits its own project; a failed one fails only those
  for (const promise of [...Object.values(installed), ...Object.values(checked)]) promise.catch(() => {})
}, 240_000)

// Removed asynchronously: four installed projects are tens of thousands of files, and a worker
// that blocks its event loop that long (10 s here, longer on a loaded machine) misses vitest's
// 60-second deadline for its own report and fails a run whose tests all passed.
afterAll(async () => {
  console.log(["installed packages:", ...timings.map((line) => `  ${line}`)].join("\n"))
  await rm(work, { recursive: true, force: true })
})

/** `use`'s type check, failed by any error in its files or in Sendline's types. */
const typeChecked = async (use: Exclude<Project.Use, "server">) => {
  const { elsewhere, errors } = await checked[use]
  assert.deepStrictEqual(errors, [], `tsc found errors in ${use}'s project or Sendline's types`)
  for (const line of elsewhere) timings.push(`    not Sendline's (${use}): ${line}`)
}

describe("the packages as installed", () => {
  it("embedded with SQLite, the README's program type-checks and runs: queued, then delivered", async () => {
    await typeChecked("sqlite")
    const output = await timed("run the README's program", () => Project.run(dirs.sqlite, "send.js"))
    assert.match(output, /^msg_\w+ queued$/m)
    assert.match(output, /^msg_\w+ delivered$/m)
  }, 240_000)

  it("embedded with PostgreSQL, the store and the SMPP carrier type-check and load", async () => {
    await typeChecked("postgres")
    assert.match(await Project.run(dirs.postgres, "store.js"), /^loaded$/m)
  }, 240_000)

  it(
    "the installed sendline executable answers and migrates, and serves the demo to the client's example",
    async () => {
      await installed.server
      const bin = join(dirs.server, "node_modules/.bin/sendline")
      const env = { ...process.env, SQLITE_PATH: join(dirs.server, "data/sendline.sqlite") }
      const version = JSON.parse(readFileSync(join(dirs.server, "node_modules/@sendline/http/package.json"), "utf8"))
        .version
      assert.include((await exec(bin, ["--version"], { cwd: dirs.server, env })).stdout, version)
      await exec(bin, ["migrate"], { cwd: dirs.server, env })
      const { key, stop, url } = await serveDemo(bin, env)
      try {
        // the client's example, from its own project (two Sendline packages), against this server
        await typeChecked("client")
        const output = await timed(
          "run the client's example",
          () => Project.run(dirs.client, "send.js", { SENDLINE_URL: url, SENDLINE_API_KEY: key })
        )
        assert.match(output, /queued/)
        assert.match(output, /sender_id_not_registered/)
      } finally {
        await stop()
      }
    },
    240_000
  )
})
