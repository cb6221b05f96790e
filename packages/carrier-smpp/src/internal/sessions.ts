/**
 * The carrier's sessions: `sessions=N` of `session`, bound at once, each kept alive and bound again
 * on its own; a submit goes to the bound one with the fewest submits awaiting their answer (ties in
 * turn). A session lost settles its own submits in doubt; the others go on. Every session's
 * receipts go to the one `receive`.
 */
import type { Scope } from "effect"
import { Effect, Option } from "effect"
import type * as Submits from "../Submits.js"
import type { InDoubt } from "./inDoubt.js"
import * as Session from "./session.js"
import type { State } from "./state.js"

/** A bound session, picked for one submit. */
interface Picked {
  /** `Session.send` on the session picked. */
  readonly send: (
    sm: Submits.SubmitSm,
    reference: string,
    accepted: (messageId: string) => void
  ) => Effect.Effect<Session.Answer>
  /** Drops the session picked for `reason`: it is bound again after its backoff. */
  readonly drop: (reason: string) => Effect.Effect<void>
}

/** The carrier's sessions, as long as their scope. */
export interface Sessions {
  /** The carrier's state: `bound` when any session is, else the most hopeful of theirs. */
  readonly state: Effect.Effect<State>
  /** Each session's state, in order. */
  readonly states: Effect.Effect<ReadonlyArray<State>>
  /** Sessions bound now. */
  readonly bound: Effect.Effect<number>
  /** `submit_sm`s awaiting their answer now, on every session. */
  readonly outstanding: Effect.Effect<number>
  /** A bound session for one submit, without waiting; none when no session is bound. */
  readonly pick: Effect.Effect<Option.Option<Picked>>
}

/** The carrier's state when no session is bound: the first of these that one of its sessions is in. */
const hopeful: ReadonlyArray<State> = ["bound", "lost", "connecting", "refused", "unreachable"]

/**
 * Binds `options.account.sessions` sessions at once and waits for each one's first attempt; fails
 * with the first `Refusal` when the SMSC refuses a bind then (see `Session.make`).
 */
export const make = (
  options: Omit<Session.Options, "label">,
  inDoubt: InDoubt,
  receive: Session.Receive
): Effect.Effect<Sessions, Session.Refusal, Scope.Scope> =>
  Effect.gen(function*() {
    const count = options.account.sessions
    const sessions = yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i + 1),
      (n) =>
        Session.make({ ...options, label: count === 1 ? undefined : `session ${n} of ${count}` }, inDoubt, receive),
      { concurrency: "unbounded" }
    )
    let turn = 0

    const pick = Effect.sync((): Option.Option<Picked> => {
      let best: { readonly session: Session.Session; readonly live: Session.Live } | undefined
      for (let i = 0; i < count; i++) {
        const session = sessions[(turn + i) % count]!
        const live = session.live()
        if (live !== undefined && (best === undefined || live.outstanding.size < best.live.outstanding.size)) {
          best = { session, live }
        }
      }
      turn = (turn + 1) % count
      if (best === undefined) return Option.none()
      const { live, session } = best
      return Option.some({
        send: (sm, reference, accepted) => session.send(live, sm, reference, accepted),
        drop: (reason) => session.drop(live, reason)
      })
    })

    const states = Effect.forEach(sessions, (session) => session.state)
    return {
      state: Effect.map(states, (all) => hopeful.find((state) => all.includes(state)) ?? all[0]!),
      states,
      bound: Effect.sync(() => sessions.filter((session) => session.live() !== undefined).length),
      outstanding: Effect.sync(() =>
        sessions.reduce((sum, session) => sum + (session.live()?.outstanding.size ?? 0), 0)
      ),
      pick
    }
  })
