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
 * Traced (a batcher made while tracing is on, Effect's default), a batch is a span of its own,
 * `name`, the child of its first submitter's span and linked to the others', so that its statements
 * appear in the trace of a request they served; each submitter then also reads its span. Made with
 * tracing off (`Services.withoutSpans`, as a server that exports no traces builds its store), it
 * costs nothing of the kind.
 *
 * @since 0.1.0
 */
import { Effect, Exit, FiberRef, FiberSet, Option, type Scope, Tracer } from "effect"

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
  /** The batch's span, when traced: "MessageStore.insert". */
  readonly name: string
  readonly maxBatch: number
  readonly run: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>
}): Effect.Effect<Batcher<A, B, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    interface Waiter {
      readonly item: A
      readonly resume: (result: Effect.Effect<B, E>) => void
      /** The submitter's span, when traced. */
      readonly span: Tracer.AnySpan | undefined
    }
    const traced = yield* FiberRef.get(FiberRef.currentTracerEnabled)
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()
    const waiting: Array<Waiter> = []
    let cancelFlush: (() => void) | undefined
    let running = false
    let closed = false

    const alone = (waiter: Waiter) =>
      Effect.map(Effect.exit(Effect.map(options.run([waiter.item]), (results) => results[0]!)), waiter.resume)

    // The batch's span: under its first traced submitter, linked to the others.
    const traceBatch = (batch: ReadonlyArray<Waiter>, effect: Effect.Effect<void>): Effect.Effect<void> => {
      const spans = batch.flatMap((waiter) => (waiter.span === undefined ? [] : [waiter.span]))
      if (spans.length === 0) return effect
      return Effect.withSpan(effect, options.name, {
        parent: spans[0],
        links: spans.slice(1).map((span): Tracer.SpanLink => ({ _tag: "SpanLink", span, attributes: {} })),
        attributes: { "batch.size": batch.length },
        captureStackTrace: false
      })
    }

    const runBatch = (batch: ReadonlyArray<Waiter>): Effect.Effect<void> =>
      traced ? traceBatch(batch, untracedBatch(batch)) : untracedBatch(batch)

    const untracedBatch = (batch: ReadonlyArray<Waiter>): Effect.Effect<void> =>
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
      runFork(
        runBatch(batch).pipe(
          // A submitter resumed twice keeps the first result: this only reaches those still waiting.
          Effect.onInterrupt(() => Effect.sync(() => batch.forEach((waiter) => waiter.resume(Effect.interrupt)))),
          Effect.ensuring(Effect.sync(() => {
            running = false
            if (waiting.length > 0 && !closed) cancelFlush ??= schedule(flush)
          }))
        )
      )
    }

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        cancelFlush?.()
        for (const waiter of waiting.splice(0)) waiter.resume(Effect.interrupt)
      })
    )

    const enqueue = (item: A, span: Tracer.AnySpan | undefined) =>
      Effect.async<B, E>((resume) => {
        if (closed) return resume(Effect.interrupt)
        waiting.push({ item, resume, span })
        if (!running) cancelFlush ??= schedule(flush)
      })

    return {
      submit: traced
        ? (item: A) =>
          Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (span) => enqueue(item, Option.getOrUndefined(span)))
        : (item: A) => enqueue(item, undefined)
    }
  })
