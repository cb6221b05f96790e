import { defineConfig } from "vitest/config"

// Workspace packages resolve to their TypeScript sources through the "@sendline/source" condition,
// so tests never need a build first.
const conditions = ["@sendline/source", "import", "module", "node", "default"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
