/**
 * The ExpiryWatcher worker (CONTRACT §6): 30 days before a registered Sender ID's `expiresAt` it
 * emits `sid.expiring`, once per term (a renewal starts a new one), and at `expiresAt` it moves the
 * Sender ID to `expired` with `sid.status_changed`. It claims what is due through the store
 * (`SenderIdStore.claimWatched`), and each change is written only over the version it was made
 * from, so that two watchers, in one process or several, never emit one event twice. A Sender ID
 * stops sending at its `expiresAt` whether or not the watcher has run (`SenderId.canSend`).
 *
 * @since 0.1.0
 */
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { EventType } from "../Event.js"
import { IdGenerator } from "../Ids.js"
import * as Progress from "../internal/progress.js"
import * as Worker from "../internal/worker.js"
import * as Lifecycle from "./Lifecycle.js"
import { type SenderIdRecord, warningMillis } from "./SenderId.js"
import { type Move, SenderIdStore, type WithRegistrations } from "./SenderIdStore.js"

/** ExpiryWatcher settings: those of every worker that claims. @since 0.1.0 @category models */
export type Options = Worker.Leased

/**
 * The default settings: those of every worker that claims (batches of 100, 30 s leases, 1 s polls).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = Worker.leasedDefaults

/**
 * The ExpiryWatcher worker: a pass claims the Sender IDs due now and warns or expires each.
 *
 * @since 0.1.0
 * @category services
 */
export class ExpiryWatcher
  extends Context.Tag("@sendline/core/ExpiryWatcher")<ExpiryWatcher, Worker.Worker<StoreUnavailable>>()
{}

type Outcome = "warned" | "expired"

const describe = (counts: ReadonlyMap<Outcome, number>): string =>
  [...counts].map((
    [outcome, n],
    i
  ) => (i === 0 ? `${n} ${n === 1 ? "Sender ID" : "Sender IDs"} ${outcome}` : `${n} ${outcome}`))
    .join(", ")

/** What is due for `record` at `now`: expiry at `expiresAt`, else the warning of its term; nothing otherwise. */
const dueOf = (
  record: SenderIdRecord,
  now: number
): Option.Option<
  { readonly next: SenderIdRecord; readonly outcome: Outcome; readonly also: ReadonlyArray<EventType> }
> => {
  const { expiresAt } = record
  if (record.status !== "registered" || expiresAt === undefined) return Option.none()
  if (expiresAt <= now) return Option.some({ next: { ...record, status: "expired" }, outcome: "expired", also: [] })
  if (expiresAt - warningMillis <= now && record.warnedExpiresAt !== expiresAt) {
    return Option.some({ next: { ...record, warnedExpiresAt: expiresAt }, outcome: "warned", also: ["sid.expiring"] })
  }
  return Option.none()
}

/** Builds the ExpiryWatcher with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Tag.Service<ExpiryWatcher>, never, SenderIdStore | IdGenerator> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const store = yield* SenderIdStore
    const ids = yield* IdGenerator
    const progress = Progress.make<Outcome>("ExpiryWatcher", describe)

    const pass = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* store.claimWatched(now, settings.batchSize, now + settings.leaseMillis)
      const moves: Array<readonly [Move, Outcome]> = []
      for (const { id, version } of claimed) {
        // the record with its registrations, as the events show it; changed since the claim → left
        // to the watcher that sees its new version
        const found = yield* store.findById(id)
        if (Option.isNone(found) || found.value.record.version !== version) continue
        const current: WithRegistrations = found.value
        const due = dueOf(current.record, now)
        if (Option.isNone(due)) continue
        const [made] = yield* Lifecycle.move(ids, current, due.value.next, [], now, due.value.also)
        moves.push([made, due.value.outcome])
      }
      const applied = yield* store.transition(moves.map(([made]) => made))
      for (const [i, [made, outcome]] of moves.entries()) {
        if (applied[i]) progress.count(outcome)
        else yield* Effect.logDebug(`ExpiryWatcher: ${made.next.id} changed meanwhile; someone else moved it`)
      }
      yield* progress.log(false)
      return { taken: claimed.length }
    })

    return ExpiryWatcher.of(Worker.make("ExpiryWatcher", settings, { pass, logProgress: progress.log }))
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<ExpiryWatcher, never, SenderIdStore | IdGenerator> =>
  Layer.effect(ExpiryWatcher, make(options))
