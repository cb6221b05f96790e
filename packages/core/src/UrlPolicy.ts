/**
 * The webhook URL policy of CONTRACT §7, shared by subscriptions and `callback_url`.
 *
 * @since 0.1.0
 */
import type { Config, ConfigError } from "effect"
import { Context, Effect, Layer } from "effect"
import { BlockList, isIPv4, isIPv6 } from "node:net"

/** What the server allows beyond public https hosts. @since 0.1.0 @category models */
export interface UrlPolicy {
  readonly allowHttp: boolean
  readonly allowPrivate: boolean
}

/** The longest URL a subscription or a `callback_url` may have, in characters (CONTRACT §7). @since 0.1.0 @category constants */
export const maxLength = 2048

/** The default: https only, public hosts only. @since 0.1.0 @category constants */
export const strict: UrlPolicy = { allowHttp: false, allowPrivate: false }

/**
 * The policy that subscriptions and `callback_url` obey: `strict` unless a layer of `layer` gives
 * another (a `Context.Reference`, as `Limits` is).
 *
 * @since 0.1.0
 * @category services
 */
export class Policy extends Context.Reference<Policy>()("@sendline/core/UrlPolicy", { defaultValue: () => strict }) {}

/** `policy` in force. @since 0.1.0 @category layers */
export const layer = (policy: UrlPolicy): Layer.Layer<Policy> => Layer.succeed(Policy, policy)

/** The policy read from `config`. @since 0.1.0 @category layers */
export const layerConfig = (config: Config.Config<UrlPolicy>): Layer.Layer<Policy, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(config, layer))

/**
 * IANA's IPv4 Special-Purpose Address Registry in full (2025), and multicast (224.0.0.0/4, its own
 * registry): none is a place to send a webhook, those "globally reachable" ones (anycast relays,
 * AS112) included.
 */
const ipv4Special: ReadonlyArray<readonly [address: string, prefix: number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private use
  ["100.64.0.0", 10], // shared address space (CGNAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link local
  ["172.16.0.0", 12], // private use
  ["192.0.0.0", 24], // IETF protocol assignments (service continuity, dummy, PCP/TURN anycast, NAT64 discovery)
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.31.196.0", 24], // AS112-v4
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16], // private use
  ["192.175.48.0", 24], // direct delegation AS112
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, and the limited broadcast 255.255.255.255
]

/**
 * IANA's IPv6 Special-Purpose Address Registry in full (2025), but the prefixes that carry an IPv4
 * address (mapped, translated, NAT64, 6to4), judged by that address (`ipv6Private`); with
 * multicast (ff00::/8) and the deprecated site-local fec0::/10.
 */
const ipv6Special: ReadonlyArray<readonly [address: string, prefix: number]> = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use IPv4/IPv6 translation
  ["100::", 64], // discard-only
  ["100:0:0:1::", 64], // dummy prefix
  ["2001::", 23], // IETF protocol assignments: Teredo, PCP/TURN/SRP anycast, benchmarking, AMT, AS112, ORCHID, DETs
  ["2001:db8::", 32], // documentation
  ["2620:4f:8000::", 48], // direct delegation AS112
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing (SRv6) SIDs
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local unicast
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8] // multicast
]

const blockList = (family: "ipv4" | "ipv6", subnets: ReadonlyArray<readonly [string, number]>): BlockList => {
  const list = new BlockList()
  for (const [address, prefix] of subnets) list.addSubnet(address, prefix, family)
  return list
}
const ipv4Blocked = blockList("ipv4", ipv4Special)
const ipv6Blocked = blockList("ipv6", ipv6Special)

const ipv4Private = (ip: string): boolean => ipv4Blocked.check(ip, "ipv4")

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
  return ipv6Blocked.check(ip, "ipv6")
}

// Names for local networks by convention or reservation (RFC 6761, 6762, 8375; ICANN's .internal;
// and the undelegated suffixes home networks and clusters use).
const localSuffixes = [
  ".localhost",
  ".local",
  ".internal",
  ".home.arpa",
  ".localdomain",
  ".lan",
  ".home",
  ".corp",
  ".svc"
]

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
