/**
 * Opaque keyset cursors `cur_<base64url>` (CONTRACT §1): the last row's sort key and id, plus a
 * digest of the filters so that a cursor reused with other filters is refused, and a checksum that
 * refuses one mangled in transit. The checksum is not a signature: a client could forge a cursor,
 * but it would only choose where to start listing its own account's messages, which any filter
 * can do too.
 *
 * @since 0.1.0
 */
import { Option } from "effect"
import { createHash } from "node:crypto"

const digest = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 16)

const canonical = (filters: Readonly<Record<string, unknown>>) =>
  JSON.stringify(Object.keys(filters).sort().filter((k) => filters[k] !== undefined).map((k) => [k, filters[k]]))

/** Encodes a position (`sortKey`, `id`) under `filters`. @since 0.1.0 @category encoding */
export const encode = (
  position: { readonly sortKey: number; readonly id: string },
  filters: Readonly<Record<string, unknown>>
): string => {
  const body = `${position.sortKey}.${position.id}.${digest(canonical(filters))}`
  return "cur_" + Buffer.from(`${body}.${digest(body)}`).toString("base64url")
}

/** Decodes a cursor made by `encode` with the same `filters`; none when made for other filters or mangled. @since 0.1.0 @category encoding */
export const decode = (
  cursor: string,
  filters: Readonly<Record<string, unknown>>
): Option.Option<{ readonly sortKey: number; readonly id: string }> => {
  if (!cursor.startsWith("cur_")) return Option.none()
  const text = Buffer.from(cursor.slice(4), "base64url").toString()
  const parts = text.split(".")
  if (parts.length !== 4) return Option.none()
  const [sortKey, id, filterDigest, check] = parts as [string, string, string, string]
  if (digest(`${sortKey}.${id}.${filterDigest}`) !== check) return Option.none()
  if (filterDigest !== digest(canonical(filters))) return Option.none()
  const key = Number(sortKey)
  return Number.isSafeInteger(key) ? Option.some({ sortKey: key, id }) : Option.none()
}
