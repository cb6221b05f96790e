/**
 * How a use case is defined: with `Effect.fn(name)`, a span per call, when tracing is enabled as
 * the use case is built (Effect's default); with `Effect.fnUntraced` when it is not. A span costs
 * 10–20 µs a call (its call site's stack, the span, the context that carries it), as much as the
 * rest of a send's own checks, so a server with no trace exporter builds its use cases untraced
 * (`Services.layerUntraced`).
 */
import { Effect, FiberRef } from "effect"

const untraced = ((nameOrBody: unknown, ...rest: Array<unknown>) =>
  typeof nameOrBody === "string"
    ? (body: unknown, ...pipeables: Array<unknown>) => (Effect.fnUntraced as Function)(body, ...pipeables)
    : (Effect.fnUntraced as Function)(nameOrBody, ...rest)) as typeof Effect.fn

/** `Effect.fn`, or its untraced twin while tracing is off. */
export const fn: Effect.Effect<typeof Effect.fn> = Effect.map(
  FiberRef.get(FiberRef.currentTracerEnabled),
  (enabled) => (enabled ? Effect.fn : untraced)
)
