/**
 * The submit window, the carrier's as a whole across its sessions: at most `window` `submit_sm`s
 * awaiting their answer, at most `rate` a second, and, after a transient answer (`ESME_RTHROTTLED`…),
 * a pause of every submit (`throttlePause`, one warning an episode) before the part is tried again,
 * `attempts` tries in all. `ESME_RINVBNDSTS` drops the session that answered it and the part is
 * tried on another. Any other status refuses the message for good, normalised by `status`'s table;
 * a submit in doubt leaves it to the Dispatcher's lease, and so does no session bound, at once.
 */
import { Carrier } from "@sendline/core"
import { Clock, Duration, Effect, Option } from "effect"
import smpp from "smpp"
import type * as Submits from "../Submits.js"
import type { InDoubt } from "./inDoubt.js"
import type { Answer } from "./session.js"
import type { Sessions } from "./sessions.js"
import * as Status from "./status.js"

/** The window, the rate cap, the pause and the tries. */
export interface Options {
  /** The account's location, without the password. */
  readonly where: string
  readonly window: number
  readonly maxPerSecond: number | undefined
  readonly throttlePause: number
  readonly attempts: number
  readonly responseTimeout: Duration.Duration
}

/** Submits the parts of messages on the session. */
export interface SubmitWindow {
  /**
   * Submits one part of `reference`'s message, retrying transient answers: its carrier id, or why
   * the message stops here. `accepted` records an accepted part's id as it comes (see `Session.send`).
   */
  readonly submit: (
    reference: string,
    sm: Submits.SubmitSm,
    accepted: (messageId: string) => void
  ) => Effect.Effect<string, Carrier.CarrierRefused | Carrier.CarrierUnavailable>
  /** Submits awaiting their answer now, of the window's size. */
  readonly inUse: Effect.Effect<number>
  /** Whether submits are paused now after a transient answer. */
  readonly paused: Effect.Effect<boolean>
}

const unsent: Answer = { _tag: "unsent" }

const unavailable = (reason: "throttled" | "unavailable" | "timeout", message: string) =>
  new Carrier.CarrierUnavailable({ reason, message })

/** An empty window on `sessions`, unpaused. */
export const make = (options: Options, sessions: Sessions, inDoubt: InDoubt): Effect.Effect<SubmitWindow> =>
  Effect.gen(function*() {
    const { attempts, maxPerSecond, responseTimeout, throttlePause, where } = options
    const window = yield* Effect.makeSemaphore(options.window)
    let inUse = 0
    let pausedUntil = 0
    let nextSlot = 0
    let pauseLogged = false

    /** Waits out a pause after a transient answer, then for this submit's slot under the rate cap. */
    const slot = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      let at = Math.max(now, pausedUntil)
      if (maxPerSecond !== undefined) {
        at = Math.max(at, nextSlot)
        nextSlot = at + 1000 / maxPerSecond
      }
      return at > now ? Effect.sleep(Duration.millis(at - now)) : Effect.void
    })

    /** Pauses every submit after the transient answer `name`, saying so once an episode. */
    const pause = (name: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        pausedUntil = Math.max(pausedUntil, now + throttlePause)
        if (pauseLogged) return Effect.void
        pauseLogged = true
        return Effect.logWarning(
          `SMPP: ${where} answered ${name}; submits pause ${throttlePause} ms and are tried again`
        )
      })

    /** Sends one part on the session with the fewest awaiting their answer, within the window; `unsent` when none is bound. */
    const send = (reference: string, sm: Submits.SubmitSm, accepted: (messageId: string) => void) =>
      window.withPermits(1)(Effect.gen(function*() {
        const picked = yield* sessions.pick
        if (Option.isNone(picked)) return unsent
        inUse++
        const answer = yield* picked.value.send(sm, reference, accepted).pipe(
          Effect.ensuring(Effect.sync(() => inUse--))
        )
        if (answer._tag === "answered" && answer.status === Status.unbound) {
          yield* picked.value.drop(`the SMSC answered ${Status.name(answer.status)} to a submit`)
        }
        return answer
      }))

    const submit = (reference: string, sm: Submits.SubmitSm, accepted: (messageId: string) => void) =>
      Effect.gen(function*() {
        let last = "the session was closing"
        let throttled = false
        for (let attempt = 1; attempt <= attempts; attempt++) {
          if ((yield* sessions.bound) === 0) {
            return yield* unavailable("unavailable", `Not bound to ${where} (${yield* sessions.state}).`)
          }
          yield* slot
          const answer = yield* send(reference, sm, accepted)
          switch (answer._tag) {
            case "answered": {
              if (answer.status === 0) {
                pauseLogged = false
                return answer.messageId
              }
              const name = Status.name(answer.status)
              if (answer.status === Status.unbound) {
                last = name
                continue
              }
              if (!Status.transient.has(answer.status)) {
                const { code, failover } = Status.refusal(answer.status)
                return yield* new Carrier.CarrierRefused({
                  code,
                  message: `The SMSC refused the message: ${Status.describe(answer.status)}.`,
                  carrierCode: Status.carrierCode(answer.status),
                  failover
                })
              }
              throttled = answer.status === smpp.errors.ESME_RTHROTTLED
              last = name
              yield* pause(name)
              continue
            }
            case "unsent":
              last = "the session was closing"
              continue
            case "lost":
              return yield* unavailable(
                "unavailable",
                `In doubt: the session with ${where} was lost before the SMSC answered (${answer.reason}); submitted again after the lease.`
              )
            case "timeout":
              yield* inDoubt.timedOut(reference)
              return yield* unavailable(
                "timeout",
                `In doubt: no answer from ${where} within ${Duration.format(responseTimeout)}.`
              )
          }
        }
        return yield* unavailable(
          throttled ? "throttled" : "unavailable",
          `Not taken by ${where} in ${attempts} tries (the last: ${last}).`
        )
      })

    return {
      submit,
      inUse: Effect.sync(() => inUse),
      paused: Effect.map(Clock.currentTimeMillis, (now) => now < pausedUntil)
    }
  })
