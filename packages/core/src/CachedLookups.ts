/**
 * Short-lived caches in front of the two reads every send makes: the API key by its digest, and
 * the registered Sender ID of (account, Sender ID, market). A record found is kept for `ttlMillis`
 * of Clock time. A Sender ID not found is not kept, so one registered a moment ago is found at once.
 * A key digest not found is kept as long, apart (a flood of unknown keys never pushes out the keys
 * found), so a client repeating an unknown key is answered without the store: no key can appear
 * later under that digest, since a key's secret is drawn at random when it is created.
 * Writes through the `Admin` built on the same caches (revoking a key, importing a Sender ID), and
 * any Sender ID insert or move through these stores, empty them at once, so the use cases of one `Services` layer never serve what that layer changed. A
 * write made anywhere else (the CLI, another server, another `Services` instance in this process)
 * takes effect here within `ttlMillis`.
 *
 * Expiry needs no invalidation: `Auth` and `Messaging` compare a record's `expiresAt` with the
 * clock on every use.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { ApiKey } from "./accounts/Account.js"
import { AccountStore } from "./accounts/AccountStore.js"
import * as SenderId from "./senderIds/SenderId.js"
import { SenderIdStore } from "./senderIds/SenderIdStore.js"

/** Cache settings: how long a record found is kept, and how many are kept. @since 0.1.0 @category models */
export interface Options {
  /** How long a record found is served from memory; 0 turns the caches off. */
  readonly ttlMillis: number
  /** Records kept per cache; the oldest goes first. */
  readonly capacity: number
}

/** The default settings: records kept 5 seconds, at most 10,000 per cache. @since 0.1.0 @category constants */
export const defaults: Options = { ttlMillis: 5_000, capacity: 10_000 }

interface Entry<A> {
  readonly value: A
  readonly until: number
}

/** Entries by key, each until its time is up; the oldest goes first past `capacity`. */
const makeEntries = <A>(options: Options) => {
  const entries = new Map<string, Entry<A>>()
  return {
    clear: () => entries.clear(),
    get: (key: string, now: number): Entry<A> | undefined => {
      const entry = entries.get(key)
      if (entry === undefined || entry.until > now) return entry
      entries.delete(key)
      return undefined
    },
    set: (key: string, value: A, now: number) => {
      if (entries.size >= options.capacity) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, until: now + options.ttlMillis })
    }
  }
}

// Records found by key (and, with `keepMisses`, the keys not found, apart). `generation` counts
// the clears: a lookup that was under way while the cache was emptied does not put what it read back.
const makeCache = <A>(options: Options, keepMisses: boolean) => {
  const found = makeEntries<Option.Option<A>>(options)
  const missed = makeEntries<Option.Option<A>>(options)
  let generation = 0
  return {
    clear: () => {
      generation++
      found.clear()
      missed.clear()
    },
    through: <E>(key: string, lookup: Effect.Effect<Option.Option<A>, E>): Effect.Effect<Option.Option<A>, E> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const entry = found.get(key, now) ?? (keepMisses ? missed.get(key, now) : undefined)
        if (entry !== undefined) return Effect.succeed(entry.value)
        const started = generation
        return Effect.tap(lookup, (value) => {
          if (generation !== started) return
          if (Option.isSome(value)) found.set(key, value, now)
          else if (keepMisses) missed.set(key, value, now)
        })
      })
  }
}

/**
 * The account and Sender ID stores of the context with the two lookups cached. Provide the result
 * to the use cases (as `Services` does), not to the workers: a dispatch reads the database.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Context<AccountStore | SenderIdStore>, never, AccountStore | SenderIdStore> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const accounts = yield* AccountStore
    const senderIds = yield* SenderIdStore
    if (settings.ttlMillis <= 0) return Context.make(AccountStore, accounts).pipe(Context.add(SenderIdStore, senderIds))
    const keys = makeCache<ApiKey>(settings, true)
    const registered = makeCache<SenderId.SenderIdRecord>(settings, false)
    const clearing = <Args extends ReadonlyArray<unknown>, A, E>(
      cache: { clear: () => void },
      write: (...args: Args) => Effect.Effect<A, E>
    ) =>
    (...args: Args) => Effect.ensuring(write(...args), Effect.sync(cache.clear))
    return Context.make(AccountStore, {
      ...accounts,
      findKeyByDigest: (digest) => keys.through(digest, accounts.findKeyByDigest(digest)),
      revokeKey: clearing(keys, accounts.revokeKey)
    }).pipe(Context.add(SenderIdStore, {
      ...senderIds,
      findRegistered: (accountId, senderId, market) =>
        registered.through(
          SenderId.lookupKey(accountId, senderId, market),
          senderIds.findRegistered(accountId, senderId, market)
        ),
      insert: clearing(registered, senderIds.insert),
      transition: clearing(registered, senderIds.transition)
    }))
  })

/** `make` as a layer over the stores of the context. @since 0.1.0 @category layers */
export const layer = (
  options: Partial<Options> = {}
): Layer.Layer<AccountStore | SenderIdStore, never, AccountStore | SenderIdStore> => Layer.effectContext(make(options))
