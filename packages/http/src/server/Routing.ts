/**
 * The carriers the server sends through and their routes (CONTRACT §11): read from `ROUTES_FILE`
 * (decoded, each URL's `${NAME}`s filled from the environment, parsed by its scheme, checked
 * against the served markets), or one carrier named `default` for every market (`CARRIER_URL`'s,
 * else the simulated one); then each carrier built by its package and core's `Router` over them.
 * Every problem is one line naming it, never a password. Embedders build `Router.make` in code.
 *
 * @since 0.2.0
 */
import { FileSystem } from "@effect/platform"
import { CarrierMock, SimulatedUrl } from "@sendline/carrier-mock"
import { SmppCarrier, SmppUrl } from "@sendline/carrier-smpp"
import { Carrier, type DeliveryReportInbox, Markets, Router, Routes } from "@sendline/core"
import {
  Config,
  type Context,
  Duration,
  Effect,
  Either,
  type Layer,
  Option,
  Redacted,
  Schema,
  type Scope
} from "effect"
import type { ServerConfig } from "./Config.js"

/** A carrier's URL, parsed by its scheme. @since 0.2.0 @category models */
export type CarrierUrl =
  | { readonly scheme: "smpp"; readonly url: Redacted.Redacted<string>; readonly account: SmppUrl.Account }
  | { readonly scheme: "simulated"; readonly options: CarrierMock.Options }

/** A configured carrier: its name, its URL and its receipts' `errors` map. @since 0.2.0 @category models */
export interface CarrierSpec {
  readonly name: string
  readonly url: CarrierUrl
  readonly errors?: Routes.CarrierEntry["errors"]
}

/** What the server routes by: its carriers, in the order configured, and its routes. @since 0.2.0 @category models */
export interface Table {
  readonly carriers: ReadonlyArray<CarrierSpec>
  readonly routes: ReadonlyArray<Routes.Route>
}

/** The routes cannot be used: each problem one line, never a password. @since 0.2.0 @category errors */
export class RoutingInvalid extends Schema.TaggedError<RoutingInvalid>("@sendline/http/RoutingInvalid")(
  "RoutingInvalid",
  { problems: Schema.Array(Schema.String), message: Schema.String }
) {}

const invalid = (problems: ReadonlyArray<string>) => new RoutingInvalid({ problems, message: problems.join("; ") })

/** The name of the one carrier of `CARRIER_URL`, or of the simulated carrier. @since 0.2.0 @category constants */
export const defaultName = "default"

/** One carrier for every market: a route `*` to it. @since 0.2.0 @category constructors */
export const single = (url: CarrierUrl): Table => ({
  carriers: [{ name: defaultName, url }],
  routes: [{ market: Routes.anyMarket, carriers: [{ carrier: defaultName }] }]
})

/** The simulated carrier's settings: those of the server (`CARRIER_*`), and how long a lease is. @since 0.2.0 @category models */
export interface Defaults {
  readonly simulated: CarrierMock.Options
  readonly leaseMillis: number
}

/**
 * `url` parsed by its scheme (`smpp://`, `smpps://`, `simulated:`): the phrase naming its problem
 * otherwise, never its text. A simulated carrier takes `defaults` for what its URL leaves out, and
 * must remember a submission for two leases.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseUrl = (url: Redacted.Redacted<string>, defaults: Defaults): Either.Either<CarrierUrl, string> => {
  const text = Redacted.value(url).trim()
  if (text.startsWith(SimulatedUrl.scheme)) {
    return Either.flatMap(SimulatedUrl.parse(text), (options): Either.Either<CarrierUrl, string> => {
      const retain = options.retain === undefined ? undefined : Duration.toMillis(options.retain)
      return retain !== undefined && retain < 2 * defaults.leaseMillis
        ? Either.left(`retain_ms must be at least twice WORKER_LEASE_MS (${2 * defaults.leaseMillis} ms)`)
        : Either.right({ scheme: "simulated", options: { ...defaults.simulated, ...options } })
    })
  }
  if (/^smpps?:/i.test(text)) {
    return Either.map(SmppUrl.parse(url), (account): CarrierUrl => ({ scheme: "smpp", url, account }))
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]
  return Either.left(
    `${scheme === undefined ? "has no scheme" : `has the unknown scheme ${scheme}:`} ` +
      `(known: smpp://, smpps://, ${SimulatedUrl.scheme})`
  )
}

/**
 * `url` with its `${NAME}`s filled from the environment (through `Config`, so a `ConfigProvider`
 * stands for it), percent-encoded; or the names it lacks.
 *
 * @since 0.2.0
 * @category parsing
 */
