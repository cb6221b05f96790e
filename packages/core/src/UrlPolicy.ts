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

const ipv4Private = (ip: string): boolean => {
  const [a = 0, b = 0] = ip.split(".").map(Number)
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224
}

const ipv6Private = (ip: string): boolean => {
  const v = ip.toLowerCase()
  if (v === "::" || v === "::1") return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v)
  if (mapped) return ipv4Private(mapped[1]!)
  return /^f[cd]/.test(v) || /^fe[89ab]/.test(v) || v.startsWith("ff")
}

/**
 * Whether `host` (a URL hostname) is loopback, private, link-local or multicast. Names are judged
 * by their form only (`localhost`, `*.localhost`, `*.local`); DNS is checked at delivery time.
 *
 * @since 0.1.0
 * @category checks
 */
export const isPrivateHost = (host: string): boolean => {
  const h = host.startsWith("[") ? host.slice(1, -1) : host
  if (isIPv4(h)) return ipv4Private(h)
  if (isIPv6(h)) return ipv6Private(h)
  const name = h.toLowerCase().replace(/\.$/, "")
  return name === "localhost" || name.endsWith(".localhost") || name.endsWith(".local") || name.endsWith(".internal")
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
