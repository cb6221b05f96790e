/**
 * Routes (CONTRACT §11): which carriers a message may go to, by its market, its recipient's prefix
 * and its Sender ID. The routes file's schema (`RoutesFile`, decoded with every problem named), the
 * route a message takes (`select`), the checks made at start (`check`) and the `${NAME}`s of a
 * carrier's URL (`interpolate`). Embedders write `Route`s in code; the server reads them from
 * `ROUTES_FILE`.
 *
 * @since 0.2.0
 */
import { CarrierErrorCode } from "@sendline/api/messaging/MessageJson"
import { Array as Arr, Either, Option, ParseResult, Schema } from "effect"
import * as SenderId from "../senderIds/SenderId.js"

/** The market of a route that serves every market without one of its own. @since 0.2.0 @category constants */
export const anyMarket = "*"

/** One carrier of a route, with its share of the route's messages when the route spreads them. @since 0.2.0 @category models */
export const RouteCarrier = Schema.Struct({
  carrier: Schema.String,
  /** Messages are spread over the weighted carriers of a route in proportion; the others are fallback. */
  weight: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1000)), { exact: true })
})
/** One carrier of a route. @since 0.2.0 @category models */
export type RouteCarrier = typeof RouteCarrier.Type

/**
 * A route's carrier as the file writes it: its name alone, or `{ "carrier", "weight" }`. Not a
 * union, whose every member would report its own failure: an object is decoded as the object form
 * (its problems under their own paths), anything else but a name is one problem.
 */
const RouteCarrierJson = Schema.transformOrFail(Schema.Unknown, Schema.typeSchema(RouteCarrier), {
  strict: true,
  decode: (entry, options, ast) =>
    typeof entry === "string"
      ? ParseResult.succeed({ carrier: entry })
      : typeof entry === "object" && entry !== null && !Array.isArray(entry)
      ? ParseResult.decodeUnknown(RouteCarrier)(entry, options)
      : ParseResult.fail(
        new ParseResult.Type(ast, entry, `a route's carrier is its name or { "carrier": name, "weight": 1 to 1000 }`)
      ),
  encode: (entry) => ParseResult.succeed(entry.weight === undefined ? entry.carrier : entry)
})

/**
 * A route: the messages of `market` (`*`: any), of a recipient starting `prefix` and of the Sender
 * ID `senderId` when given, to its carriers in order (failover).
 *
 * @since 0.2.0
 * @category models
 */
export const Route = Schema.Struct({
  market: Schema.String.pipe(
    Schema.pattern(/^(\*|[A-Z]{2})$/, { message: () => `market must be "*" or a market code` })
  ),
  prefix: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^\+\d{1,14}$/, { message: () => "prefix must be + and 1 to 14 digits" })),
    { exact: true }
  ),
  senderId: Schema.optionalWith(
    Schema.String.pipe(Schema.filter(SenderId.isValidFormat, { message: () => SenderId.invalidFormatMessage })),
    { exact: true }
  ).pipe(Schema.fromKey("sender_id")),
  carriers: Schema.NonEmptyArray(RouteCarrierJson)
})
/** A route. @since 0.2.0 @category models */
export type Route = typeof Route.Type

/** A normalised code, as one problem when it is not one (not one per code it is not). */
const NormalisedCode = CarrierErrorCode.annotations({
  message: () => ({
    message: `must be a normalised code (${CarrierErrorCode.literals.join(", ")})`,
    override: true
  })
})

/**
 * A carrier of the routes file: its URL (`smpp://`, `smpps://`, `simulated:`; `${NAME}` read from
 * the environment) and the map of its receipts' `err` codes to the normalised ones.
 *
 * @since 0.2.0
 * @category models
 */
export const CarrierEntry = Schema.Struct({
  url: Schema.NonEmptyTrimmedString,
  errors: Schema.optionalWith(Schema.Record({ key: Schema.String, value: NormalisedCode }), { exact: true })
})
/** A carrier of the routes file. @since 0.2.0 @category models */
export type CarrierEntry = typeof CarrierEntry.Type

/** The routes file: the carriers by name, and the routes. @since 0.2.0 @category schemas */
export const RoutesFile = Schema.Struct({
  carriers: Schema.Record({
    // a key that fails is reported as unexpected, "expected:" the key's title
    key: Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,31}$/)).annotations({
      title: "a carrier's name: 1 to 32 lower-case letters, digits, _ or -"
    }),
    value: CarrierEntry
  }),
  routes: Schema.Array(Route)
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
/** The routes file. @since 0.2.0 @category models */
export type RoutesFile = typeof RoutesFile.Type

