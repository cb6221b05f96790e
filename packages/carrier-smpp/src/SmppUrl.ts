/**
 * `CARRIER_URL` for an SMPP account: `smpp://system_id:password@host:port?system_type=…&window=10`
 * (`smpps://` for TLS), with `sessions=N` sessions (1–32, default 1) sharing the window and the rate,
 * and `validity=<minutes>` (default 2880: 48 hours) the messages' validity period. Read into the session's settings; written back for logs without the
 * password.
 *
 * @since 0.1.0
 */
import { Either, Redacted } from "effect"

/** Where the SMSC is and as whom to bind, as `parse` reads the URL. @since 0.1.0 @category models */
export interface Account {
  readonly host: string
  readonly port: number
  /** TLS from the first byte (`smpps://`). */
  readonly tls: boolean
  readonly systemId: string
  readonly password: Redacted.Redacted<string>
  /** `system_type` of the bind; empty unless the aggregator asks for one. */
  readonly systemType: string
  /** `submit_sm`s awaiting their answer at once (`window`, default 10). */
  readonly window: number
  /** `submit_sm`s a second at most (`rate`); none: no cap of ours. */
  readonly maxPerSecond: number | undefined
  /** Seconds of quiet between `enquire_link`s (`enquire_link`, default 30). */
  readonly enquireLinkSeconds: number
  /** `bind_transceiver` sessions of the carrier (`sessions`, 1 to 32, default 1); the window and the rate are the carrier's, not each one's. */
  readonly sessions: number
  /** Minutes the SMSC tries to deliver a message before it reports it `EXPIRED` (`validity`, default 2880: 48 hours). */
  readonly validityMinutes: number
}

/** The `sessions` and `validity` (minutes) when the URL does not name them, and their largest values. @since 0.2.0 @category constants */
export const limits = {
  sessions: { default: 1, max: 32 },
  validityMinutes: { default: 48 * 60, max: 7 * 24 * 60 }
} as const

/** The default port of `smpp://` and of `smpps://`. @since 0.1.0 @category constants */
export const defaultPorts = { smpp: 2775, smpps: 3550 } as const

/** The query parameters `parse` reads; any other is refused. @since 0.1.0 @category constants */
export const parameters = ["system_type", "window", "rate", "enquire_link", "sessions", "validity"] as const

const positiveInteger = (text: string, max: number): number | undefined =>
  /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= max ? Number(text) : undefined

/**
 * Reads `url`. A problem is answered as a phrase naming it ("must start smpp:// or smpps://"),
 * never with the URL's text, which holds the password.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (url: Redacted.Redacted<string>): Either.Either<Account, string> => {
  let parsed: URL
  try {
    parsed = new URL(Redacted.value(url).trim())
  } catch {
    return Either.left("is not a URL")
  }
  if (parsed.protocol !== "smpp:" && parsed.protocol !== "smpps:") return Either.left("must start smpp:// or smpps://")
  if (parsed.hostname === "") return Either.left("names no host")
  if (parsed.username === "") return Either.left("names no system_id (smpp://system_id:password@host)")
  if (parsed.pathname !== "" && parsed.pathname !== "/") return Either.left("takes no path")
  const unknown = [...parsed.searchParams.keys()].filter((key) => !(parameters as ReadonlyArray<string>).includes(key))
  if (unknown.length > 0) {
    return Either.left(`has an unknown parameter ${unknown[0]} (known: ${parameters.join(", ")})`)
  }
  const query = parsed.searchParams
  const window = query.has("window") ? positiveInteger(query.get("window")!, 1000) : 10
  if (window === undefined) return Either.left("window must be an integer from 1 to 1000")
  const rate = query.has("rate") ? Number(query.get("rate")) : undefined
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) {
    return Either.left("rate must be a number of submits a second above 0")
  }
  const enquireLink = query.has("enquire_link") ? positiveInteger(query.get("enquire_link")!, 3600) : 30
  if (enquireLink === undefined) return Either.left("enquire_link must be a number of seconds from 1 to 3600")
  const sessions = query.has("sessions")
    ? positiveInteger(query.get("sessions")!, limits.sessions.max)
    : limits.sessions.default
  if (sessions === undefined) return Either.left(`sessions must be an integer from 1 to ${limits.sessions.max}`)
  const validity = query.has("validity")
    ? positiveInteger(query.get("validity")!, limits.validityMinutes.max)
    : limits.validityMinutes.default
  if (validity === undefined) {
    return Either.left(`validity must be a number of minutes from 1 to ${limits.validityMinutes.max} (7 days)`)
  }
  const tls = parsed.protocol === "smpps:"
  return Either.right({
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? (tls ? defaultPorts.smpps : defaultPorts.smpp) : Number(parsed.port),
    tls,
    systemId: decodeURIComponent(parsed.username),
    password: Redacted.make(decodeURIComponent(parsed.password)),
    systemType: query.get("system_type") ?? "",
    window,
    maxPerSecond: rate,
    enquireLinkSeconds: enquireLink,
    sessions,
    validityMinutes: validity
  })
}

/**
 * Where an account binds, for logs and errors: `smpp://system_id@host:port`, never the password.
 *
 * @since 0.1.0
 * @category formatting
 */
export const location = (account: Pick<Account, "host" | "port" | "tls" | "systemId">): string =>
  `${account.tls ? "smpps" : "smpp"}://${encodeURIComponent(account.systemId)}@${
    account.host.includes(":") ? `[${account.host}]` : account.host
  }:${account.port}`
