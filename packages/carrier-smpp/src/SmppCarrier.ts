/**
 * Core's `Carrier` and `DeliveryReportInbox` ports over an SMPP 3.4 account, on the `smpp`
 * package: `sessions` `bind_transceiver` sessions (default 1), each kept alive with `enquire_link`
 * and bound again with its own backoff when it is lost, the others going on meanwhile; `submit_sm`
 * per part of a message (see `Submits`) on the bound session with the fewest awaiting their answer,
 * at most `window` of them awaiting their answer and at most `rate` a second for the carrier as a
 * whole; delivery receipts from `deliver_sm` on every session (see `Receipts`) into one bounded
 * queue, each acknowledged to the SMSC once it is queued.
 *
 * Answers: `ESME_RTHROTTLED`, `ESME_RMSGQFUL`, `ESME_RSYSERR` and `ESME_RX_T_APPN` pause every
 * submit (`throttlePause`; the carrier's `status` says `throttled` meanwhile) and are retried,
 * `attempts` in all, then the message is left to the Dispatcher's lease (`CarrierUnavailable`);
 * `ESME_RINVBNDSTS` drops the session that answered it and the part goes to another; any other
 * status refuses it for good (`CarrierRefused`, normalised: see the README's table), its
 * `carrierCode` `smpp:0x0000000B`. No session bound: `CarrierUnavailable` at once. A submit in
 * doubt (its session lost, or no answer within `responseTimeout`) is `CarrierUnavailable` too: the
 * message stays queued and is submitted again after its lease, at least once (docs/decisions.md),
 * and every one is counted in the logs.
 *
 * Time (backoff, pauses, the rate cap, keep-alive, timeouts) is Effect's `Clock`. No log line and
 * no error holds the password.
 *
 * @since 0.1.0
 */
import { Carrier, DeliveryReportInbox } from "@sendline/core"
import type { ConfigError, Redacted, Scope } from "effect"
import { Clock, Config, Context, Duration, Effect, Either, Layer, Schema } from "effect"
import type { ConnectionOptions } from "node:tls"
import * as InDoubt from "./internal/inDoubt.js"
import * as ReceiptInbox from "./internal/receiptInbox.js"
import * as Sessions from "./internal/sessions.js"
import type * as SessionState from "./internal/state.js"
import * as Status from "./internal/status.js"
import * as Submitted from "./internal/submitted.js"
import * as SubmitWindow from "./internal/submitWindow.js"
import type * as Receipts from "./Receipts.js"
import * as SmppUrl from "./SmppUrl.js"
import * as Submits from "./Submits.js"

/** The carrier's settings: the account's URL, and timings that rarely need changing. @since 0.1.0 @category models */
export interface Options {
  /** `smpp[s]://system_id:password@host[:port][?system_type=…&window=…&rate=…&enquire_link=…&sessions=…&validity=…]` (see `SmppUrl`). */
  readonly url: Redacted.Redacted<string>
  /** How long the SMSC may take to answer a bind, a submit or an `enquire_link` (default 10 seconds). */
  readonly responseTimeout?: Duration.DurationInput | undefined
  /** The first wait before binding again after a failure, doubled up to `reconnectMax` (default 1 second). */
  readonly reconnectMin?: Duration.DurationInput | undefined
  /** The longest wait between attempts to bind (default 30 seconds). */
  readonly reconnectMax?: Duration.DurationInput | undefined
  /** How long every submit waits after a transient answer (`ESME_RTHROTTLED`…) (default 1 second). */
  readonly throttlePause?: Duration.DurationInput | undefined
  /** Tries of one part on transient answers before the message is left to the lease (default 3). */
  readonly attempts?: number | undefined
  /** Receipts queued for the DeliveryReports worker before the SMSC's wait for their acknowledgement (default 1000). */
  readonly receiptCapacity?: number | undefined
  /** How long an accepted reference is remembered, so that a resubmission is answered `duplicate` (default 10 minutes). */
  readonly retain?: Duration.DurationInput | undefined
  /** For `smpps://`: Node's TLS options over the defaults (a private CA's `ca`, a client certificate…). */
  readonly tls?: ConnectionOptions | undefined
  /** The carrier's receipts' `err` codes to normalised ones (the routes file's `errors`); an `err` not in it goes by the receipt's `stat`. */
  readonly errors?: Receipts.Errors | undefined
}

/** The defaults of the timings. @since 0.1.0 @category constants */
export const defaults = {
  responseTimeout: Duration.seconds(10),
  reconnectMin: Duration.seconds(1),
  reconnectMax: Duration.seconds(30),
  throttlePause: Duration.seconds(1),
  attempts: 3,
  receiptCapacity: 1000,
  retain: Duration.minutes(10)
} as const

/** Where a session stands; the carrier's `state` is `bound` when any session is. @since 0.1.0 @category models */
export type State = SessionState.State

/** The SMSC refused the bind at start (wrong system_id or password…): the carrier does not start. @since 0.1.0 @category errors */
export class SmppBindRefused extends Schema.TaggedError<SmppBindRefused>("@sendline/carrier-smpp/SmppBindRefused")(
  "SmppBindRefused",
  { status: Schema.String, message: Schema.String }
) {}

/** `CARRIER_URL` cannot be used (its message names the problem, never the URL). @since 0.1.0 @category errors */
export class SmppUrlInvalid extends Schema.TaggedError<SmppUrlInvalid>("@sendline/carrier-smpp/SmppUrlInvalid")(
  "SmppUrlInvalid",
  { message: Schema.String }
) {}

