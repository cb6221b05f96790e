/**
 * One effect at a time per key, within this process: a caller whose key is held waits for the
 * holder to finish, then runs. Keys are forgotten once nobody holds them.
 */
import { Deferred, Effect, FiberId } from "effect"

/** Runs effects one at a time per key. */
export type KeyedLock = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** A lock with no key held. */
export const make = (): KeyedLock => {
  const held = new Map<string, Deferred.Deferred<void>>()
  const withKey: KeyedLock = (key, effect) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        // The check and the take happen in one synchronous step, so two fibers never both take a key.
        const holder = held.get(key)
        if (holder !== undefined) return Effect.zipRight(restore(Deferred.await(holder)), withKey(key, effect))
        const released = Deferred.unsafeMake<void>(FiberId.none)
        held.set(key, released)
        return Effect.ensuring(
          restore(effect),
          Effect.suspend(() => {
            held.delete(key)
            return Deferred.succeed(released, undefined)
          })
        )
      })
    )
  return withKey
}
