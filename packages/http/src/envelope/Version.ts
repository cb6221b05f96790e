/**
 * The version of `@sendline/http`, read once from its package.json (the nearest above this module,
 * from the sources or from dist/): what `sendline --version` prints and what traces and metrics
 * name as the service's version, so that a release changes it in one place.
 *
 * @since 0.2.0
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The package.json nearest above `dir`. */
const manifestAbove = (dir: string): string => {
  const file = join(dir, "package.json")
  if (existsSync(file)) return file
  const parent = dirname(dir)
  if (parent === dir) throw new Error("@sendline/http: no package.json above its modules")
  return manifestAbove(parent)
}

/** `@sendline/http`'s version, as its package.json gives it. @since 0.2.0 @category version */
export const version: string = JSON.parse(
  readFileSync(manifestAbove(dirname(fileURLToPath(import.meta.url))), "utf8")
).version
