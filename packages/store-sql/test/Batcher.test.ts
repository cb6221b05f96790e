import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, Scope, Tracer } from "effect"
import * as Batcher from "../src/Batcher.js"

describe("Batcher", () => {
  it.scoped("concurrent submitters share batches and each gets its own result", () =>
    Effect.gen(function*() {
      const batches: Array<number> = []
      const doubler = yield* Batcher.make({
        name: "test",
        maxBatch: 8,
        run: (items: ReadonlyArray<number>) => Effect.sync(() => (batches.push(items.length), items.map((n) => n * 2)))
      })
      const results = yield* Effect.all(Array.from({ length: 20 }, (_, i) => doubler.submit(i)), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(results, Array.from({ length: 20 }, (_, i) => i * 2))
      assert.isBelow(batches.length, 20, "some items shared a batch")
      assert.isTrue(batches.every((size) => size <= 8), "no batch over maxBatch")
    }))

  it.scoped("items submitted from separate callbacks of one event-loop turn share one batch", () =>
    Effect.gen(function*() {
      const batches: Array<ReadonlyArray<number>> = []
      const recorder = yield* Batcher.make({
        name: "test",
        maxBatch: 64,
        run: (items: ReadonlyArray<number>) => Effect.sync(() => (batches.push(items), items))
      })
      // Like requests read one by one in a turn: each callback starts its submitter, whose
      // microtasks run before the next callback; a batcher that ran at once would take one each.
      const results = yield* Effect.async<ReadonlyArray<number>>((resume) => {
        const pending: Array<Promise<number>> = []
        for (let i = 0; i < 10; i++) setImmediate(() => pending.push(Effect.runPromise(recorder.submit(i))))
        setImmediate(() => void Promise.all(pending).then((all) => resume(Effect.succeed(all))))
      })
      assert.deepStrictEqual(results, Array.from({ length: 10 }, (_, i) => i))
      assert.deepStrictEqual(batches, [results])
    }))

  it.scoped("one bad item fails only its own submitter", () =>
    Effect.gen(function*() {
      const checker = yield* Batcher.make({
        name: "test",
        maxBatch: 16,
        run: (items: ReadonlyArray<number>) =>
          items.includes(13) ? Effect.fail(`unlucky in ${items.length}`) : Effect.succeed(items.map(String))
      })
      const results = yield* Effect.all(Array.from({ length: 16 }, (_, i) => Effect.either(checker.submit(i))), {
        concurrency: "unbounded"
      })
      results.forEach((result, i) =>
        i === 13
          ? assert.deepStrictEqual(result._tag === "Left" && result.left, "unlucky in 1")
          : assert.deepStrictEqual(result._tag === "Right" && result.right, String(i))
      )
    }))

  it.scoped("traced, a batch is a span under its first submitter's span, linked to the others'", () =>
    Effect.gen(function*() {
      const parents: Array<Option.Option<Tracer.AnySpan>> = []
      const batcher = yield* Batcher.make({
        name: "Test.batch",
        maxBatch: 8,
        run: (items: ReadonlyArray<number>) =>
          Effect.map(Effect.serviceOption(Tracer.ParentSpan), (span) => (parents.push(span), items))
      })
      // each submitter in a span of its own, answering it
      const submit = (name: string, i: number) =>
        Effect.withSpan(Effect.zipLeft(Effect.orDie(Effect.currentSpan), batcher.submit(i)), name)
      const spans = yield* Effect.all([submit("first", 1), submit("second", 2), submit("third", 3)], {
        concurrency: "unbounded"
      })
      assert.strictEqual(parents.length, 1, "one batch")
      const batch = Option.getOrThrow(parents[0]!) as Tracer.Span
      assert.strictEqual(batch.name, "Test.batch")
      assert.strictEqual(batch.attributes.get("batch.size"), 3)
      const parent = Option.getOrThrow(batch.parent) as Tracer.Span
      assert.strictEqual(parent.name, "first")
      assert.strictEqual(parent.traceId, spans[0]!.traceId, "in the first submitter's trace")
      assert.deepStrictEqual(batch.links.map((link) => (link.span as Tracer.Span).name), ["second", "third"])
    }))

  it.scoped("built with tracing off, a batch makes no span and reads no submitter's", () =>
    Effect.gen(function*() {
      const parents: Array<Option.Option<Tracer.AnySpan>> = []
      const batcher = yield* Effect.withTracerEnabled(
        Batcher.make({
          name: "Test.batch",
          maxBatch: 8,
          run: (items: ReadonlyArray<number>) =>
            Effect.map(Effect.serviceOption(Tracer.ParentSpan), (span) => (parents.push(span), items))
        }),
        false
      )
      yield* Effect.withSpan(batcher.submit(1), "caller")
      assert.deepStrictEqual(parents, [Option.none()])
    }))

  it.effect("closing the scope interrupts submitters still waiting", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const stuck = yield* Batcher.make({
        name: "test",
        maxBatch: 1,
        run: (items: ReadonlyArray<number>) =>
          Deferred.succeed(started, undefined).pipe(Effect.zipRight(Deferred.await(gate)), Effect.as(items))
      }).pipe(Scope.extend(scope))
      const first = yield* Effect.fork(stuck.submit(1))
      yield* Deferred.await(started)
      const second = yield* Effect.fork(stuck.submit(2))
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(Exit.isInterrupted(yield* Fiber.await(second)), "the waiting item is interrupted")
      yield* Fiber.interrupt(first)
    }))

  it.effect("closing the scope interrupts an item taken for a batch that has not run yet", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const ran: Array<ReadonlyArray<number>> = []
      const batcher = yield* Batcher.make({
        name: "test",
        maxBatch: 8,
        run: (items: ReadonlyArray<number>) => Effect.sync(() => (ran.push(items), items))
      }).pipe(Scope.extend(scope))
      const submitter = yield* Effect.fork(batcher.submit(1))
      // microtasks only: the worker takes the item and waits for the end of the turn
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(Exit.isInterrupted(yield* Fiber.await(submitter)), "the taken item is interrupted")
      assert.deepStrictEqual(ran, [])
    }))
})
