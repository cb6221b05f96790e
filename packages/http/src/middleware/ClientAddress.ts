/**
 * The address a request came from, as the failed-authentication limit counts it: the connection's
 * peer, or, when that peer is a reverse proxy named in `TRUST_PROXY`, the address the proxies
 * recorded in `X-Forwarded-For`. The header is read right to left, skipping trusted proxies, and
 * the first address no proxy of ours vouches for is the client: what is left of it was written by
 * the client itself and proves nothing. Without `TRUST_PROXY` the header is ignored, so a client
 * cannot pick the address its failures count against.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import { BlockList, isIP } from "node:net"

/** The address of a request whose connection has none (a mounted handler fed by hand). @since 0.1.0 @category constants */
export const unknown = "unknown"

/** An address as `net` spells it: an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as its IPv4. */
const normal = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return mapped === null ? address : mapped[1]!
}

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4")

/** Adds `range` (an address, or a CIDR range `address/bits`) to `list`; false if it is neither. */
const addRange = (list: BlockList, range: string): boolean => {
  const [address = "", bits, ...rest] = range.trim().split("/")
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  if (bits === undefined) {
    list.addAddress(address, family(address))
    return true
  }
  const prefix = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN
  if (!(prefix <= (version === 4 ? 32 : 128))) return false
  list.addSubnet(address, prefix, family(address))
  return true
}

/** Whether `range` is an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). @since 0.1.0 @category checks */
export const isRange = (range: string): boolean => addRange(new BlockList(), range)

/**
 * A reader of each request's client address that trusts `X-Forwarded-For` from the proxies in
 * `trustProxy` (addresses or CIDR ranges, all valid by `isRange`), and from no one when it is empty.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (trustProxy: ReadonlyArray<string>): (request: HttpServerRequest.HttpServerRequest) => string => {
  const trusted = new BlockList()
  for (const range of trustProxy) addRange(trusted, range)
  const isTrusted = (address: string) => isIP(address) !== 0 && trusted.check(address, family(address))
  return (request) => {
    const peer = Option.match(request.remoteAddress, { onNone: () => unknown, onSome: normal })
    if (trustProxy.length === 0 || !isTrusted(peer)) return peer
    const forwarded = request.headers["x-forwarded-for"]
    if (forwarded === undefined) return peer
    const hops = forwarded.split(",").map((hop) => normal(hop.trim()))
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!
      if (isIP(hop) === 0) return peer
      if (!isTrusted(hop)) return hop
    }
    return hops[0] ?? peer
  }
}
