/**
 * A TCP proxy for tests, in front of the server of a `postgres://` URL, that can make the
 * connections it carries go silent: after `freeze`, the connections open then pass no byte either
 * way and stay open, as a connection does whose server vanished without a word (a host powered
 * off, a cable cut, a firewall that started dropping packets). Their bytes are still taken by the
 * proxy's operating system, so no reset, no keepalive failure and no closed socket tells the
 * client anything. Connections opened later pass as before: the way to the server is back, for
 * new connections only.
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Effect } from "effect"
import * as net from "node:net"

/** The running proxy. @since 0.1.0 @category models */
export interface FreezingProxy {
  /** The URL it was made for, through the proxy (`127.0.0.1` and the proxy's port). */
  readonly url: string
  /** Silences every connection open now, for good, without closing any. */
  readonly freeze: Effect.Effect<void>
  /** How many connections it has accepted so far. */
  readonly accepted: Effect.Effect<number>
}

/** A client's connection and the proxy's own to the server. */
interface Pair {
  readonly client: net.Socket
  readonly server: net.Socket
}

/**
 * A proxy to the server of `url` on an ephemeral port of 127.0.0.1, forwarding until frozen; it
 * closes every connection and stops listening when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (url: string): Effect.Effect<FreezingProxy, never, Scope.Scope> =>
  Effect.gen(function*() {
    const target = new URL(url)
    const pairs = new Set<Pair>()
    let accepted = 0
    const listener = net.createServer((client) => {
      accepted += 1
      const server = net.connect(Number(target.port || 5432), target.hostname)
      const pair = { client, server }
      pairs.add(pair)
      const close = () => {
        pairs.delete(pair)
        client.destroy()
        server.destroy()
      }
      for (const socket of [client, server]) socket.on("error", close).on("close", close)
      client.pipe(server)
      server.pipe(client)
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void listener.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          for (const { client, server } of pairs) {
            client.destroy()
            server.destroy()
          }
          listener.close(() => resume(Effect.void))
        })
    )
    const proxied = new URL(url)
    proxied.hostname = "127.0.0.1"
    proxied.port = String((listener.address() as net.AddressInfo).port)
    return {
      url: proxied.toString(),
      freeze: Effect.sync(() => {
        for (const { client, server } of pairs) {
          // Neither side is read any more: what arrives waits in the kernel's buffers, unanswered.
          client.unpipe(server)
          server.unpipe(client)
          client.pause()
          server.pause()
        }
      }),
      accepted: Effect.sync(() => accepted)
    }
  })
