/**
 * Markets are configuration (CONTRACT §3): currency, per-segment price, the legal identifier types
 * a brand may use, the operator networks that review Sender IDs, and the market's Sender ID rules.
 *
 * @since 0.1.0
 */
import { rule, type RuleViolation } from "@sendline/api/Errors"
import type { Price } from "@sendline/api/messaging/MessageJson"
import type { ConfigError } from "effect"
import { Config, Context, Effect, Layer, Option } from "effect"
import * as CountryCode from "./internal/countryCode.js"

/**
 * A market's rules for Sender IDs, over CONTRACT §3's format (1–11 letters, digits or spaces, with
 * a letter, no outer space): the fewest characters, words it must never contain, and words it must
 * not consist of alone. Words are compared case-insensitively (`SenderIdRules.check`).
 *
 * @since 0.1.0
 * @category models
 */
export interface SenderIdRules {
  /** The fewest characters a Sender ID has (at most 11, as §3 allows). */
  readonly minLength: number
  /** Words a Sender ID never contains, anywhere in it (ACMA: `Unverified`). */
  readonly forbiddenWords: ReadonlyArray<string>
  /** Generic words a Sender ID must not consist of alone, one or several of them (ACMA's restricted words). */
  readonly restrictedWords: ReadonlyArray<string>
}

/** One configured market. Prices are decimal strings with up to 4 places. @since 0.1.0 @category models */
export interface Market {
  readonly code: string
  readonly currency: string
  readonly pricePerSegment: string
  readonly identifierTypes: ReadonlyArray<string>
  readonly networks: ReadonlyArray<string>
  /** The market's Sender ID rules; without them, CONTRACT §3's format alone. */
  readonly senderIdRules?: SenderIdRules | undefined
}

/**
 * The restricted generic words of ACMA's SMS Sender ID Register (acma.gov.au, "3.1 Ensure your sender
 * IDs meet the valid use case rules", and the list it publishes): a Sender ID of these alone is refused.
 *
 * @since 0.1.0
 * @category constants
 */
export const acmaRestrictedWords: ReadonlyArray<string> = [
  "account",
  "alert",
  "anti-fraud",
  "assist",
  "assistance",
  "bank",
  "banking",
  "bill",
  "billing",
  "delivery",
  "help",
  "important",
  "info",
  "information",
  "message",
  "notice",
  "notify",
  "package",
  "password",
  "sale",
  "secure",
  "security",
  "service",
  "support",
  "tax",
  "urgent",
  "verified",
  "verify"
]

/** AU's Sender ID rules, those of ACMA's SMS Sender ID Register: 2–11 characters, never `Unverified`, not restricted words alone. @since 0.1.0 @category constants */
export const acmaSenderIdRules: SenderIdRules = {
  minLength: 2,
  forbiddenWords: ["unverified"],
  restrictedWords: acmaRestrictedWords
}

/** The default markets of CONTRACT §3. @since 0.1.0 @category constants */
export const defaults: ReadonlyArray<Market> = [
  {
    code: "AU",
    currency: "AUD",
    pricePerSegment: "0.0500",
    identifierTypes: ["ABN", "ACN"],
    networks: ["telstra", "optus", "vodafone"],
    senderIdRules: acmaSenderIdRules
  },
  {
    code: "NZ",
    currency: "NZD",
    pricePerSegment: "0.0600",
    identifierTypes: ["NZBN"],
    networks: ["spark", "one", "2degrees"]
  },
  {
    code: "SG",
    currency: "SGD",
    pricePerSegment: "0.0400",
    identifierTypes: ["UEN"],
    networks: ["singtel", "starhub", "m1"]
  },
  {
    code: "GB",
    currency: "GBP",
    pricePerSegment: "0.0350",
    identifierTypes: ["CRN"],
    networks: ["ee", "vodafone", "o2", "three"]
  }
]

export {
  /** A price: a decimal `amount` with 4 places and its ISO 4217 `currency`, as the API shows it. @since 0.1.0 @category models */
  Price
} from "@sendline/api/messaging/MessageJson"

/** The configured markets, looked up by ISO 3166-1 alpha-2 code. @since 0.1.0 @category services */
export class Markets extends Context.Tag("@sendline/core/Markets")<Markets, {
  readonly get: (code: string) => Option.Option<Market>
  readonly all: ReadonlyArray<Market>
}>() {}

const toTenThousandths = (decimal: string): bigint => {
  const [whole = "0", fraction = ""] = decimal.split(".")
  return BigInt(whole) * 10_000n + BigInt((fraction + "0000").slice(0, 4))
}

const fromTenThousandths = (value: bigint): string => {
  const whole = value / 10_000n
  const fraction = (value % 10_000n).toString().padStart(4, "0")
  return `${whole}.${fraction}`
}

/** The price of `segments` segments in `market`: segments × the per-segment rate, exact. @since 0.1.0 @category pricing */
export const price = (market: Market, segments: number): Price => ({
  amount: fromTenThousandths(toTenThousandths(market.pricePerSegment) * BigInt(segments)),
  currency: market.currency
})

/**
 * The configured market of `code`: `invalid_market` when it is no ISO 3166-1 alpha-2 code,
 * `unsupported_market` when no market of `markets` has it ("`doing` market XX is not supported").
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (
  markets: Context.Tag.Service<Markets>,
  code: string,
  doing: string
): Effect.Effect<Market, RuleViolation> => {
  if (!CountryCode.isAssigned(code)) {
    const hint = code === "UK" ? " (the United Kingdom's is GB)" : ""
    return Effect.fail(rule("invalid_market", "market", `market must be an ISO 3166-1 alpha-2 code such as AU${hint}.`))
  }
  return Option.match(markets.get(code), {
    onNone: () => Effect.fail(rule("unsupported_market", "market", `${doing} market ${code} is not supported.`)),
    onSome: Effect.succeed
  })
}

/** Markets from a list (for embedders that configure their own). @since 0.1.0 @category layers */
export const layerFrom = (markets: ReadonlyArray<Market>): Layer.Layer<Markets> => {
  const byCode = new Map(markets.map((m) => [m.code, m]))
  return Layer.succeed(Markets, Markets.of({ get: (code) => Option.fromNullable(byCode.get(code)), all: markets }))
}

/** The default markets. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Markets> = layerFrom(defaults)

/** Markets read from `markets`; the default markets when it has none. @since 0.1.0 @category layers */
export const layerConfig = (
  markets: Config.Config<ReadonlyArray<Market>>
): Layer.Layer<Markets, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.withDefault(markets, defaults), layerFrom))
