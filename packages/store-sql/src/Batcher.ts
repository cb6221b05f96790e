/**
 * Batches work submitted by concurrent fibers and runs it as one unit: one transaction for many
 * inserts (group commit), one query for many lookups. Under no load a batch holds one item; under
 * load the fixed cost of a statement or a commit is shared by the whole batch.
 *
 * A batch closes at the end of the event loop's turn in which its first item arrived, not at once:
 * Node runs every I/O callback of a turn (each request that arrived) and the microtasks after each
 * before `setImmediate`, so all requests of one turn reach the batcher before it runs. Closing at
 * once made batches of one on a server whose writes are synchronous (better-sqlite3): the first
 * request's commit ran before the next request was even read.
 *
 * Batches run one at a time; what arrives meanwhile waits for the next. A submitter costs one
 * `Effect.async` and nothing else (no queue, no deferred, no worker fiber to wake): this sits on
 * every request's path several times.
 *
 * @since 0.1.0
 */
import { Effect, Exit, FiberSet, type Scope } from "effect"

const schedule: (run: () => void) => () => void = typeof setImmediate === "function"
  ? (run) => {
    const handle = setImmediate(run)
    return () => clearImmediate(handle)
  }
  : (run) => {
    const handle = setTimeout(run, 0)
    return () => clearTimeout(handle)
  }

/** Submits one item and waits for its result. @since 0.1.0 @category models */
export interface Batcher<A, B, E> {
  readonly submit: (item: A) => Effect.Effect<B, E>
}

/**
 * A batcher that runs `run` on up to `maxBatch` waiting items at a time. `run` returns one result
 * per item, in order. When a batch of several fails, each of its items is run again alone, so that
 * one bad item fails only its own submitter. Batches run in fibers of the scope; when it closes,
 * the items waiting or in a running batch are interrupted. Interrupting a submitter does not take
 * its item back: its write may already be under way.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A, B, E>(options: {
  readonly maxBatch: number
  readonly run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>
}): Effect.Effect<Batcher<A, B, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    interface Waiter {
      readonly item: A
      readonly resume: (result: Effect.Effect<B, E>) => void
    }
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()
    const waiting: Array<Waiter> = []
    let cancelFlush: (() => void) | undefined
    let running = false
    let closed = false

    const alone = (waiter: Waiter) =>
      Effect.map(Effect.exit(Effect.map(options.run([waiter.item]), (results) => results[0]!)), waiter.resume)

    const runBatch = (batch: ReadonlyArray<Waiter>): Effect.Effect<void> =>
      batch.length === 1 ? alone(batch[0]!) : Effect.flatMap(
        Effect.exit(options.run(batch.map((waiter) => waiter.item))),
        (exit) =>
          Exit.isSuccess(exit)
            ? Effect.sync(() => batch.forEach((waiter, i) => waiter.resume(Exit.succeed(exit.value[i]!))))
            : Effect.forEach(batch, alone, { discard: true })
      )

    const flush = () => {
      cancelFlush = undefined
      if (running || waiting.length === 0) return
      running = true
      const batch = waiting.splice(0, options.maxBatch)
      runFork(runBatch(batch).pipe(
        // A submitter resumed twice keeps the first result: this only reaches those still waiting.
        Effect.onInterrupt(() => Effect.sync(() => batch.forEach((waiter) => waiter.resume(Effect.interrupt)))),
        Effect.ensuring(Effect.sync(() => {
          running = false
          if (waiting.length > 0 && !closed) cancelFlush ??= schedule(flush)
        }))
      ))
    }

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        cancelFlush?.()
        for (const waiter of waiting.splice(0)) waiter.resume(Effect.interrupt)
      })
    )

    return {
      submit: (item: A) =>
        Effect.async<B, E>((resume) => {
          if (closed) return resume(Effect.interrupt)
          waiting.push({ item, resume })
          if (!running) cancelFlush ??= schedule(flush)
        })
    }
  })
