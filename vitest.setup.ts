/**
 * Runs before each test file. The files share their worker's modules (`isolate: false` in
 * vitest.config.ts), and @effect/vitest 0.30's `layer(...)` writes its runtime's `effect`, `scoped`,
 * `prop`, `flakyTest` and `layer` onto the `it` it exports, shared by every file: a file's top-level
 * `it.effect` would then run in the layer (and the TestClock) of a file before it. Each file starts
 * from the methods `it` had before any file ran.
 */
import { it } from "@effect/vitest"

const key = Symbol.for("sendline/test/effect-vitest-methods")
const methods = ["effect", "scoped", "live", "scopedLive", "flakyTest", "layer", "prop"] as const
type Methods = Pick<typeof it, (typeof methods)[number]>

const store = globalThis as { [key]?: Methods }
store[key] ??= Object.fromEntries(methods.map((name) => [name, it[name]])) as unknown as Methods
Object.assign(it, store[key])
