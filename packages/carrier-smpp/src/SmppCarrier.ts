/**
 * Core's `Carrier` and `DeliveryReportInbox` ports over an SMPP 3.4 account, on the `smpp`
 * package: one `bind_transceiver` session, kept alive with `enquire_link` and bound again with
 * backoff when it is lost; `submit_sm` per part of a message (see `Submits`), at most `window` of
 * them awaiting their answer and at most `rate` a second; delivery receipts from `deliver_sm` (see
 * `Receipts`) into a bounded queue, each acknowledged to the SMSC once it is queued.
 *
 * Answers: `ESME_RTHROTTLED` and the other transient statuses pause every submit (`throttlePause`)
 * and are retried, `attempts` in all, then the message is left to the Dispatcher's lease
 * (`CarrierUnavailable`); any other status refuses it for good (`CarrierRefused`, the status's
 * name as the `error.code`). A submit in doubt (the connection lost, or no answer within
 * `responseTimeout`) is `CarrierUnavailable` too: the message stays queued and is submitted again
 * after its lease, at least once (docs/decisions.md), and every one is counted in the logs.
 *
 * Time (backoff, pauses, the rate cap, keep-alive, timeouts) is Effect's `Clock`. No log line and
 * no error holds the password.
 *
 * @since 0.1.0
 */
import { Carrier, DeliveryReportInbox, Segments } from "@sendline/core"
import type { ConfigError, Scope } from "effect"
import {
  Clock,
  Config,
  Context,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  FiberId,
  Layer,
  Option,
  Queue,
  Redacted,
  Runtime,
  Schema
} from "effect"
import { isIP } from "node:net"
import type { ConnectionOptions } from "node:tls"
import smpp from "smpp"
import * as Receipts from "./Receipts.js"
import * as SmppUrl from "./SmppUrl.js"
import * as Submits from "./Submits.js"

/** The carrier's settings: the account's URL, and timings that rarely need changing. @since 0.1.0 @category models */
export interface Options {
  /** `smpp[s]://system_id:password@host[:port][?system_type=…&window=…&rate=…&enquire_link=…]` (see `SmppUrl`). */
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

/** Where the session stands. @since 0.1.0 @category models */
export type State = "connecting" | "bound" | "unreachable" | "refused" | "lost"

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
  readonly state: Effect.Effect<State>
  /** Submits in doubt since start: the connection was lost, or the SMSC did not answer in time. */
  readonly inDoubt: Effect.Effect<number>
  /** `submit_sm`s awaiting their answer now. */
  readonly outstanding: Effect.Effect<number>
}>() {}

/** The status names of SMPP 3.4 (and the package's extensions) by code. */
const statusNames: ReadonlyMap<number, string> = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]))

/** `ESME_RTHROTTLED (0x00000058)`, or the bare code when it has no name. @since 0.1.0 @category formatting */
export const statusName = (status: number): string => statusNames.get(status) ?? `0x${status.toString(16).padStart(8, "0")}`

/** Statuses that say "not now": the submit is tried again after a pause. @since 0.1.0 @category constants */
export const transientStatuses: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RTHROTTLED!,
  smpp.errors.ESME_RMSGQFUL!,
  smpp.errors.ESME_RSYSERR!,
  smpp.errors.ESME_RX_T_APPN!,
  smpp.errors.ESME_RINVBNDSTS!
])

/** Bind statuses that mean wrong credentials or account, not a passing failure. */
const credentialStatuses: ReadonlySet<number> = new Set([
  smpp.errors.ESME_RINVPASWD!,
  smpp.errors.ESME_RINVSYSID!,
  smpp.errors.ESME_RBINDFAIL!,
  smpp.errors.ESME_RINVSYSTYP!
])

/** A bound session: its socket, and its `submit_sm`s awaiting an answer, by sequence number. */
interface Live {
  readonly session: smpp.Session
  readonly outstanding: Map<number, { readonly reference: string; readonly settle: (answer: Answer) => void }>
  readonly closed: Deferred.Deferred<string>
  reason: string | undefined
}

/** What became of one `submit_sm`. */
type Answer =
  | { readonly _tag: "answered"; readonly status: number; readonly messageId: string }
  | { readonly _tag: "unsent" }
  | { readonly _tag: "lost"; readonly reason: string }
  | { readonly _tag: "timeout" }

