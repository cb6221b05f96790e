/**
 * Identifiers of CONTRACT §1: `<prefix>_<ULID in lowercase Crockford base32>`, and secret tokens.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer } from "effect"

/** The prefixes Sendline issues. @since 0.1.0 @category models */
export type Prefix =
  | "msg"
  | "brand"
  | "opreg"
  | "evt"
  | "req"
  | "acct"
  | "key"
  | "sid"
  | "rel"
  | "wh"
  | "dlv"
  | "mail"
  | "bat"

/** Makes identifiers and secret tokens. @since 0.1.0 @category ports */
export class IdGenerator extends Context.Tag("@sendline/core/IdGenerator")<IdGenerator, {
  /** A new time-ordered identifier with the prefix. */
  readonly make: (prefix: Prefix) => Effect.Effect<string>
  /** A new random base62 token of `length` characters (API key secrets). */
  readonly token: (length: number) => Effect.Effect<string>
}>() {}

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** Encodes a 48-bit time and 80 random bits (ten bytes) as 26 Crockford characters. @since 0.1.0 @category encoding */
export const encodeUlid = (millis: number, random: Uint8Array): string => {
  let out = ""
  let t = millis
  const time: Array<string> = new Array(10)
  for (let i = 9; i >= 0; i--) {
    time[i] = crockford[t % 32]!
    t = Math.floor(t / 32)
  }
  out = time.join("")
  // 80 bits → 16 characters, 5 bits at a time, most significant first
  let buffer = 0
  let bits = 0
  for (let i = 0; i < 10; i++) {
    buffer = (buffer << 8) | random[i]!
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out += crockford[(buffer >> bits) & 31]
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

const ulidPattern = /^[0-9a-hjkmnp-tv-z]{26}$/

/** Whether `id` is `<prefix>_<26 lowercase Crockford characters>`. @since 0.1.0 @category guards */
export const isId = (prefix: Prefix, id: string): boolean =>
  id.length === prefix.length + 27 && id.startsWith(prefix + "_") && ulidPattern.test(id.slice(prefix.length + 1))

const incrementInPlace = (bytes: Uint8Array) => {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 255) bytes[i] = 0
    else {
      bytes[i]!++
      return
    }
  }
}

const randomToken = (length: number): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(length * 2))
  let out = ""
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    // 248 = 62 * 4: reject the tail to keep every character equally likely
    if (bytes[i]! < 248) out += base62[bytes[i]! % 62]
  }
  return out.length === length ? out : out + randomToken(length - out.length)
}

/**
 * ULIDs from `Clock` and the platform's CSPRNG; monotonic within a millisecond, so that ids
 * made in one process sort in creation order.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<IdGenerator> = Layer.sync(IdGenerator, () => {
  let lastMillis = -1
  const last = new Uint8Array(10)
  // Random bytes drawn from the CSPRNG 1,000 at a time, each used once: a call costs a few µs, and
  // a busy server made one per millisecond of ids (~1 % of a send's CPU in a profile).
  const pool = new Uint8Array(1000)
  let used = pool.length
  const fresh = (into: Uint8Array) => {
    if (used + into.length > pool.length) {
      crypto.getRandomValues(pool)
      used = 0
    }
    const from = used
    used += into.length
    into.set(pool.subarray(from, used))
  }
  return IdGenerator.of({
    make: (prefix) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (now <= lastMillis) incrementInPlace(last)
        else {
          lastMillis = now
          fresh(last)
        }
        return `${prefix}_${encodeUlid(lastMillis, last)}`
      }),
    token: (length) => Effect.sync(() => randomToken(length))
  })
})

/**
 * Deterministic identifiers for tests: time from `Clock`, then a counter in place of randomness.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest: Layer.Layer<IdGenerator> = Layer.sync(IdGenerator, () => {
  let counter = 0
  const bytes = (n: number) => {
    const out = new Uint8Array(10)
    for (let i = 9, v = n; i >= 0 && v > 0; i--, v = Math.floor(v / 256)) out[i] = v % 256
    return out
  }
  return IdGenerator.of({
    make: (prefix) => Effect.map(Clock.currentTimeMillis, (now) => `${prefix}_${encodeUlid(now, bytes(++counter))}`),
    token: (length) => Effect.sync(() => String(++counter).padStart(length, "0").slice(-length))
  })
})
