/**
 * The readiness port: whether the store can serve now. Every Sendline store implements it (see
 * `Stores`); `GET /ready` answers with `ready`, which bounds the store's check by `timeout`.
 * Liveness (`GET /health`) asks nothing of it.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Schema } from "effect"

/** What a ready store tells: the last migration recorded in its database. @since 0.1.0 @category models */
export interface Ready {
  readonly migration: string
}

/**
 * The store cannot serve: it cannot be reached or read (`Unreachable`), it did not answer within
 * `timeout` (`TimedOut`), or its database lacks migrations this version needs (`MigrationsBehind`).
 * `message` names the store and what failed, never SQL, a host or a password; the driver's error
 * is kept as `cause`.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotReady extends Schema.TaggedError<NotReady>("@sendline/core/NotReady")("NotReady", {
  reason: Schema.Literal("Unreachable", "TimedOut", "MigrationsBehind"),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** Checks that the store answers and its migrations are current. @since 0.1.0 @category ports */
export class Readiness extends Context.Tag("@sendline/core/Readiness")<Readiness, {
  /** Succeeds when a trivial query answers and every migration this version needs is recorded. */
  readonly check: Effect.Effect<Ready, NotReady>
}>() {}

/** How long the store has to answer before it is not ready. @since 0.1.0 @category constants */
export const timeout: Duration.Duration = Duration.seconds(2)

/**
 * The store's check, failing `TimedOut` when it has not answered within `timeout` (on the Clock).
 *
 * @since 0.1.0
 * @category checks
 */
export const ready: Effect.Effect<Ready, NotReady, Readiness> = Effect.flatMap(
  Readiness,
  (readiness) =>
    Effect.timeoutFail(readiness.check, {
      duration: timeout,
      onTimeout: () =>
        new NotReady({
          reason: "TimedOut",
          message: `The store did not answer within ${Duration.toSeconds(timeout)} seconds`
        })
    })
)
