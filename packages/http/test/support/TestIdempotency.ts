/** The idempotency store read and set up directly, through its port: what it keeps for a key, and a crash mid-request. */
import { IdempotencyStore } from "@sendline/core"
import { Clock, Effect, Option } from "effect"

/** What the store keeps for `key` of `accountId` (a probe that another request holds the key; one held now if none was). */
export const kept = (accountId: string, key: string) =>
  Effect.gen(function*() {
    const store = yield* IdempotencyStore.IdempotencyStore
    const probe = {
      accountId,
      key,
      fingerprint: "probe",
      createdAt: yield* Clock.currentTimeMillis,
      response: Option.none()
    }
    return Option.getOrThrow(yield* store.reserve(probe, { expired: 0, abandoned: 0 }))
  })

/**
 * What a crash before the answer to `key` of `accountId` was kept leaves behind: the key in
 * progress, reserved now (the reservation's fingerprint is read back from the store, then held afresh).
 */
export const crashBeforeKept = (accountId: string, key: string) =>
  Effect.gen(function*() {
    const store = yield* IdempotencyStore.IdempotencyStore
    const held = yield* kept(accountId, key)
    yield* store.release(held)
    yield* store.reserve({ ...held, createdAt: yield* Clock.currentTimeMillis, response: Option.none() }, {
      expired: 0,
      abandoned: 0
    })
  })
