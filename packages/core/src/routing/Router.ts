/**
 * The router (CONTRACT §11): a `Carrier` built from named carriers and routes, so the Dispatcher
 * never learns about routes. A message goes by its route (`Routes.select`) to the route's carriers
 * in order, or spread by weight (by the message's reference, so a resubmission goes where it went
 * before) with the others as fallback. A carrier that cannot take it now (not
 * bound, throttled, no answer in time) is passed over at once; a refusal about the route (the
 * sender, a routing or system error: `failover`) is tried on the next; a refusal about the
 * recipient or the content fails the message there. No route: `no_route`. No carrier of the route
 * can take it: `CarrierUnavailable`, and the message waits queued for its lease. Every refusal
 * about the route: the last one. Each carrier's and each route's change of state is logged once.
 *
 * The accepting carrier's name travels with the receipt (`CarrierReceipt.carrier`) and with each
 * delivery report the router's inbox takes from it (`DeliveryReport.carrier`), so a receipt is
 * matched by carrier and id.
 *
 * @since 0.2.0
 */
import type { Layer } from "effect"
import { Clock, Context, Effect, Option, Schema } from "effect"
import * as Carrier from "../messaging/Carrier.js"
import { type DeliveryReport, DeliveryReportInbox } from "../messaging/DeliveryReportInbox.js"
import * as Metrics from "../Metrics.js"
import * as Routes from "./Routes.js"

/** A carrier by its name, with the inbox of its delivery reports when it sends any. @since 0.2.0 @category models */
export interface Named {
  readonly name: string
  readonly carrier: Context.Tag.Service<Carrier.Carrier>
  readonly inbox?: Context.Tag.Service<DeliveryReportInbox> | undefined
}

/** The router's settings: its carriers, in the order they are reported, and its routes. @since 0.2.0 @category models */
export interface Options {
  readonly carriers: ReadonlyArray<Named>
  readonly routes: ReadonlyArray<Routes.Route>
}

/** A carrier's name and where it stands. @since 0.2.0 @category models */
export interface CarrierState {
  readonly name: string
  readonly status: Carrier.CarrierStatus
}

/** The router's view, for `/ready`, `/metrics` and `sendline routes check`. @since 0.2.0 @category services */
export class Router extends Context.Tag("@sendline/core/Router")<Router, {
  readonly routes: ReadonlyArray<Routes.Route>
  /** Each carrier and where it stands now, in the order configured. */
  readonly carriers: Effect.Effect<ReadonlyArray<CarrierState>>
  /**
   * The markets of the routes (`*` among them) for which no carrier of any route that serves them
   * can take messages now: a market's own routes, and those of `*` unless a route of its own that
   * names no prefix nor Sender ID always beats them.
   */
  readonly unroutable: Effect.Effect<ReadonlyArray<string>>
}>() {}

/** A route names a carrier the router was not given, or a name is given twice (its message names each). @since 0.2.0 @category errors */
export class RoutesInvalid extends Schema.TaggedError<RoutesInvalid>("@sendline/core/RoutesInvalid")("RoutesInvalid", {
  problems: Schema.Array(Schema.String),
  message: Schema.String
}) {}

const alwaysBound: Effect.Effect<Carrier.CarrierStatus> = Effect.succeed({ state: "bound" })

/** Where a carrier stands; one without a status is always bound. */
const statusOf = (named: Named): Effect.Effect<Carrier.CarrierStatus> => named.carrier.status ?? alwaysBound

/**
 * A number in [0, 2³²) spread evenly from `text` (FNV-1a, then MurmurHash3's finaliser), so that
 * sequential references (`msg_…01`, `msg_…02`) spread as well as random ones.
 */
const spread = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * The route's carriers in the order `reference` tries them: one weighted pick first, then the rest
 * in order. The pick goes by the reference, not by chance: a resubmission (after a crash, or once
 * its lease ends) goes first to the carrier picked before, whose dedupe on the reference applies.
 */
const order = (route: Routes.Route, reference: string): ReadonlyArray<string> => {
  const weighted = route.carriers.filter((c) => c.weight !== undefined)
  const names = Routes.carriersOf(route)
  if (weighted.length === 0) return names
  const total = weighted.reduce((sum, c) => sum + c.weight!, 0)
  let ticket = spread(reference) % total
  let picked = weighted[0]!.carrier
  for (const c of weighted) {
    if (ticket < c.weight!) {
      picked = c.carrier
      break
    }
    ticket -= c.weight!
  }
  return [picked, ...names.filter((name) => name !== picked)]
}

