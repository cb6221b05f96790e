/**
 * `sendline routes check [FILE] [--to N --sender-id S --market M]`: reads a routes file as
 * `sendline serve` would (FILE, else what the server would route by: `ROUTES_FILE`, `CARRIER_URL`
 * or the simulated carrier), checks it, and prints its carriers, its routes in the order they
 * match and, for a message, the route it takes and the carriers it tries. It connects to nothing.
 *
 * @since 0.2.0
 */
import type { FileSystem } from "@effect/platform"
import { Markets, Routes } from "@sendline/core"
import { Console, Effect, Option } from "effect"
import * as Config from "../Config.js"
import * as Routing from "../Routing.js"

/** What `routes check` is asked. @since 0.2.0 @category models */
export interface Options {
  readonly file: Option.Option<string>
  readonly to: Option.Option<string>
  readonly senderId: Option.Option<string>
  readonly market: Option.Option<string>
}

/** The carriers, one line each: name, location (never a password) and sessions. */
const carrierLines = (table: Routing.Table): ReadonlyArray<string> => {
  const width = Math.max(...table.carriers.map((c) => c.name.length))
  return table.carriers.map((spec) => {
    const sessions = Routing.sessionsOf(spec.url)
    const location = Routing.location(spec.url)
    return `  ${spec.name.padEnd(width)}  ${location}${sessions === undefined ? "" : `  sessions ${sessions}`}`
  })
}

/** The order a route's carriers are tried in, weights shown. */
const tries = (route: Routes.Route): string => {
  const weighted = route.carriers.filter((c) => c.weight !== undefined)
  if (weighted.length === 0) return `tries, in order: ${Routes.carriersOf(route).join(", ")}`
  const total = weighted.reduce((sum, c) => sum + c.weight!, 0)
  const shares = weighted.map((c) => `${c.carrier} ${c.weight} in ${total}`).join(", ")
  return `tries first one picked by weight (${shares}), then the others in order: ${
    Routes.carriersOf(route).join(", ")
  }`
}

/** What becomes of one message. */
const messageLines = (table: Routing.Table, message: Routes.Routed): ReadonlyArray<string> => {
  const from = message.senderId === "" ? "" : ` from ${message.senderId}`
  const said = `A message to ${message.to}${from} in ${message.market}`
  return Option.match(Routes.select(table.routes, message), {
    onNone: () => [`${said} matches no route: it fails no_route`],
    onSome: (route) => [`${said} takes ${Routing.describeRoute(table.routes, route)}`, `  ${tries(route)}`]
  })
}

/** The message the options name, or the problem with them; none when they name none. */
const messageOf = (options: Options) => {
  if (Option.isNone(options.to) && Option.isNone(options.market) && Option.isNone(options.senderId)) {
    return Effect.succeed(Option.none<Routes.Routed>())
  }
  if (Option.isNone(options.to) || Option.isNone(options.market)) {
    return new Routing.RoutingInvalid({
      problems: ["--to and --market name the message to route (--sender-id too, when it matters)"],
      message: "--to and --market name the message to route"
    })
  }
  return Effect.succeed(Option.some<Routes.Routed>({
    to: options.to.value,
    market: options.market.value.toUpperCase(),
    senderId: Option.getOrElse(options.senderId, () => "")
  }))
}

/**
 * Prints the routing table that `options.file` (else the environment) gives, and what becomes
 * of the message its options name; fails with every problem, one line each.
 *
 * @since 0.2.0
 * @category commands
 */
export const check = (options: Options) =>
  Effect.gen(function*() {
    const message = yield* messageOf(options)
    const settings = yield* Config.routing
    const table = yield* Option.match(options.file, {
      onNone: () => Routing.fromConfig(settings),
      onSome: (file) =>
        Effect.flatMap(
          Markets.Markets,
          (markets) => Routing.fromFile(file, markets.all.map((m) => m.code), Routing.defaultsOf(settings))
        )
    }).pipe(Effect.provide(Markets.layer))
    const routes = Routes.inPrecedence(table.routes).map((route) => `  ${Routing.describeRoute(table.routes, route)}`)
    yield* Console.log(
      [
        "Carriers:",
        ...carrierLines(table),
        "Routes, in the order they match (most specific first):",
        ...routes,
        ...Option.match(message, { onNone: () => [], onSome: (message) => messageLines(table, message) })
      ].join("\n")
    )
  }) satisfies Effect.Effect<void, unknown, FileSystem.FileSystem>
