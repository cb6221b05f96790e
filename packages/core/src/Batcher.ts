/**
 * Batches work submitted by concurrent fibers: one worker takes everything waiting (up to a
 * limit) and runs it as one unit — one transaction for many inserts (group commit), one query for
 * many lookups. Under no load a batch holds one item and costs one hand-off; under load the fixed
 * cost of a statement or a commit is shared by the whole batch.
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Exit, Queue, type Scope } from "effect"

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
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<B, E>]>()

    const alone = ([item, deferred]: readonly [A, Deferred.Deferred<B, E>]) =>
      Effect.flatMap(Effect.exit(Effect.map(options.run([item]), (results) => results[0]!)), (exit) =>
        Deferred.done(deferred, exit))

    const runBatch = Effect.flatMap(Queue.takeBetween(queue, 1, options.maxBatch), (chunk) => {
      const batch = Array.from(chunk)
      if (batch.length === 1) return alone(batch[0]!)
      return Effect.flatMap(Effect.exit(options.run(batch.map(([item]) => item))), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.forEach(batch, ([, deferred], i) => Deferred.succeed(deferred, exit.value[i]!), { discard: true })
          : Effect.forEach(batch, alone, { discard: true }))
    })

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
