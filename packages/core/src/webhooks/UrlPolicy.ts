/**
 * The webhook URL policy of CONTRACT §7, shared by subscriptions and `callback_url`.
 *
 * @since 0.1.0
 */
import { isIPv4, isIPv6 } from "node:net"

/** What the server allows beyond public https hosts. @since 0.1.0 @category models */
export interface UrlPolicy {
  readonly allowHttp: boolean
  readonly allowPrivate: boolean
}

/** The default: https only, public hosts only. @since 0.1.0 @category constants */
export const strict: UrlPolicy = { allowHttp: false, allowPrivate: false }

// This network, private, loopback, shared (CGNAT), link-local, benchmarking, multicast and
// reserved, and the special-purpose and documentation /24s (192.0.0, 192.0.2, 198.51.100, 203.0.113).
const ipv4Private = (ip: string): boolean => {
  const [a = 0, b = 0, c = 0] = ip.split(".").map(Number)
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19)) ||
    a >= 224 || (a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad folded in). */
const groupsOf = (ip: string): ReadonlyArray<number> => {
  let text = ip.toLowerCase()
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)))
  const [head = "", tail] = text.split("::")
  if (tail === undefined) return parse(head)
  const [before, after] = [parse(head), parse(tail)]
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after]
}

/** The IPv4 address in groups `i` and `i + 1`. */
const ipv4At = (groups: ReadonlyArray<number>, i: number): string =>
  [groups[i]! >> 8, groups[i]! & 0xff, groups[i + 1]! >> 8, groups[i + 1]! & 0xff].join(".")

// IPv6 addresses that carry an IPv4 one (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96,
// compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by it: `[::ffff:127.0.0.1]`
// reaches the same host as `127.0.0.1`.
const ipv6Private = (ip: string): boolean => {
  const g = groupsOf(ip)
  const zeroUpTo = (n: number) => g.slice(0, n).every((group) => group === 0)
  if (zeroUpTo(6) || (zeroUpTo(5) && g[5] === 0xffff)) return ipv4Private(ipv4At(g, 6))
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return ipv4Private(ipv4At(g, 6))
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) return ipv4Private(ipv4At(g, 6))
  if (g[0] === 0x2002) return ipv4Private(ipv4At(g, 1))
  // local-use NAT64 64:ff9b:1::/48, discard 100::/64, Teredo 2001::/32 (a tunnel to any IPv4 host),
  // documentation 2001:db8::/32
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true
  if (g[0] === 0x100 && g.slice(1, 4).every((group) => group === 0)) return true
  if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8)) return true
  // unique local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8
  return (g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xffc0) === 0xfec0 ||
    (g[0]! & 0xff00) === 0xff00
}

// Names for local networks by convention or reservation (RFC 6761, 6762, 8375; ICANN's .internal;
// and the undelegated suffixes home networks and clusters use).
const localSuffixes = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain", ".lan", ".home", ".corp", ".svc"]

/**
 * Whether `host` (a URL hostname) is loopback, private, link-local, multicast, reserved or for
 * documentation, as an IPv4 address or an IPv6 one (including those that carry an IPv4 address).
 * A name is judged by its form only: a single label (`localhost`, `intranet`) and the local suffixes
 * (`*.local`, `*.internal`, `*.home.arpa`…). A public name can still resolve to a private address
 * (`127.0.0.1.nip.io`): whatever delivers to the URL must check the addresses it resolves to and
 * connect to a checked one.
 *
 * @since 0.1.0
 * @category checks
 */
export const isPrivateHost = (host: string): boolean => {
  const h = host.startsWith("[") ? host.slice(1, -1) : host
  if (isIPv4(h)) return ipv4Private(h)
  if (isIPv6(h)) return ipv6Private(h)
  const name = h.toLowerCase().replace(/\.$/, "")
  return !name.includes(".") || localSuffixes.some((suffix) => name.endsWith(suffix))
}

/** Whether `url` may receive webhook deliveries under `policy`. @since 0.1.0 @category checks */
export const allows = (url: string, policy: UrlPolicy): boolean => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== "https:" && !(policy.allowHttp && parsed.protocol === "http:")) return false
  if (parsed.username !== "" || parsed.password !== "") return false
  return policy.allowPrivate || !isPrivateHost(parsed.hostname)
}