/** A message whose parts were submitted: the carrier's id of each, and the receipts so far. */
interface Tracking {
  readonly reference: string
  readonly accountId: string
  readonly ids: Array<string | undefined>
  readonly receipts: Map<number, Receipts.Receipt>
  readonly since: number
  done: boolean
}

const describeError = (error: unknown): string =>
  error instanceof Error ? ("code" in error && typeof error.code === "string" ? error.code : error.message) : String(error)

/** The text of a receipt's `deliver_sm`: its `short_message`, else its `message_payload`, as the bytes were sent. */
const receiptText = (pdu: smpp.Pdu): string => {
  const read = (value: unknown): string => {
    const message = typeof value === "object" && value !== null && !Buffer.isBuffer(value) && "message" in value
      ? (value as { readonly message: unknown }).message
      : value
    if (Buffer.isBuffer(message)) return message.toString("latin1")
    if (typeof message !== "string") return ""
    // The package decodes data_coding 0 and 1 as GSM 03.38; receipts are ASCII: its bytes back.
    const coding = Number(pdu["data_coding"] ?? 0) & 0x0f
    const septets = coding <= 1 ? Segments.gsm7Septets(message) : undefined
    return septets === undefined ? message : Buffer.from(septets).toString("latin1")
  }
  const text = read(pdu["short_message"])
  return text !== "" ? text : read(pdu["message_payload"])
}

/** The tracking kept for receipts: at most this many messages, each for at most three days. */
const trackingLimit = 100_000
const trackingMillis = 3 * 86_400_000

