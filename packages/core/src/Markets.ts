/**
 * Markets are configuration (CONTRACT §3): currency, per-segment price, the legal identifier types
 * a brand may use, and the operator networks that review Sender IDs.
 *
 * @since 0.1.0
 */
import type { ConfigError } from "effect"
import { Config, Context, Effect, Layer, Option } from "effect"
import { rule, type RuleViolation } from "./Errors.js"
import * as CountryCode from "./internal/countryCode.js"
import type * as Message from "./messaging/Message.js"

/** One configured market. Prices are decimal strings with up to 4 places. @since 0.1.0 @category models */
export interface Market {
  readonly code: string
  readonly currency: string
  readonly pricePerSegment: string
  readonly identifierTypes: ReadonlyArray<string>
  readonly networks: ReadonlyArray<string>
}

/** The default markets of CONTRACT §3. @since 0.1.0 @category constants */
export const defaults: ReadonlyArray<Market> = [
  { code: "AU", currency: "AUD", pricePerSegment: "0.0500", identifierTypes: ["ABN", "ACN"], networks: ["telstra", "optus", "vodafone"] },
  { code: "NZ", currency: "NZD", pricePerSegment: "0.0600", identifierTypes: ["NZBN"], networks: ["spark", "one", "2degrees"] },
  { code: "SG", currency: "SGD", pricePerSegment: "0.0400", identifierTypes: ["UEN"], networks: ["singtel", "starhub", "m1"] },
  { code: "GB", currency: "GBP", pricePerSegment: "0.0350", identifierTypes: ["CRN"], networks: ["ee", "vodafone", "o2", "three"] }
]

/** A price: a decimal `amount` with 4 places and its ISO 4217 `currency` (`Message.Price`). @since 0.1.0 @category models */
export type Price = typeof Message.Price.Type

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
export const layerConfig = (markets: Config.Config<ReadonlyArray<Market>>): Layer.Layer<Markets, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.withDefault(markets, defaults), layerFrom))
