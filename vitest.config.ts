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
    // Vitest runs one file fewer than the cores at once (one, on a 2-core machine); most files wait
    // on a spawned server, PostgreSQL or a socket, so one more than the cores. Any file may run
    // beside any other (each owns its database, schema, ports and directory). Measured on 2 cores:
    // 281 s with one worker, 200 s with two, 186 s with three, 184 s with four (docs/decisions.md,
    // "The test suite")
    maxWorkers: availableParallelism() + 1,
    minWorkers: 1,
    // A test's own limit, far above what any takes on a loaded 2-core machine (the slowest took
    // ~25 s there): reaching it means a hang, never a busy machine. What a test waits for in real
    // time it waits for as an event, up to `packages/http/test/support/Waiting.ts`'s `patience`
    // (30 s; a spawned server's start, `startupPatience`, 60 s).
    testTimeout: 120_000,
    hookTimeout: 120_000
  }
})