/**
 * The routes file from its JSON text, or one line per problem (the path in the file, then what is
 * wrong with it).
 *
 * @since 0.2.0
 * @category parsing
 */
export const decode = (text: string): Either.Either<RoutesFile, ReadonlyArray<string>> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(Schema.parseJson(RoutesFile), { errors: "all", onExcessProperty: "error" })(text),
    (error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      return issues.map((issue) =>
        issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
      )
    }
  )

/** What routing reads of a message. @since 0.2.0 @category models */
export interface Routed {
  readonly market: string
  readonly to: string
  readonly senderId: string
}

/** Whether `route` may take `message`: its market (or `*`), its prefix and its Sender ID, where it names them. */
const takes = (route: Route, message: Routed): boolean =>
  (route.market === anyMarket || route.market === message.market) &&
  (route.prefix === undefined || message.to.startsWith(route.prefix)) &&
  (route.senderId === undefined || route.senderId === message.senderId)

/** How specific a route is, as one number: its Sender ID, then the length of its prefix, then its market over `*`. */
const specificity = (route: Route): number =>
  (route.senderId === undefined ? 0 : 1000) + (route.prefix?.length ?? 0) * 10 + (route.market === anyMarket ? 0 : 1)

/**
 * The routes in the order `select` prefers them: a Sender ID first, then the longest prefix, then
 * a market over `*`; the given order among equals (a stable sort).
 *
 * @since 0.2.0
 * @category routing
 */
export const inPrecedence = (routes: ReadonlyArray<Route>): ReadonlyArray<Route> =>
  [...routes].sort((a, b) => specificity(b) - specificity(a))

/**
 * The route `message` takes: of those that may take it, the most specific (a Sender ID, then the
 * longest prefix, then its market, then `*`), the first in order among equals; none when no route
 * may take it (the message fails `no_route`).
 *
 * @since 0.2.0
 * @category routing
 */
export const select = (routes: ReadonlyArray<Route>, message: Routed): Option.Option<Route> => {
  let best: Route | undefined
  for (const route of routes) {
    if (takes(route, message) && (best === undefined || specificity(route) > specificity(best))) best = route
  }
  return Option.fromNullable(best)
}

/**
 * The routes' carriers that are not configured, one line each.
 *
 * @since 0.2.0
 * @category checks
 */
export const unknownCarriers = (carriers: ReadonlyArray<string>, routes: ReadonlyArray<Route>): ReadonlyArray<string> =>
  routes.flatMap((route, i) =>
    route.carriers.filter(({ carrier }) => !carriers.includes(carrier)).map(({ carrier }) =>
      `routes.${i} (${route.market}) names the carrier "${carrier}", which "carriers" does not configure`
    )
  )

/**
 * What stops a start (CONTRACT §11), one line each: a route naming a carrier that is not
 * configured, a route of a market Sendline does not serve, a served market with no route at all.
 *
 * @since 0.2.0
 * @category checks
 */
export const check = (
  carriers: ReadonlyArray<string>,
  routes: ReadonlyArray<Route>,
  markets: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const problems = [...unknownCarriers(carriers, routes)]
  for (const [i, route] of routes.entries()) {
    if (route.market !== anyMarket && !markets.includes(route.market)) {
      problems.push(
        `routes.${i} is for the market ${route.market}, which is not served (served: ${markets.join(", ")})`
      )
    }
  }
  const routed = new Set(routes.map((route) => route.market))
  if (!routed.has(anyMarket)) {
    for (const market of markets) {
      if (!routed.has(market)) problems.push(`the market ${market} has no route (add one, or a route for "*")`)
    }
  }
  return problems
}

/**
 * `url` with each `${NAME}` replaced by the environment's `NAME`, percent-encoded (so any password
 * fits in a URL); or the names the environment lacks.
 *
 * @since 0.2.0
 * @category parsing
 */
export const interpolate = (
  url: string,
  env: Readonly<Record<string, string | undefined>>
): Either.Either<string, ReadonlyArray<string>> => {
  const missing: Array<string> = []
  const filled = url.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name]
    if (value === undefined) {
      missing.push(name)
      return ""
    }
    return encodeURIComponent(value)
  })
  return missing.length === 0 ? Either.right(filled) : Either.left(Arr.dedupe(missing))
}

/** Every carrier a route names, in order, once each. @since 0.2.0 @category routing */
export const carriersOf = (route: Route): ReadonlyArray<string> => Arr.dedupe(route.carriers.map((c) => c.carrier))