export const fill = (url: string): Effect.Effect<Either.Either<string, ReadonlyArray<string>>> =>
  Effect.gen(function*() {
    // the names the URL asks for: those an empty environment lacks
    const names = Either.match(Routes.interpolate(url, {}), { onLeft: (names) => names, onRight: () => [] })
    const env: Record<string, string | undefined> = {}
    for (const name of names) {
      env[name] = Option.getOrUndefined(yield* Effect.orDie(Config.option(Config.string(name))))
    }
    return Routes.interpolate(url, env)
  })

/** One carrier of the file, or the lines of its problems (its name leading each). */
const carrierOf = (name: string, entry: Routes.CarrierEntry, defaults: Defaults) =>
  Effect.map(fill(entry.url), (filled): Either.Either<CarrierSpec, ReadonlyArray<string>> =>
    Either.match(filled, {
      onLeft: (missing) =>
        Either.left(missing.map((variable) =>
          `carriers.${name}.url: the environment variable ${variable} is not set (its \${${variable}} is read from it)`
        )),
      onRight: (text) =>
        Either.mapBoth(parseUrl(Redacted.make(text), defaults), {
          onLeft: (problem) => [`carriers.${name}.url ${problem}`],
          onRight: (url): CarrierSpec => ({
            name,
            url,
            ...(entry.errors === undefined ? {} : { errors: entry.errors })
          })
        })
    }))

/**
 * The routing table of a routes file's text: decoded, every URL filled and parsed, the routes
 * checked against `markets`; else every problem, one line each.
 *
 * @since 0.2.0
 * @category parsing
 */
export const fromText = (
  text: string,
  markets: ReadonlyArray<string>,
  defaults: Defaults
): Effect.Effect<Table, ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const file = Routes.decode(text)
    if (Either.isLeft(file)) return yield* Effect.fail(file.left)
    const { carriers, routes } = file.right
    const read = yield* Effect.forEach(Object.entries(carriers), ([name, entry]) => carrierOf(name, entry, defaults))
    const problems = [
      ...read.flatMap((carrier) => Either.isLeft(carrier) ? carrier.left : []),
      ...Routes.check(Object.keys(carriers), routes, markets)
    ]
    const specs = read.flatMap((carrier) => Either.isRight(carrier) ? [carrier.right] : [])
    return problems.length === 0 ? { carriers: specs, routes } : yield* Effect.fail(problems)
  })

/**
 * The routing table of the file at `path`, each problem led by the path (a file that cannot be
 * read is one).
 *
 * @since 0.2.0
 * @category parsing
 */
export const fromFile = (
  path: string,
  markets: ReadonlyArray<string>,
  defaults: Defaults
): Effect.Effect<Table, RoutingInvalid, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.readFileString(path).pipe(
      Effect.mapError((error) => [
        `cannot be read (${
          error._tag === "SystemError" && error.reason === "NotFound" ? "no such file" : error.message
        })`
      ]),
      Effect.flatMap((text) => fromText(text, markets, defaults)),
      Effect.mapError((problems) => invalid(problems.map((problem) => `${path}: ${problem}`)))
    ))

/** The settings routing reads. @since 0.2.0 @category models */
export type Settings = Pick<ServerConfig, "routesFile" | "carrierUrl" | "carrier" | "workers">

/** What the server's configuration says a simulated carrier takes by default. @since 0.2.0 @category config */
export const defaultsOf = (config: Settings): Defaults => ({
  simulated: config.carrier,
  leaseMillis: config.workers.dispatcher?.leaseMillis ?? 0
})

/**
 * The server's routing table: `ROUTES_FILE`'s (never beside `CARRIER_URL`), else one carrier,
 * `CARRIER_URL`'s or the simulated one, for every market; checked against the served markets.
 *
 * @since 0.2.0
 * @category config
 */
export const fromConfig = (
  config: Settings
): Effect.Effect<Table, RoutingInvalid, FileSystem.FileSystem | Markets.Markets> =>
  Effect.gen(function*() {
    const defaults = defaultsOf(config)
    if (Option.isNone(config.routesFile)) {
      if (Option.isNone(config.carrierUrl)) return single({ scheme: "simulated", options: defaults.simulated })
      return yield* Either.match(parseUrl(config.carrierUrl.value, defaults), {
        onLeft: (problem) => Effect.fail(invalid([`CARRIER_URL ${problem}`])),
        onRight: (url) => Effect.succeed(single(url))
      })
    }
    const markets = (yield* Markets.Markets).all.map((market) => market.code)
    const read = yield* Effect.either(fromFile(config.routesFile.value, markets, defaults))
    const problems = [
      ...(Option.isSome(config.carrierUrl)
        ? ["CARRIER_URL is set beside ROUTES_FILE: unset it (the routes file names every carrier)"]
        : []),
      ...Either.match(read, { onLeft: (error) => error.problems, onRight: () => [] })
    ]
    if (problems.length > 0 || Either.isLeft(read)) return yield* invalid(problems)
    return read.right
  })

