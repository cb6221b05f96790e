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
    globalSetup: ["packages/http/test/build.ts"],
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
