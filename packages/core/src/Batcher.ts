/**
 * Batches work submitted by concurrent fibers: one worker takes everything waiting (up to a
 * limit) and runs it as one unit — one transaction for many inserts (group commit), one query for
 * many lookups. Under no load a batch holds one item and costs one hand-off; under load the fixed
 * cost of a statement or a commit is shared by the whole batch.
 *
 * A batch closes at the end of the event loop's turn in which its first item arrived, not at once:
 * Node runs every I/O callback of a turn (each request that arrived) and the microtasks after each
 * before `setImmediate`, so all requests of one turn reach the batcher before it runs. Closing at
 * once made batches of one on a server whose writes are synchronous (better-sqlite3): the first
 * request's commit ran before the next request was even read.
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Exit, Queue, type Scope } from "effect"

const schedule: (run: () => void) => () => void = typeof setImmediate === "function"
  ? (run) => {
    const handle = setImmediate(run)
    return () => clearImmediate(handle)
  }
  : (run) => {
    const handle = setTimeout(run, 0)
    return () => clearTimeout(handle)
  }

/** Resumes once the event loop's current turn has run its I/O callbacks (not a Clock sleep). */
const endOfTurn: Effect.Effect<void> = Effect.async((resume) => {
  const cancel = schedule(() => resume(Effect.void))
  return Effect.sync(cancel)
})

/** Submits one item and waits for its result. @since 0.1.0 @category models */
export interface Batcher<A, B, E> {
  readonly submit: (item: A) => Effect.Effect<B, E>
}

/**
 * A batcher whose worker runs `run` on up to `maxBatch` waiting items at a time. `run` returns one
 * result per item, in order. When a batch of several fails, each of its items is run again alone,
 * so that one bad item fails only its own submitter. The worker lives as long as the scope; items
 * still waiting when it closes are interrupted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A, B, E>(options: {
  readonly maxBatch: number
  readonly run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>
}): Effect.Effect<Batcher<A, B, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    type Item = readonly [A, Deferred.Deferred<B, E>]
    const queue = yield* Queue.unbounded<Item>()

    const alone = ([item, deferred]: Item) =>
      Effect.flatMap(Effect.exit(Effect.map(options.run([item]), (results) => results[0]!)), (exit) =>
        Deferred.done(deferred, exit))

    const runBatch = Effect.flatMap(Queue.take(queue), (first) => {
      let batch: ReadonlyArray<Item> = [first]
      return endOfTurn.pipe(
        Effect.zipRight(Queue.takeUpTo(queue, options.maxBatch - 1)),
        Effect.flatMap((rest) => runItems(batch = [first, ...rest])),
        // items taken off the queue are no longer the finalizer's: a closing scope interrupts them here
        Effect.onInterrupt(() => Effect.forEach(batch, ([, deferred]) => Deferred.interrupt(deferred), { discard: true }))
      )
    })

    const runItems = (batch: ReadonlyArray<Item>) => {
      if (batch.length === 1) return alone(batch[0]!)
      return Effect.flatMap(Effect.exit(options.run(batch.map(([item]) => item))), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.forEach(batch, ([, deferred], i) => Deferred.succeed(deferred, exit.value[i]!), { discard: true })
          : Effect.forEach(batch, alone, { discard: true }))
    }

    yield* Effect.forkScoped(Effect.forever(runBatch))
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.takeAll(queue), (left) =>
        Effect.zipRight(
          Effect.forEach(left, ([, deferred]) => Deferred.interrupt(deferred), { discard: true }),
          Queue.shutdown(queue)
        ))
    )

    return {
      submit: (item: A) =>
        Effect.flatMap(Deferred.make<B, E>(), (deferred) =>
          Effect.zipRight(Queue.offer(queue, [item, deferred] as const), Deferred.await(deferred)))
    }
  })