/** How a route is named in logs: `routes.0 (AU)`, with its prefix and Sender ID when it has them. */
const describe = (routes: ReadonlyArray<Routes.Route>, route: Routes.Route): string => {
  const where = [route.market, route.prefix, route.senderId === undefined ? undefined : `sender ${route.senderId}`]
  return `routes.${routes.indexOf(route)} (${where.filter((w) => w !== undefined).join(", ")})`
}

/**
 * The router's three faces: the `Carrier` that routes, the `DeliveryReportInbox` that takes every
 * carrier's reports (tagged with the carrier's name), and the `Router` view.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Carrier.Made<Context.Tag.Service<Router>>, RoutesInvalid> =>
  Effect.suspend(() => {
    const byName = new Map(options.carriers.map((named) => [named.name, named]))
    const { routes } = options
    const names = options.carriers.map((named) => named.name)
    const problems = [
      ...new Set(
        names.filter((name, i) => names.indexOf(name) !== i).map((name) => `the carrier "${name}" is given twice`)
      ),
      ...Routes.unknownCarriers(names, routes)
    ]
    if (problems.length > 0) return new RoutesInvalid({ problems, message: problems.join("; ") })
    // the states last logged: a carrier passed over, a route with no carrier that could take a message
    const carrierDown = new Map<string, string>()
    const routeDown = new Set<Routes.Route>()

    // Called from inside an effect's callback: the change of state is noted at once, and only a
    // change makes a log line (the common case, nothing changed, allocates nothing).
    const carrierState = (name: string, down: string | undefined): Effect.Effect<void> => {
      const was = carrierDown.get(name)
      if (down === undefined) {
        if (was === undefined) return Effect.void
        carrierDown.delete(name)
        return Effect.logInfo(`Routing: carrier ${name} takes messages again`)
      }
      if (was !== undefined) return Effect.void
      carrierDown.set(name, down)
      return Effect.logWarning(`Routing: carrier ${name} cannot take messages now (${down}); its routes fail over`)
    }

    const routeState = (route: Routes.Route, down: string | undefined): Effect.Effect<void> => {
      if (down === undefined) {
        if (!routeDown.delete(route)) return Effect.void
        return Effect.logInfo(`Routing: ${describe(routes, route)} takes messages again`)
      }
      if (routeDown.has(route)) return Effect.void
      routeDown.add(route)
      return Effect.logWarning(
        `Routing: no carrier of ${describe(routes, route)} can take messages now (${down}); ` +
          "they stay queued and are tried again when their lease ends"
      )
    }

    /** What one carrier's try came to. */
    type Outcome =
      | { readonly _tag: "Accepted"; readonly receipt: Carrier.CarrierReceipt }
      | { readonly _tag: "Refused"; readonly error: Carrier.CarrierRefused }
      | { readonly _tag: "Unavailable"; readonly why: string; readonly throttled: boolean }

    const unavailable = (name: string, why: string): Outcome => ({
      _tag: "Unavailable",
      why: `${name}: ${why}`,
      throttled: why === "throttled"
    })

    // One carrier's try: its receipt, its refusal, or why it could not take the message now. Written
    // with combinators rather than a generator: it runs once or more for every message.
    const attempt = (named: Named, message: Carrier.Outbound): Effect.Effect<Outcome> =>
      Effect.flatMap(statusOf(named), (status) => {
        if (status.state !== "bound") {
          Metrics.carrierSubmitted(named.name, "passed_over")
          return Effect.as(carrierState(named.name, status.state), unavailable(named.name, status.state))
        }
        return Effect.flatMap(
          Clock.currentTimeMillis,
          (start) =>
            Effect.flatMap(
              Effect.either(named.carrier.submit(message)),
              (answer) =>
                Effect.flatMap(Clock.currentTimeMillis, (end): Effect.Effect<Outcome> => {
                  const seconds = (end - start) / 1000
                  if (answer._tag === "Right") {
                    Metrics.carrierSubmitted(named.name, "accepted", seconds)
                    return Effect.as(carrierState(named.name, undefined), {
                      _tag: "Accepted",
                      receipt: { ...answer.right, carrier: named.name }
                    })
                  }
                  const error = answer.left
                  if (error._tag === "CarrierRefused") {
                    Metrics.carrierSubmitted(named.name, "refused", seconds)
                    return Effect.succeed({ _tag: "Refused", error })
                  }
                  Metrics.carrierSubmitted(named.name, error.reason, seconds)
                  return Effect.as(carrierState(named.name, error.reason), unavailable(named.name, error.reason))
                })
            )
        )
      })

    // The route's carriers from the `i`th on, after what the ones before came to.
    const tryFrom = (
      route: Routes.Route,
      names: ReadonlyArray<string>,
      i: number,
      message: Carrier.Outbound,
      tried: { readonly unavailable: ReadonlyArray<string>; readonly refused?: Carrier.CarrierRefused }
    ): Effect.Effect<Carrier.CarrierReceipt, Carrier.CarrierRefused | Carrier.CarrierUnavailable> => {
      if (i === names.length) {
        if (tried.unavailable.length === 0 && tried.refused !== undefined) return Effect.fail(tried.refused)
        const why = tried.unavailable.join(", ")
        return Effect.zipRight(
          routeState(route, why),
          new Carrier.CarrierUnavailable({
            reason: tried.unavailable.some((w) => w.endsWith(": throttled")) ? "throttled" : "unavailable",
            message: `No carrier of ${describe(routes, route)} can take the message now (${why}).`
          })
        )
      }
      return Effect.flatMap(attempt(byName.get(names[i]!)!, message), (outcome) => {
        switch (outcome._tag) {
          case "Accepted":
            return Effect.as(routeState(route, undefined), outcome.receipt)
          case "Refused":
            return outcome.error.failover
              ? tryFrom(route, names, i + 1, message, { ...tried, refused: outcome.error })
              : Effect.fail(outcome.error)
          case "Unavailable":
            return tryFrom(route, names, i + 1, message, { ...tried, unavailable: [...tried.unavailable, outcome.why] })
        }
      })
    }

    const submit = (message: Carrier.Outbound) =>
      Effect.suspend(() => {
        const found = Routes.select(routes, message)
        if (Option.isNone(found)) {
          return new Carrier.CarrierRefused({
            code: "no_route",
            message: `No route takes a message of ${message.market} to ${message.to} from ${message.senderId}.`
          })
        }
        return tryFrom(found.value, order(found.value, message.reference), 0, message, { unavailable: [] })
      })

    // Each pass starts with the next carrier, so that one carrier's flood of reports cannot starve another's.
    let next = 0
    const withInbox = options.carriers.filter((named) => named.inbox !== undefined)
    const take = (max: number) =>
      Effect.gen(function*() {
        const taken: Array<DeliveryReport> = []
        const start = next
        next = withInbox.length === 0 ? 0 : (next + 1) % withInbox.length
        for (let i = 0; i < withInbox.length && taken.length < max; i++) {
          const named = withInbox[(start + i) % withInbox.length]!
          for (const report of yield* named.inbox!.take(max - taken.length)) {
            taken.push({ ...report, carrier: named.name })
          }
        }
        return taken
      })

    const carriers = Effect.forEach(
      options.carriers,
      (named) => Effect.map(statusOf(named), (status): CarrierState => ({ name: named.name, status }))
    )

    // The routes that take some of a market's messages: its own, and those of "*" that a route of
    // its own does not always beat (a "*" route that names no prefix nor Sender ID loses to one of
    // the market's that names neither).
    const unconditional = (route: Routes.Route) => route.prefix === undefined && route.senderId === undefined
    const serving = (market: string) => {
      const own = routes.filter((route) => route.market === market)
      if (market === Routes.anyMarket) return own
      const covered = own.some(unconditional)
      return [
        ...own,
        ...routes.filter((route) => route.market === Routes.anyMarket && !(covered && unconditional(route)))
      ]
    }
    const markets = [...new Set(routes.map((route) => route.market))].map((market) => ({
      market,
      carriers: new Set(serving(market).flatMap(Routes.carriersOf))
    }))

    const unroutable = Effect.map(carriers, (states) => {
      const bound = states.filter((s) => s.status.state === "bound").map((s) => s.name)
      return markets.filter(({ carriers }) => !bound.some((name) => carriers.has(name))).map(({ market }) => market)
    })

    return Effect.succeed({
      carrier: Carrier.Carrier.of({
        submit,
        // bound when one of its carriers is; throttled when none is but one is throttled
        status: Effect.map(carriers, (states): Carrier.CarrierStatus => ({
          state: (["bound", "throttled"] as const).find((state) => states.some((s) => s.status.state === state)) ??
            "connecting"
        }))
      }),
      inbox: DeliveryReportInbox.of({ take }),
      view: Router.of({ routes, carriers, unroutable })
    })
  })

/** The router as the `Carrier` and its `DeliveryReportInbox`, with its `Router` view. @since 0.2.0 @category layers */
export const layer = (options: Options): Layer.Layer<Carrier.Carrier | DeliveryReportInbox | Router, RoutesInvalid> =>
  Carrier.layerOf(Router, make(options))
