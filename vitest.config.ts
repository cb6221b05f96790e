import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// Workspace packages resolve to their TypeScript sources through the "@sendline/source" condition,
// so tests import the sources under test; the tests that spawn `sendline` run its built JavaScript,
// which the global setup builds (incrementally) before any test starts.
const conditions = ["@sendline/source", "import", "module", "node", "default"]

export default defineConfig({
  resolve: { conditions },
  // Vite ≥ 6 hands the SSR conditions to the test workers as `node --conditions`, where they apply
  // to CommonJS `require` too: "import" there made pg's `require("pg-pool")` load its ESM build.
  // Vite adds import/require itself by the kind of each import, so neither is listed here.
  ssr: { resolve: { conditions: ["@sendline/source", "node"], externalConditions: ["@sendline/source", "node"] } },
  test: {
    // builds packages/http first: the tests that spawn `sendline` run its built JavaScript
    globalSetup: ["packages/http/test/support/Build.ts"],
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    // Files share their worker's modules (isolate: false): a file imports Effect, the core and the
    // server once per worker, not once per file. Isolated, each file paid ~5 s of CPU in its own
    // process before its first test: 128 files took 486 s and ~900 s of CPU on 2 cores; shared, ~250 s
    // and ~150 s of CPU (docs/decisions.md, "The test suite"). Each file owns its database, schema,
    // ports and directory, so any may run beside or after any other; vitest.setup.ts undoes what
    // @effect/vitest leaves on its shared `it`.
    isolate: false,
    setupFiles: ["vitest.setup.ts"],
    // Most files wait on a spawned server, PostgreSQL or a socket: one more worker than the cores.
    // As many workers from start to end: with fewer at least than at most, tinypool ends an idle
    // worker's process while vitest still counts a task on it ("Terminating worker thread").
    maxWorkers: availableParallelism() + 1,
    minWorkers: availableParallelism() + 1,
    // A test's own limit, far above what any takes on a loaded 2-core machine (the slowest took
    // ~25 s there): reaching it means a hang, never a busy machine. What a test waits for in real
    // time it waits for as an event, up to `packages/http/test/support/Waiting.ts`'s `patience`
    // (30 s; a spawned server's start, `startupPatience`, 60 s).
    testTimeout: 120_000,
    hookTimeout: 120_000
  }
})