/** The carrier's own view, for tests and operators. @since 0.1.0 @category services */
export class SmppCarrier extends Context.Tag("@sendline/carrier-smpp/SmppCarrier")<SmppCarrier, {
  /** Where the account binds, without the password. */
  readonly location: string
  /** `bound` when any session is bound, else the most hopeful of the sessions' states (`lost`, `connecting`, `refused`, `unreachable`). */
  readonly state: Effect.Effect<State>
  /** Each session's state, in order (`sessions` of the URL). */
  readonly sessions: Effect.Effect<ReadonlyArray<State>>
  /** Submits in doubt since start: the connection was lost, or the SMSC did not answer in time. */
  readonly inDoubt: Effect.Effect<number>
  /** `submit_sm`s awaiting their answer now, on every session. */
  readonly outstanding: Effect.Effect<number>
}>() {}

/** `ESME_RTHROTTLED`, or the bare code (`0x00000400`) when it has no name. @since 0.1.0 @category formatting */
export const statusName: (status: number) => string = Status.name

/** Statuses that say "not now": the submit is tried again after a pause. @since 0.1.0 @category constants */
export const transientStatuses: ReadonlySet<number> = Status.transient

/**
 * The carrier's three faces: the `Carrier` and `DeliveryReportInbox` ports and the `SmppCarrier`
 * view, over its sessions (`internal/sessions`), submit window (`internal/submitWindow`), memory of
 * what was submitted (`internal/submitted`), receipts (`internal/receiptInbox`) and in-doubt count
 * (`internal/inDoubt`). The sessions live as long as the scope; building waits for each one's first
 * bind, and fails `SmppBindRefused` when the SMSC refuses one (wrong credentials…; an SMSC that
 * cannot be reached is logged and tried again in the background).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<
  Carrier.Made<Context.Tag.Service<SmppCarrier>>,
  SmppBindRefused | SmppUrlInvalid,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const account = yield* Either.match(SmppUrl.parse(options.url), {
      onLeft: (problem) => Effect.fail(new SmppUrlInvalid({ message: `CARRIER_URL ${problem}` })),
      onRight: Effect.succeed
    })
    const where = SmppUrl.location(account)
    const responseTimeout = Duration.decode(options.responseTimeout ?? defaults.responseTimeout)
    const inDoubt = InDoubt.make(where, responseTimeout)
    const submitted = Submitted.make(Duration.toMillis(options.retain ?? defaults.retain), options.errors ?? {})
    const receipts = yield* ReceiptInbox.make(options.receiptCapacity ?? defaults.receiptCapacity, submitted)
    const sessions = yield* Sessions.make(
      {
        account,
        where,
        tls: options.tls,
        responseTimeout,
        reconnectMin: Duration.toMillis(options.reconnectMin ?? defaults.reconnectMin),
        reconnectMax: Duration.toMillis(options.reconnectMax ?? defaults.reconnectMax)
      },
      inDoubt,
      receipts.receive
    ).pipe(Effect.mapError((refusal) => new SmppBindRefused(refusal)))
    const window = yield* SubmitWindow.make(
      {
        where,
        window: account.window,
        maxPerSecond: account.maxPerSecond,
        throttlePause: Duration.toMillis(options.throttlePause ?? defaults.throttlePause),
        attempts: Math.max(1, options.attempts ?? defaults.attempts),
        responseTimeout
      },
      sessions,
      inDoubt
    )
    let concatenation = 0

    const status = Effect.gen(function*(): Effect.fn.Return<Carrier.CarrierStatus> {
      const bound = yield* sessions.bound
      return {
        state: bound === 0 ? "connecting" : (yield* window.paused) ? "throttled" : "bound",
        sessions: { bound, configured: account.sessions },
        window: { inUse: yield* window.inUse, size: account.window }
      }
    })

    const submit = (message: Carrier.Outbound) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const duplicate = submitted.duplicateOf(message.reference, now)
        if (duplicate !== undefined) return duplicate
        const sms = Submits.of(message, concatenation++ & 0xff, account.validityMinutes)
        const track = submitted.track(message, sms.length, now)
        for (const [part, sm] of sms.entries()) {
          yield* window.submit(message.reference, sm, (messageId) => submitted.accept(track, part, messageId)).pipe(
            // the parts already accepted report nothing worth waiting for
            Effect.tapError(() => Effect.sync(() => submitted.abandon(track)))
          )
        }
        return submitted.complete(track)
      }).pipe(Effect.withSpan("SmppCarrier.submit"))

    return {
      carrier: Carrier.Carrier.of({ submit, status }),
      inbox: DeliveryReportInbox.DeliveryReportInbox.of({ take: receipts.take }),
      view: SmppCarrier.of({
        location: where,
        state: sessions.state,
        sessions: sessions.states,
        inDoubt: inDoubt.total,
        outstanding: sessions.outstanding
      })
    }
  })

/** The ports the carrier provides, with its view. @since 0.1.0 @category models */
export type Provides = Carrier.Carrier | DeliveryReportInbox.DeliveryReportInbox | SmppCarrier

/** The SMPP carrier as the `Carrier` and its `DeliveryReportInbox`, with its `SmppCarrier` view. @since 0.1.0 @category layers */
export const layer = (options: Options): Layer.Layer<Provides, SmppBindRefused | SmppUrlInvalid> =>
  Carrier.layerOf(SmppCarrier, make(options))

/** `layer` with the options read from `config`. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Provides, SmppBindRefused | SmppUrlInvalid | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
