/**
 * The second guard of an idempotency key, for a use case whose records keep the key they were
 * created with, unique per account in the store (a message, a brand's relationship): a retry that
 * took over a key abandoned by a crash finds the record the first attempt created and answers it,
 * instead of creating another. The first guard, the reservation (`Idempotency.begin`), replays an
 * answer that was kept; this one answers what was created when the answer was lost.
 *
 * Within one process, the creations of one account's key run one after another (a keyed lock), so
 * a later one finds the record of the first. Across processes the store decides: of two inserts
 * under one key one wins and the other fails `IdempotencyKeyTaken`, then answers the winner's
 * record. A key is the account's again after its retention: the record that holds it, older than
 * that, gives it up (once; a key taken again meanwhile is held by a creation still running).
 */
import { Conflict } from "@sendline/api/Errors"
import { Clock, Effect, Option } from "effect"
import * as KeyedLock from "../internal/keyedLock.js"
import { type IdempotencyKeyTaken, type Key, retentionMillis } from "./Idempotency.js"

/** Where the records that keep their keys are found, and their expired keys given up. */
export interface Holders<A, E> {
  /** The account's record created with `key` at or after `since`, if any. */
  readonly find: (accountId: string, key: string, since: number) => Effect.Effect<Option.Option<A>, E>
  /** Takes `key` off the account's records created before `before`. */
  readonly release: (accountId: string, key: string, before: number) => Effect.Effect<void, E>
}

/**
 * How to write what a creation made: the record as written (failing `IdempotencyKeyTaken` when its
 * key is held). A batch is known whole only once written (its spending limit is consumed in the
 * store), so the insert answers the record.
 */
interface Created<A, E> {
  readonly insert: Effect.Effect<A, IdempotencyKeyTaken | E>
}

/** Creates under an optional idempotency key: `accountId`'s record held by `key`, if any, or a new one. */
export type FindOrInsert<A, E> = <E1, E2, R>(
  accountId: string,
  key: Key | undefined,
  options: {
    /** The answer when the key is held: the holder when the request asks for it, else a conflict. */
    readonly answerHeld: (held: A) => Effect.Effect<A, E1>
    /** Checks the request and makes the record, at `now`: run only when no record holds the key. */
    readonly create: (now: number) => Effect.Effect<Created<A, E>, E2, R>
  }
) => Effect.Effect<A, E | E1 | E2 | Conflict, R>

const isTaken = (error: unknown): error is IdempotencyKeyTaken =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "IdempotencyKeyTaken"

/** A find-or-insert over `holders`, with its own lock of keys. */
export const make = <A, E>(holders: Holders<A, E>): FindOrInsert<A, E> => {
  const oneAtATime = KeyedLock.make()

  const insertOrAnswer = <E1>(
    made: Created<A, E>,
    answerHeld: (held: A) => Effect.Effect<A, E1>,
    since: number,
    mayRelease: boolean
  ): Effect.Effect<A, E | E1 | Conflict> =>
    made.insert.pipe(
      Effect.catchIf(isTaken, ({ accountId, key }) =>
        Effect.flatMap(holders.find(accountId, key, since), (held): Effect.Effect<A, E | E1 | Conflict> =>
          Option.isSome(held)
            ? answerHeld(held.value)
            : mayRelease
            ? Effect.zipRight(holders.release(accountId, key, since), insertOrAnswer(made, answerHeld, since, false))
            : Effect.fail(
              new Conflict({
                code: "idempotency_in_progress",
                message: "A request with this idempotency key is still in progress."
              })
            )))
    )

  return (accountId, key, { answerHeld, create }) => {
    const once = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const since = now - retentionMillis
      if (key !== undefined) {
        const held = yield* holders.find(accountId, key, since)
        if (Option.isSome(held)) return yield* answerHeld(held.value)
      }
      return yield* insertOrAnswer(yield* create(now), answerHeld, since, true)
    })
    return key === undefined ? once : oneAtATime(`${accountId}\u0000${key}`, once)
  }
}
