/**
 * The `HostResolver`: the addresses a webhook URL's host name resolves to, every one of which the
 * transport checks against the URL policy and may connect to. `layer` asks the system (`node:dns`
 * `lookup`, all addresses, as the operating system orders them); `layerTest` answers from a
 * function, so that tests can resolve a name to a local server, or change the answer between two
 * calls as a rebinding name does.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import { lookup } from "node:dns/promises"
import { isIPv4 } from "node:net"

/** One address a name resolves to. @since 0.1.0 @category models */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** A name that did not resolve (unknown, no answer, no address). @since 0.1.0 @category errors */
export class ResolveError extends Schema.TaggedError<ResolveError>("@sendline/webhooks-node/ResolveError")(
  "ResolveError",
  { hostname: Schema.String, message: Schema.String, cause: Schema.optional(Schema.Defect) }
) {}

/** Resolves host names to addresses. @since 0.1.0 @category ports */
export class HostResolver extends Context.Tag("@sendline/webhooks-node/HostResolver")<HostResolver, {
  /** Every address `hostname` resolves to now, at least one. */
  readonly resolve: (hostname: string) => Effect.Effect<ReadonlyArray<ResolvedAddress>, ResolveError>
}>() {}

/** The family of an IP address written out: 4 for dotted quads, 6 otherwise. @since 0.1.0 @category utils */
export const familyOf = (address: string): 4 | 6 => (isIPv4(address) ? 4 : 6)

/** The system's resolver: `node:dns` `lookup` with all addresses. @since 0.1.0 @category layers */
export const layer: Layer.Layer<HostResolver> = Layer.succeed(
  HostResolver,
  HostResolver.of({
    resolve: (hostname) =>
      Effect.tryPromise({
        try: () => lookup(hostname, { all: true }),
        catch: (cause) =>
          new ResolveError({ hostname, message: cause instanceof Error ? cause.message : String(cause), cause })
      }).pipe(
        Effect.filterOrFail(
          (addresses) => addresses.length > 0,
          () => new ResolveError({ hostname, message: `${hostname} has no address` })
        ),
        Effect.map((addresses) => addresses.map(({ address }) => ({ address, family: familyOf(address) })))
      )
  })
)

/**
 * A resolver answering from `answer`, called afresh on every resolution: its addresses, or none
 * (`undefined` or empty) for a name that does not resolve.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (answer: (hostname: string) => ReadonlyArray<string> | undefined): Layer.Layer<HostResolver> =>
  Layer.succeed(
    HostResolver,
    HostResolver.of({
      resolve: (hostname) =>
        Effect.suspend(() => {
          const addresses = answer(hostname) ?? []
          return addresses.length === 0
            ? Effect.fail(new ResolveError({ hostname, message: `${hostname} does not resolve` }))
            : Effect.succeed(addresses.map((address) => ({ address, family: familyOf(address) })))
        })
    })
  )
