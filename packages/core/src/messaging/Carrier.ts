/**
 * The carrier port: hands one message to a mobile network. The delivery reports the network sends
 * later arrive through their own port, `DeliveryReportInbox`. Implemented outside core
 * (`@sendline/carrier-mock`, a real SMPP or HTTP adapter).
 *
 * The message id travels as the submission's `reference` (a carrier's client reference). A carrier
 * must treat a second submission with a reference it already accepted as the same message: answer
 * with the first receipt, send nothing, charge nothing. That is what makes a resubmission after a
 * crash safe (docs/message-lifecycle.md).
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Context, Effect, Layer, Schema } from "effect"
import { DeliveryReportInbox } from "./DeliveryReportInbox.js"
import { Encoding } from "./Message.js"

/** One message as the carrier sees it; `reference` is the message id. @since 0.1.0 @category models */
export const Outbound = Schema.Struct({
  /** The message id `msg_…`: the carrier dedupes on it. */
  reference: Schema.String,
  /** The sending account, echoed in the delivery report so the message can be found again. */
  accountId: Schema.String,
  to: Schema.String,
  senderId: Schema.String,
  body: Schema.String,
  encoding: Encoding,
  segments: Schema.Number,
  market: Schema.String
})
/** A message as submitted to the carrier. @since 0.1.0 @category models */
export type Outbound = typeof Outbound.Type

/** The carrier's answer to an accepted submission. @since 0.1.0 @category models */
export const CarrierReceipt = Schema.Struct({
  /** The carrier's own id for the message. */
  carrierMessageId: Schema.String,
  /** When the carrier accepted it (epoch milliseconds, the carrier's clock). */
  acceptedAt: Schema.Number,
  /** True when the reference had already been accepted: nothing was sent or charged again. */
  duplicate: Schema.Boolean,
  /** The name of the carrier that accepted it, when several stand behind this one (a router's). */
  carrier: Schema.optional(Schema.String)
})
/** The carrier's answer to an accepted submission. @since 0.1.0 @category models */
export type CarrierReceipt = typeof CarrierReceipt.Type

/**
 * The carrier refused the message: `code` (normalised, CONTRACT §11) becomes the message's
 * `error.code` and `carrierCode` its `error.carrier_code`. `failover` says the refusal is about the
 * route (the sender, the account, a routing or system error), so another carrier may take the
 * message; without it the refusal is about the recipient or the content and the message fails.
 *
 * @since 0.1.0
 * @category errors
 */
export class CarrierRefused extends Schema.TaggedError<CarrierRefused>("@sendline/core/CarrierRefused")(
  "CarrierRefused",
  {
    code: Schema.String,
    message: Schema.String,
    carrierCode: Schema.optional(Schema.String),
    failover: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }
) {}

/**
 * The carrier could not take the message now (throttled, down, timed out): a transient failure,
 * the message is tried again later.
 *
 * @since 0.1.0
 * @category errors
 */
export class CarrierUnavailable extends Schema.TaggedError<CarrierUnavailable>("@sendline/core/CarrierUnavailable")(
  "CarrierUnavailable",
  {
    reason: Schema.Literal("throttled", "unavailable", "timeout"),
    message: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {}

/**
 * Whether a carrier can take messages now: `bound` (it can), `connecting` (no session bound) or
 * `throttled` (it asked to slow down); with its sessions and its window of submits when it has them.
 *
 * @since 0.2.0
 * @category models
 */
export interface CarrierStatus {
  readonly state: "bound" | "connecting" | "throttled"
  /** Sessions bound of those configured. */
  readonly sessions?: { readonly bound: number; readonly configured: number } | undefined
  /** Submits awaiting their answer of the window's size. */
  readonly window?: { readonly inUse: number; readonly size: number } | undefined
}

/** Submits messages to a mobile network. @since 0.1.0 @category ports */
export class Carrier extends Context.Tag("@sendline/core/Carrier")<Carrier, {
  /**
   * Submits one message. A reference that was accepted before answers with the first receipt
   * (`duplicate: true`) and is neither sent nor charged again.
   */
  readonly submit: (message: Outbound) => Effect.Effect<CarrierReceipt, CarrierRefused | CarrierUnavailable>
  /** Where the carrier stands now, without waiting; a carrier without it is taken as always `bound`. */
  readonly status?: Effect.Effect<CarrierStatus> | undefined
}>() {}

/** The submission for a message: its id is the reference. @since 0.1.0 @category constructors */
export const outbound = (message: {
  readonly id: string
  readonly accountId: string
  readonly to: string
  readonly senderId: string
  readonly body: string
  readonly encoding: Outbound["encoding"]
  readonly segments: number
  readonly market: string
}): Outbound => ({
  reference: message.id,
  accountId: message.accountId,
  to: message.to,
  senderId: message.senderId,
  body: message.body,
  encoding: message.encoding,
  segments: message.segments,
  market: message.market
})

/** What a carrier package makes: its `Carrier`, its `DeliveryReportInbox` and its own `view` (a test or status view). @since 0.1.0 @category models */
export interface Made<S> {
  readonly carrier: Context.Tag.Service<Carrier>
  readonly inbox: Context.Tag.Service<DeliveryReportInbox>
  readonly view: S
}

/**
 * A carrier package's layer: the `Carrier` and `DeliveryReportInbox` that `make` builds, with its
 * `view` under `tag`, made in the layer's scope (a session `make` opens closes with it).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOf = <I, S, E, R>(
  tag: Context.Tag<I, S>,
  make: Effect.Effect<Made<S>, E, R>
): Layer.Layer<Carrier | DeliveryReportInbox | I, E, Exclude<R, Scope.Scope>> =>
  Layer.scopedContext(
    Effect.map(make, ({ carrier, inbox, view }) =>
      Context.make(Carrier, carrier).pipe(Context.add(DeliveryReportInbox, inbox), Context.add(tag, view)))
  )