/** How many sessions a carrier binds: an SMPP URL's `sessions` (1 when it has none), else none. @since 0.2.0 @category formatting */
export const sessionsOf = (url: CarrierUrl): number | undefined =>
  url.scheme === "smpp" ? (url.account as SmppUrl.Account & { readonly sessions?: number }).sessions ?? 1 : undefined

/** Where a carrier is, for logs and `routes check`: `smpp://system_id@host:port` (never the password), or `simulated:`. @since 0.2.0 @category formatting */
export const location = (url: CarrierUrl): string =>
  url.scheme === "smpp" ? SmppUrl.location(url.account) : SimulatedUrl.scheme

/** A carrier as the start's log line names it. @since 0.2.0 @category formatting */
export const describeCarrier = (spec: CarrierSpec): string =>
  spec.url.scheme === "smpp"
    ? `Carrier ${spec.name}: SMPP at ${location(spec.url)} (sessions ${sessionsOf(spec.url)})`
    : `Carrier ${spec.name}: simulated (@sendline/carrier-mock)`

/** Where a route applies: `AU`, `AU +6147`, `AU sender Acme`. @since 0.2.0 @category formatting */
export const where = (route: Routes.Route): string =>
  [route.market, route.prefix, route.senderId === undefined ? undefined : `sender ${route.senderId}`]
    .filter((part) => part !== undefined).join(" ")

/** A route's carriers, in order, with their weights: `acme (weight 3), backup (weight 1)`. @since 0.2.0 @category formatting */
export const carriersText = (route: Routes.Route): string =>
  route.carriers.map((c) => (c.weight === undefined ? c.carrier : `${c.carrier} (weight ${c.weight})`)).join(", ")

/** A route as the start's log line and `routes check` name it: `routes.1 (AU +6147) → backup`. @since 0.2.0 @category formatting */
export const describeRoute = (routes: ReadonlyArray<Routes.Route>, route: Routes.Route): string =>
  `routes.${routes.indexOf(route)} (${where(route)}) → ${carriersText(route)}`

/** A carrier's problem, led by its name unless it is the one carrier (`CARRIER_URL`'s, as before routes). */
const named = (spec: CarrierSpec, problem: string) =>
  spec.name === defaultName ? problem : `carrier ${spec.name}: ${problem}`

/** A carrier of the table, built by its package in the scope (an SMPP carrier's sessions close with it). */
const build = (spec: CarrierSpec): Effect.Effect<Router.Named, RoutingInvalid, Scope.Scope> => {
  const url = spec.url
  if (url.scheme === "simulated") {
    return CarrierMock.make(url.options).pipe(
      Effect.map(({ carrier, inbox }): Router.Named => ({ name: spec.name, carrier, inbox })),
      Effect.mapError((error) => invalid([named(spec, error.message)]))
    )
  }
  return SmppCarrier.make({ url: url.url, ...(spec.errors === undefined ? {} : { errors: spec.errors }) }).pipe(
    Effect.map(({ carrier, inbox }): Router.Named => ({ name: spec.name, carrier, inbox })),
    Effect.mapError((error) => invalid([named(spec, error.message)]))
  )
}

/**
 * The router over the table's carriers, each built by its package in the scope (the SMPP ones
 * together, each waiting for its first bind), with the routing table logged once.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  table: Table
): Effect.Effect<Carrier.Made<Context.Tag.Service<Router.Router>>, RoutingInvalid, Scope.Scope> =>
  Effect.gen(function*() {
    const carriers = yield* Effect.forEach(table.carriers, build, { concurrency: "unbounded" })
    for (const spec of table.carriers) yield* Effect.logInfo(describeCarrier(spec))
    const routes = Routes.inPrecedence(table.routes).map((route) => describeRoute(table.routes, route))
    yield* Effect.logInfo(`Routes, most specific first: ${routes.join("; ")}`)
    return yield* Router.make({ carriers, routes: table.routes }).pipe(
      Effect.mapError((error) => invalid(error.problems))
    )
  })

/**
 * The table's router as the `Carrier`, the `DeliveryReportInbox` and the `Router` view.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  table: Table
): Layer.Layer<Carrier.Carrier | DeliveryReportInbox.DeliveryReportInbox | Router.Router, RoutingInvalid> =>
  Carrier.layerOf(Router.Router, make(table))
