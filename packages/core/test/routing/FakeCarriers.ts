/**
 * In-memory carriers for the router's tests: each a `Router.Named` whose status and answers a test
 * sets, counting its submits, with an inbox of delivery reports the test fills.
 */
import { Carrier, type DeliveryReportInbox, type Router, type Routes } from "@sendline/core"
import { Effect } from "effect"

/** How a fake carrier answers a submit. */
export type Answer = (
  message: Carrier.Outbound
) => Effect.Effect<Carrier.CarrierReceipt, Carrier.CarrierRefused | Carrier.CarrierUnavailable>

/** A fake carrier and its controls. */
export interface Fake {
  readonly named: Router.Named
  /** The references submitted to it, in order. */
  readonly submitted: ReadonlyArray<string>
  readonly setState: (state: Carrier.CarrierStatus["state"]) => Effect.Effect<void>
  readonly answerWith: (answer: Answer) => Effect.Effect<void>
  /** Accepts again, with the id `<name>-<reference>`. */
  readonly accepting: Effect.Effect<void>
  readonly report: (report: DeliveryReportInbox.DeliveryReport) => Effect.Effect<void>
}

/** A carrier named `name`, bound and accepting every message under the id `<name>-<reference>`. */
export const fake = (name: string): Fake => {
  let state: Carrier.CarrierStatus["state"] = "bound"
  const accept: Answer = (m) =>
    Effect.succeed({ carrierMessageId: `${name}-${m.reference}`, acceptedAt: 0, duplicate: false })
  let answer = accept
  const submitted: Array<string> = []
  const reports: Array<DeliveryReportInbox.DeliveryReport> = []
  return {
    named: {
      name,
      carrier: Carrier.Carrier.of({
        submit: (m) =>
          Effect.suspend(() => {
            submitted.push(m.reference)
            return answer(m)
          }),
        status: Effect.sync(() => ({ state }))
      }),
      inbox: { take: (max) => Effect.sync(() => reports.splice(0, max)) }
    },
    submitted,
    setState: (next) => Effect.sync(() => void (state = next)),
    answerWith: (next) => Effect.sync(() => void (answer = next)),
    accepting: Effect.sync(() => void (answer = accept)),
    report: (report) => Effect.sync(() => void reports.push(report))
  }
}

/** Accepts every message under the one carrier id `carrierMessageId`. */
export const acceptAs = (carrierMessageId: string): Answer => () =>
  Effect.succeed({ carrierMessageId, acceptedAt: 0, duplicate: false })

/** Refuses every message with `code`, about the route when `failover`. */
export const refuse = (code: string, failover: boolean, carrierCode?: string): Answer => () =>
  new Carrier.CarrierRefused({
    code,
    message: `Refused: ${code}.`,
    failover,
    ...(carrierCode === undefined ? {} : { carrierCode })
  })

/** Cannot take any message now, for `reason`. */
export const unavailable = (reason: Carrier.CarrierUnavailable["reason"]): Answer => () =>
  new Carrier.CarrierUnavailable({ reason, message: `The carrier is ${reason}.` })

/** A route's carriers by name alone. */
export const names = (first: string, ...rest: ReadonlyArray<string>): Routes.Route["carriers"] => [
  { carrier: first },
  ...rest.map((carrier) => ({ carrier }))
]
