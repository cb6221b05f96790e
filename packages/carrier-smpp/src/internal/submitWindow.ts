/**
 * The submit window: at most `window` `submit_sm`s awaiting their answer, at most `rate` a second,
 * and, after a transient answer (`ESME_RTHROTTLED`…), a pause of every submit (`throttlePause`, one
 * warning an episode) before the part is tried again, `attempts` tries in all. Any other status
 * refuses the message for good, normalised by `status`'s table; a submit in doubt leaves it to the
 * Dispatcher's lease.
 */
import { Carrier } from "@sendline/core"
import { Clock, Duration, Effect, Option } from "effect"
import smpp from "smpp"
import type * as Submits from "../Submits.js"
import type { InDoubt } from "./inDoubt.js"
import type { Session } from "./session.js"
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
}

const unavailable = (reason: "throttled" | "unavailable" | "timeout", message: string) =>
  new Carrier.CarrierUnavailable({ reason, message })

/** An empty window on `session`, unpaused. */
export const make = (options: Options, session: Session, inDoubt: InDoubt): Effect.Effect<SubmitWindow> =>
  Effect.gen(function*() {
    const { attempts, maxPerSecond, responseTimeout, throttlePause, where } = options
    const window = yield* Effect.makeSemaphore(options.window)
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

    const submit = (reference: string, sm: Submits.SubmitSm, accepted: (messageId: string) => void) =>
      Effect.gen(function*() {
        let last = "the session was closing"
        let throttled = false
        for (let attempt = 1; attempt <= attempts; attempt++) {
          const live = yield* session.bound
          if (Option.isNone(live)) {
            return yield* unavailable("unavailable", `Not bound to ${where} (${yield* session.state}).`)
          }
          yield* slot
          const answer = yield* window.withPermits(1)(session.send(live.value, sm, reference, accepted))
          switch (answer._tag) {
            case "answered": {
              if (answer.status === 0) {
                pauseLogged = false
                return answer.messageId
              }
              const name = Status.name(answer.status)
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

    return { submit }
  })