/**
 * The carrier's three faces: the `Carrier` and `DeliveryReportInbox` ports and the `SmppCarrier`
 * view. The session lives as long as the scope; building waits for the first bind, and fails
 * `SmppBindRefused` when the SMSC refuses the credentials (an SMSC that cannot be reached is
 * logged and tried again in the background).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<{
  readonly carrier: Context.Tag.Service<Carrier.Carrier>
  readonly inbox: Context.Tag.Service<DeliveryReportInbox.DeliveryReportInbox>
  readonly view: Context.Tag.Service<SmppCarrier>
}, SmppBindRefused | SmppUrlInvalid, Scope.Scope> =>
  Effect.gen(function*() {
    const account = yield* Either.match(SmppUrl.parse(options.url), {
      onLeft: (problem) => Effect.fail(new SmppUrlInvalid({ message: `CARRIER_URL ${problem}` })),
      onRight: Effect.succeed
    })
    const where = SmppUrl.location(account)
    const responseTimeout = Duration.decode(options.responseTimeout ?? defaults.responseTimeout)
    const reconnectMin = Duration.toMillis(options.reconnectMin ?? defaults.reconnectMin)
    const reconnectMax = Duration.toMillis(options.reconnectMax ?? defaults.reconnectMax)
    const throttlePause = Duration.toMillis(options.throttlePause ?? defaults.throttlePause)
    const attempts = Math.max(1, options.attempts ?? defaults.attempts)
    const retain = Duration.toMillis(options.retain ?? defaults.retain)
    const enquireLink = Duration.seconds(account.enquireLinkSeconds)

    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const reports = yield* Effect.acquireRelease(
      Queue.bounded<DeliveryReportInbox.DeliveryReport>(options.receiptCapacity ?? defaults.receiptCapacity),
      Queue.shutdown
    )
    const bound = yield* Effect.makeLatch(false)
    const window = yield* Effect.makeSemaphore(account.window)

    let current: Live | undefined
    let state: State = "connecting"
    let inDoubt = 0
    let pausedUntil = 0
    let nextSlot = 0
    let pauseLogged = false
    let concatenation = 0
    /** Accepted references, oldest first, for `duplicate` answers. */
    const accepted = new Map<string, Carrier.CarrierReceipt>()
    /** Messages awaiting receipts, by the carrier's id of each of their parts; insertion order is age. */
    const tracking = new Map<string, Tracking>()
    const firstAttempt = yield* Deferred.make<void, SmppBindRefused>()

    const forget = (now: number) => {
      for (const [reference, receipt] of accepted) {
        if (receipt.acceptedAt >= now - retain) break
        accepted.delete(reference)
      }
      for (const [id, track] of tracking) {
        if (track.since >= now - trackingMillis && tracking.size <= trackingLimit) break
        tracking.delete(id)
      }
    }

    /** Says the new state once, when it changes. */
    const enter = (next: State, line: Effect.Effect<void>) =>
      Effect.suspend(() => {
        if (next === state) return Effect.void
        state = next
        return line
      })

    // --- The SMSC's requests: keep-alive, unbind, receipts ------------------------------------

    const respond = (live: Live, pdu: smpp.Pdu, options?: Record<string, unknown>) => {
      live.session.send(pdu.response(options))
    }

    /**
     * A receipt's report, once its message's parts have all reported (or one was not delivered);
     * `undefined` while other parts are awaited, or when the message has reported already.
     */
    const reportOf = (
      receipt: Receipts.Receipt,
      outcome: "delivered" | "undelivered"
    ): Omit<DeliveryReportInbox.DeliveryReport, "at"> | undefined => {
      const error = outcome === "undelivered" ? { error: Receipts.error(receipt) } : {}
      const track = tracking.get(receipt.id)
      // submitted by an earlier process (or forgotten): the message is found by the carrier's id
      if (track === undefined) return { carrierMessageId: receipt.id, outcome, ...error }
      if (track.done) return undefined
      track.receipts.set(track.ids.indexOf(receipt.id), receipt)
      if (outcome === "delivered" && track.receipts.size < track.ids.length) return undefined
      track.done = true
      return { reference: track.reference, accountId: track.accountId, carrierMessageId: track.ids[0]!, outcome, ...error }
    }

    const onDeliver = (live: Live, pdu: smpp.Pdu) => {
      if (!Receipts.isReceipt(Number(pdu["esm_class"] ?? 0))) {
        respond(live, pdu)
        runFork(Effect.logDebug(`SMPP: a mobile-originated message from ${String(pdu["source_addr"])} ignored`))
        return
      }
      const receiptedMessageId = pdu["receipted_message_id"]
      const messageState = pdu["message_state"]
      const receipt = Receipts.parse(receiptText(pdu), {
        receiptedMessageId: typeof receiptedMessageId === "string" ? receiptedMessageId : undefined,
        messageState: typeof messageState === "number" ? messageState : undefined
      })
      const outcome = receipt === undefined ? undefined : Receipts.outcome(receipt.stat)
      if (receipt === undefined || outcome === undefined) {
        respond(live, pdu)
        if (receipt === undefined) runFork(Effect.logWarning("SMPP: a delivery receipt without id or stat acknowledged and ignored"))
        return
      }
      // The tracking is read and written now, before the next PDU of the stream is handled; the
      // SMSC has its acknowledgement once the report is queued (it waits while the queue is full).
      const report = reportOf(receipt, outcome)
      runFork(Effect.flatMap(Clock.currentTimeMillis, (at) =>
        (report === undefined ? Effect.void : Queue.offer(reports, { ...report, at })).pipe(
          Effect.zipRight(Effect.sync(() => respond(live, pdu)))
        )))
    }

    const onRequest = (live: Live, pdu: smpp.Pdu) => {
      if (pdu.isResponse()) return
      switch (pdu.command) {
        case "enquire_link":
          return respond(live, pdu)
        case "unbind":
          live.reason = "the SMSC unbound the session"
          respond(live, pdu)
          return live.session.close()
        case "deliver_sm":
          return onDeliver(live, pdu)
        case "unknown":
          return respond(live, pdu)
        default:
          return respond(live, pdu, { command_status: smpp.errors.ESME_RINVCMDID })
      }
    }

    // --- Binding ------------------------------------------------------------------------------

    type BindFailure = { readonly _tag: "unreachable"; readonly reason: string } | {
      readonly _tag: "refused"
      readonly status: number
    }

    const bind = Effect.async<Live, BindFailure>((resume) => {
      let settled = false
      const settle = (result: Effect.Effect<Live, BindFailure>) => {
        if (settled) return
        settled = true
        resume(result)
      }
      const session = smpp.connect({
        // TLS checks the SMSC's certificate against its host name (SNI takes names only)
        ...(account.tls && isIP(account.host) === 0 ? { servername: account.host } : {}),
        ...(account.tls ? options.tls : {}),
        host: account.host,
        port: account.port,
        tls: account.tls
      })
      const live: Live = {
        session,
        outstanding: new Map(),
        closed: Deferred.unsafeMake<string>(FiberId.none),
        reason: undefined
      }
      session.on("error", (error: unknown) => {
        live.reason ??= describeError(error)
      })
      session.on("close", () => {
        const reason = live.reason ?? "the SMSC closed the connection"
        Deferred.unsafeDone(live.closed, Exit.succeed(reason))
        settle(Effect.fail({ _tag: "unreachable", reason }))
      })
      session.on("pdu", (pdu: smpp.Pdu) => onRequest(live, pdu))
      session.on(account.tls ? "secureConnect" : "connect", () => {
        // Each PDU is a small write that waits for its answer: Nagle's algorithm would hold it back
        // for the peer's delayed acknowledgement (tens of milliseconds a round trip).
        session.socket.setNoDelay(true)
        session.bind_transceiver({
          system_id: account.systemId,
          password: Redacted.value(account.password),
          system_type: account.systemType,
          interface_version: 0x34
        }, (pdu) => {
          if (pdu.command_status === 0) return settle(Effect.succeed(live))
          settle(Effect.fail({ _tag: "refused", status: pdu.command_status }))
          session.destroy()
        })
      })
      return Effect.sync(() => session.destroy())
    }).pipe(
      Effect.timeoutFail({
        duration: responseTimeout,
        onTimeout: (): BindFailure => ({ _tag: "unreachable", reason: `no bind within ${Duration.format(responseTimeout)}` })
      })
    )

    /** Sends `enquire_link` after each quiet `enquireLink`; a session that does not answer in time is dropped. */
    const keepAlive = (live: Live) =>
      Effect.forever(Effect.gen(function*() {
        yield* Effect.sleep(enquireLink)
        const answered = yield* Effect.async<boolean>((resume) => {
          if (!live.session.enquire_link({}, () => resume(Effect.succeed(true)))) resume(Effect.succeed(true))
        }).pipe(Effect.timeoutTo({ duration: responseTimeout, onSuccess: () => true, onTimeout: () => false }))
        if (!answered) {
          live.reason = `no answer to enquire_link within ${Duration.format(responseTimeout)}`
          live.session.destroy()
        }
      }))

    /** The in-doubt submits of a lost session, settled and counted. */
    const lose = (live: Live, reason: string) =>
      Effect.suspend(() => {
        const lost = [...live.outstanding.values()]
        live.outstanding.clear()
        for (const pending of lost) pending.settle({ _tag: "lost", reason })
        inDoubt += lost.length
        const doubt = lost.length === 0
          ? "no submit awaited its answer"
          : `${lost.length} submits in doubt (${[...new Set(lost.map((p) => p.reference))].join(", ")}): each message ` +
            `stays queued and is submitted again after its lease, at least once; ${inDoubt} in doubt since start`
        return enter("lost", Effect.logWarning(`SMPP: the session with ${where} was lost (${reason}); ${doubt}; binding again`))
      })

    const describeRefusal = (status: number) =>
      `The SMSC at ${where} refused to bind: ${statusName(status)}` +
      (credentialStatuses.has(status) ? " (check the system_id, password and system_type of CARRIER_URL)" : "")

    /** Binds, serves the session until it is lost, and binds again, backing off while it fails; for ever. */
    const connection = Effect.gen(function*() {
      let failures = 0
      for (;;) {
        const attempt = yield* Effect.either(bind)
        if (Either.isRight(attempt)) {
          const live = attempt.right
          failures = 0
          current = live
          yield* bound.open
          yield* enter("bound", Effect.logInfo(`SMPP: bound to ${where} as a transceiver (window ${account.window}${account.maxPerSecond === undefined ? "" : `, ${account.maxPerSecond} submits a second`})`))
          yield* Deferred.succeed(firstAttempt, undefined)
          const alive = yield* Effect.fork(keepAlive(live))
          const reason = yield* Deferred.await(live.closed)
          yield* Fiber.interrupt(alive)
          yield* bound.close
          current = undefined
          yield* lose(live, reason)
        } else {
          failures++
          const failure = attempt.left
          if (failure._tag === "refused") {
            const line = describeRefusal(failure.status)
            if (!(yield* Deferred.isDone(firstAttempt))) {
              yield* Deferred.fail(firstAttempt, new SmppBindRefused({ status: statusName(failure.status), message: line }))
              return
            }
            yield* enter("refused", Effect.logError(`SMPP: ${line}; trying again, less often while it refuses`))
          } else {
            yield* enter("unreachable", Effect.logWarning(`SMPP: cannot reach ${where} (${failure.reason}); trying again, less often while it fails`))
            yield* Deferred.succeed(firstAttempt, undefined)
          }
        }
        yield* Effect.sleep(Duration.millis(Math.min(reconnectMax, reconnectMin * 2 ** Math.max(0, failures - 1))))
      }
    })

    // Unbinds (when bound) as the scope closes, after the connection fiber is stopped.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const live = current
        current = undefined
        if (live === undefined) return Effect.void
        const answered = Effect.async<void>((resume) => {
          if (!live.session.unbind({}, () => resume(Effect.void))) resume(Effect.void)
        })
        // Interruptible: a finalizer runs uninterruptibly, and the race's loser must be stopped.
        return Effect.interruptible(Effect.raceFirst(answered, Deferred.await(live.closed))).pipe(
          Effect.timeout(Duration.seconds(2)),
          Effect.interruptible,
          Effect.ignore,
          Effect.zipRight(Effect.sync(() => live.session.destroy()))
        )
      })
    )
    yield* Effect.forkScoped(connection)
    yield* Deferred.await(firstAttempt)

    // --- Submitting ---------------------------------------------------------------------------

    /** Waits for a bound session, at most `responseTimeout`. */
    const session = Effect.suspend(() =>
      current !== undefined ? Effect.succeed(Option.some(current)) : bound.await.pipe(
        Effect.map(() => Option.fromNullable(current)),
        Effect.timeoutTo({ duration: responseTimeout, onSuccess: (live) => live, onTimeout: () => Option.none<Live>() })
      )
    )

    /** Waits out a pause after a transient answer, then for this submit's slot under the rate cap. */
    const slot = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      let at = Math.max(now, pausedUntil)
      if (account.maxPerSecond !== undefined) {
        at = Math.max(at, nextSlot)
        nextSlot = at + 1000 / account.maxPerSecond
      }
      return at > now ? Effect.sleep(Duration.millis(at - now)) : Effect.void
    })

    /** Sends one `submit_sm` on `live`, holding a place in the window until its answer. */
    const send = (live: Live, sm: Submits.SubmitSm, track: Tracking, part: number) =>
      window.withPermits(1)(Effect.async<Answer>((resume) => {
        let settled = false
        const settle = (answer: Answer) => {
          if (settled) return
          settled = true
          resume(Effect.succeed(answer))
        }
        if (current !== live) return settle({ _tag: "unsent" })
        const pdu = new smpp.PDU("submit_sm", { ...sm, short_message: Buffer.from(sm.short_message) })
        const written = live.session.send(pdu, (response) => {
          live.outstanding.delete(pdu.sequence_number)
          const messageId = typeof response["message_id"] === "string" ? response["message_id"] : ""
          // Recorded at once, before the next PDU (its receipt, maybe) is read; and even when the
          // submit gave up waiting, so that a resubmission finds it accepted.
          if (response.command_status === 0) {
            track.ids[part] = messageId
            tracking.set(messageId, track)
            if (track.ids.every((id) => id !== undefined)) {
              accepted.set(track.reference, { carrierMessageId: track.ids[0]!, acceptedAt: track.since, duplicate: false })
            }
          }
          settle({ _tag: "answered", status: response.command_status, messageId })
        })
        if (!written) return settle({ _tag: "unsent" })
        live.outstanding.set(pdu.sequence_number, { reference: track.reference, settle })
        return Effect.sync(() => void live.outstanding.delete(pdu.sequence_number))
      }).pipe(Effect.timeoutTo({ duration: responseTimeout, onSuccess: (answer) => answer, onTimeout: (): Answer => ({ _tag: "timeout" }) })))

    const unavailable = (reason: "throttled" | "unavailable" | "timeout", message: string) =>
      new Carrier.CarrierUnavailable({ reason, message })

    /** Submits one part, retrying transient answers; its carrier id, or why the message stops here. */
    const submitPart = (message: Carrier.Outbound, sm: Submits.SubmitSm, track: Tracking, part: number) =>
      Effect.gen(function*() {
        let last = "the session was closing"
        let throttled = false
        for (let attempt = 1; attempt <= attempts; attempt++) {
          const live = yield* session
          if (Option.isNone(live)) {
            return yield* unavailable("unavailable", `Not bound to ${where} (${state}).`)
          }
          yield* slot
          const answer = yield* send(live.value, sm, track, part)
          switch (answer._tag) {
            case "answered": {
              if (answer.status === 0) {
                pauseLogged = false
                return answer.messageId
              }
              const name = statusName(answer.status)
              if (!transientStatuses.has(answer.status)) {
                return yield* new Carrier.CarrierRefused({
                  code: name.toLowerCase(),
                  message: `The SMSC refused the message: ${name}.`
                })
              }
              throttled = answer.status === smpp.errors.ESME_RTHROTTLED
              last = name
              const now = yield* Clock.currentTimeMillis
              pausedUntil = Math.max(pausedUntil, now + throttlePause)
              if (!pauseLogged) {
                pauseLogged = true
                yield* Effect.logWarning(`SMPP: ${where} answered ${name}; submits pause ${throttlePause} ms and are tried again`)
              }
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
              inDoubt++
              yield* Effect.logWarning(
                `SMPP: no answer from ${where} to ${message.reference}'s submit within ${Duration.format(responseTimeout)}: in doubt, ` +
                  `submitted again after its lease; ${inDoubt} in doubt since start`
              )
              return yield* unavailable("timeout", `In doubt: no answer from ${where} within ${Duration.format(responseTimeout)}.`)
          }
        }
        return yield* unavailable(throttled ? "throttled" : "unavailable", `Not taken by ${where} in ${attempts} tries (the last: ${last}).`)
      })

    const submit = (message: Carrier.Outbound) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        forget(now)
        const first = accepted.get(message.reference)
        if (first !== undefined) return { ...first, duplicate: true }
        const sms = Submits.of(message, concatenation++ & 0xff)
        const track: Tracking = {
          reference: message.reference,
          accountId: message.accountId,
          ids: sms.map(() => undefined),
          receipts: new Map(),
          since: now,
          done: false
        }
        for (const [part, sm] of sms.entries()) {
          yield* submitPart(message, sm, track, part).pipe(
            Effect.tapError(() =>
              Effect.sync(() => {
                // the parts already accepted report nothing worth waiting for
                track.done = true
              })
            )
          )
        }
        const receipt: Carrier.CarrierReceipt = { carrierMessageId: track.ids[0]!, acceptedAt: now, duplicate: false }
        accepted.set(message.reference, receipt)
        return receipt
      }).pipe(Effect.withSpan("SmppCarrier.submit"))

    const take = (max: number) =>
      Effect.map(Queue.takeUpTo(reports, Math.max(0, max)), (chunk): ReadonlyArray<DeliveryReportInbox.DeliveryReport> => Array.from(chunk))

    return {
      carrier: Carrier.Carrier.of({ submit }),
      inbox: DeliveryReportInbox.DeliveryReportInbox.of({ take }),
      view: SmppCarrier.of({
        location: where,
        state: Effect.sync(() => state),
        inDoubt: Effect.sync(() => inDoubt),
        outstanding: Effect.sync(() => current?.outstanding.size ?? 0)
      })
    }
  })

/** The ports the carrier provides, with its view. @since 0.1.0 @category models */
export type Provides = Carrier.Carrier | DeliveryReportInbox.DeliveryReportInbox | SmppCarrier

/** The SMPP carrier as the `Carrier` and its `DeliveryReportInbox`, with its `SmppCarrier` view. @since 0.1.0 @category layers */
export const layer = (options: Options): Layer.Layer<Provides, SmppBindRefused | SmppUrlInvalid> =>
  Layer.scopedContext(Effect.map(make(options), ({ carrier, inbox, view }) =>
    Context.make(Carrier.Carrier, carrier).pipe(
      Context.add(DeliveryReportInbox.DeliveryReportInbox, inbox),
      Context.add(SmppCarrier, view)
    )))

/** `layer` with the options read from `config`. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Provides, SmppBindRefused | SmppUrlInvalid | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
