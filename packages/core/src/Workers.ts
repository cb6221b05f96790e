/**
 * The message workers together: Dispatcher, Scheduler and DeliveryReports, each a fiber looping
 * over due work on the Clock. Start them beside a server or inside an embedding service; they stop
 * when their scope closes, after finishing the carrier answers and reports they hold.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as EffectScheduler from "effect/Scheduler"
import type * as Scope from "effect/Scope"
import type { Carrier } from "./Carrier.js"
import * as DeliveryReports from "./DeliveryReports.js"
import * as Dispatcher from "./Dispatcher.js"
import type { IdGenerator } from "./Ids.js"
import type { MessageStore } from "./MessageStore.js"
import * as Scheduler from "./Scheduler.js"
import type { SenderIdStore } from "./SenderIdStore.js"

/** Settings of each worker, over its defaults. @since 0.1.0 @category models */
export interface Options {
  readonly dispatcher?: Partial<Dispatcher.Options>
  readonly scheduler?: Partial<Scheduler.Options>
  readonly deliveryReports?: Partial<DeliveryReports.Options>
  /**
   * Run at background priority (`layer` and `start` only): the loops give way to the I/O that
   * arrived meanwhile each time they yield, so that a server in the same process keeps answering
   * while they work through a backlog. Off by default, as tests on `TestClock` need: there a moved
   * clock's work is done when `TestClock.adjust` returns.
   */
  readonly background?: boolean
}

/** The three worker services. @since 0.1.0 @category models */
export type Workers = Dispatcher.Dispatcher | Scheduler.Scheduler | DeliveryReports.DeliveryReports

/** What the workers need: a store, a carrier and ids. @since 0.1.0 @category models */
export type Requirements = MessageStore | SenderIdStore | Carrier | IdGenerator

/** Runs the three loops in the foreground until interrupted. @since 0.1.0 @category runners */
export const run: Effect.Effect<never, never, Workers> = Effect.gen(function*() {
  const dispatcher = yield* Dispatcher.Dispatcher
  const scheduler = yield* Scheduler.Scheduler
  const reports = yield* DeliveryReports.DeliveryReports
  yield* Effect.all([dispatcher.run, scheduler.run, reports.run], { concurrency: "unbounded", discard: true })
  return yield* Effect.never
})

// At background priority a fiber that yields (between passes, or every few thousand steps within
// one) resumes from the event loop's check phase (`setImmediate`), after the I/O that arrived
// meanwhile. On Effect's default scheduler it resumes before any I/O, so a backlog of passes holds
// every request of a server in the same process until it has drained.
const backgroundScheduler = EffectScheduler.makeBatched((runBatch) => setImmediate(runBatch))

/**
 * Forks the three loops into the current scope (at background priority when asked, see
 * `Options.background`); closing the scope interrupts them.
 *
 * @since 0.1.0
 * @category runners
 */
export const start = (
  options: Pick<Options, "background"> = {}
): Effect.Effect<void, never, Workers | Scope.Scope> =>
  Effect.asVoid(Effect.forkScoped(options.background === true ? Effect.withScheduler(run, backgroundScheduler) : run))

/** One pass of each worker in lifecycle order; returns how many items each took. @since 0.1.0 @category runners */
export const runOnce = Effect.gen(function*() {
  const scheduled = yield* (yield* Scheduler.Scheduler).runOnce
  const dispatched = yield* (yield* Dispatcher.Dispatcher).runOnce
  const reports = yield* (yield* DeliveryReports.DeliveryReports).runOnce
  return { scheduled, dispatched, reports }
})

/** The three worker services, not started. @since 0.1.0 @category layers */
export const layerServices = (options: Options = {}): Layer.Layer<Workers, never, Requirements> =>
  Layer.mergeAll(
    Dispatcher.layer(options.dispatcher),
    Scheduler.layer(options.scheduler),
    DeliveryReports.layer(options.deliveryReports)
  )

/**
 * The three workers, started: they run while the layer's scope is open and are interrupted
 * cleanly when it closes. The services stay available, e.g. for `runOnce` in a health check.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Workers, never, Requirements> =>
  Layer.scopedDiscard(start(options)).pipe(Layer.provideMerge(layerServices(options)))
