/**
 * How a Sender ID changes (CONTRACT §6), for every use case and the expiry watcher alike: a change
 * is a `Move` over the version it was read at, its status derived from its registrations, stamped
 * with the `sid.*` events its status change emits. `update` reads, changes and writes again when
 * another change came first, so that each change is made from what is stored.
 *
 * @since 0.1.0
 */
import { Conflict, NotFound, type StoreUnavailable } from "@sendline/api/Errors"
import type { Context } from "effect"
import { Effect, Option } from "effect"
import type { Event, EventType } from "../Event.js"
import type { IdGenerator } from "../Ids.js"
import * as Registration from "./Registration.js"
import { type SenderIdRecord, termMillis } from "./SenderId.js"
import * as SenderIdJson from "./SenderIdJson.js"
import type { Move, SenderIdStore, WithRegistrations } from "./SenderIdStore.js"

/** `current`'s registrations with `changed` in place of those of their ids. */
const merge = (current: ReadonlyArray<Registration.Registration>, changed: ReadonlyArray<Registration.Registration>) =>
  current.map((r) => changed.find((c) => c.id === r.id) ?? r)

/**
 * `record` with the status its `registrations` derive at `now`: entering `registered` sets
 * `registeredAt` and a 365-day `expiresAt`; an expired record stays expired, and an imported one
 * (no registrations) keeps the status it was imported with.
 */
const derived = (
  record: SenderIdRecord,
  registrations: ReadonlyArray<Registration.Registration>,
  now: number
): SenderIdRecord => {
  // an expired record stays so; an imported one has no registrations to derive from
  if (record.status === "expired" || registrations.length === 0) return record
  const status = Registration.derive(registrations.map((r) => r.status))
  if (status === record.status) return record
  return status === "registered"
    ? { ...record, status, registeredAt: now, expiresAt: now + termMillis }
    : { ...record, status }
}

/**
 * The move from `current` to `next` with `changed` registrations, one version on: its status
 * derived from the registrations (`derived`), with the events of its status change at `now`
 * (`sid.status_changed`, and `sid.registered` or `sid.rejected` on entering those), then `also`
 * (such as `sid.expiring`), all for the record's account; and the record as it is after the move.
 *
 * @since 0.1.0
 * @category transitions
 */
export const move = (
  ids: Context.Tag.Service<IdGenerator>,
  current: WithRegistrations,
  next: SenderIdRecord,
  changed: ReadonlyArray<Registration.Registration>,
  now: number,
  also: ReadonlyArray<EventType> = []
): Effect.Effect<readonly [Move, WithRegistrations]> =>
  Effect.gen(function*() {
    const registrations = merge(current.registrations, changed)
    const record: SenderIdRecord = { ...derived(next, registrations, now), version: current.record.version + 1 }
    const after: WithRegistrations = { record, registrations }
    const data = SenderIdJson.senderId(after)
    const previous = current.record.status
    const types: Array<EventType> = []
    if (record.status !== previous) {
      types.push("sid.status_changed")
      if (record.status === "registered") types.push("sid.registered")
      if (record.status === "rejected") types.push("sid.rejected")
    }
    for (const type of also) types.push(type)
    const events = yield* Effect.forEach(types, (type) =>
      Effect.map(ids.make("evt"), (id): Event => ({
        id,
        accountId: record.accountId,
        type,
        subjectId: record.id,
        createdAt: now,
        data: type === "sid.status_changed" ? { ...data, previous_status: previous } : data
      })))
    return [{ next: record, registrations: changed, events }, after] as const
  })

/** The most times `update` reads again after another change came first. */
const maxAttempts = 5

/**
 * Reads the record `id`, makes `change` of it and writes it over the version read; when another
 * change came first, does it all again from what is stored now (up to five times, then 409
 * `invalid_state_transition`). `visible` decides who may see the record (else 404 `message`).
 *
 * @since 0.1.0
 * @category transitions
 */
export const update = <A, E>(
  store: Context.Tag.Service<SenderIdStore>,
  id: string,
  notFound: string,
  visible: (current: WithRegistrations) => boolean,
  change: (current: WithRegistrations) => Effect.Effect<readonly [Move, A], E>
): Effect.Effect<A, E | NotFound | Conflict | StoreUnavailable> =>
  Effect.gen(function*() {
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const found = yield* store.findById(id)
      if (Option.isNone(found) || !visible(found.value)) return yield* new NotFound({ message: notFound })
      const [made, answer] = yield* change(found.value)
      const [applied] = yield* store.transition([made])
      if (applied) return answer
    }
    return yield* new Conflict({
      code: "invalid_state_transition",
      message: `Sender ID ${id} kept changing while this change was made; try again.`
    })
  })
