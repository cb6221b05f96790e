/**
 * One SMPP session: one `bind_transceiver`, kept alive with `enquire_link`, bound again with its own
 * backoff when it is lost, unbound as its scope closes; the `submit_sm`s awaiting their answer on
 * it, settled in doubt when it is lost (the carrier's other sessions go on); and the SMSC's requests
 * answered. Each state is logged once, when it is entered. No log line and no failure holds the
 * password. `sessions` holds the carrier's several.
 */
import type { Scope } from "effect"
import { Deferred, Duration, Effect, Either, Exit, Fiber, FiberId, Redacted } from "effect"
import { isIP } from "node:net"
import type { ConnectionOptions } from "node:tls"
import smpp from "smpp"
import type * as SmppUrl from "../SmppUrl.js"
import type * as Submits from "../Submits.js"
import type { InDoubt } from "./inDoubt.js"
import type { State } from "./state.js"
import * as Status from "./status.js"

/** A bound session: its socket, and its `submit_sm`s awaiting an answer, by sequence number. */
export interface Live {
  readonly session: smpp.Session
  readonly outstanding: Map<number, { readonly reference: string; readonly settle: (answer: Answer) => void }>
  readonly closed: Deferred.Deferred<string>
  reason: string | undefined
}

/** What became of one `submit_sm`. */
export type Answer =
  | { readonly _tag: "answered"; readonly status: number; readonly messageId: string }
  | { readonly _tag: "unsent" }
  | { readonly _tag: "lost"; readonly reason: string }
  | { readonly _tag: "timeout" }

/** The account, where it is for logs, and the session's timings. */
export interface Options {
  readonly account: SmppUrl.Account
  /** The account's location, without the password. */
  readonly where: string
  /** Which of the carrier's sessions this is, for its log lines (`session 2 of 4`); none when it is the only one. */
  readonly label: string | undefined
  readonly tls: ConnectionOptions | undefined
  readonly responseTimeout: Duration.Duration
  readonly reconnectMin: number
  readonly reconnectMax: number
}

/** Takes a `deliver_sm` as it is read; `acknowledge` answers it. */
export type Receive = (pdu: smpp.Pdu, acknowledge: () => void) => void

/** The first bind refused: `SmppBindRefused`'s fields. */
export interface Refusal {
  readonly status: string
  readonly message: string
}

/** The session, as long as its scope. */
export interface Session {
  readonly state: Effect.Effect<State>
  /** The bound session now, without waiting; none while it is not bound, or closing (a reason given). */
  readonly live: () => Live | undefined
  /** Drops `live` (when it is still the session's) for `reason`: it is lost, and bound again after the backoff. */
  readonly drop: (live: Live, reason: string) => Effect.Effect<void>
  /**
   * Writes one `submit_sm` on `live` and waits at most the response timeout for its answer;
   * `accepted` records an accepted one's id as it comes, before the next PDU is read.
   */
  readonly send: (
    live: Live,
    sm: Submits.SubmitSm,
    reference: string,
    accepted: (messageId: string) => void
  ) => Effect.Effect<Answer>
}

type BindFailure = { readonly _tag: "unreachable"; readonly reason: string } | {
  readonly _tag: "refused"
  readonly status: number
}

const describeError = (error: unknown): string =>
  error instanceof Error
    ? ("code" in error && typeof error.code === "string" ? error.code : error.message)
    : String(error)

const respond = (live: Live, pdu: smpp.Pdu, options?: Record<string, unknown>) => {
  live.session.send(pdu.response(options))
}

/** Answers the SMSC's requests: keep-alive, unbind, receipts (through `receive`). */
const onRequest = (live: Live, pdu: smpp.Pdu, receive: Receive) => {
  if (pdu.isResponse()) return
  switch (pdu.command) {
    case "enquire_link":
      return respond(live, pdu)
    case "unbind":
      live.reason = "the SMSC unbound the session"
      respond(live, pdu)
      return live.session.close()
    case "deliver_sm":
      return receive(pdu, () => respond(live, pdu))
    case "unknown":
      return respond(live, pdu)
    default:
      return respond(live, pdu, { command_status: smpp.errors.ESME_RINVCMDID })
  }
}

/** Connects and binds as a transceiver, within the response timeout. */
const bind = ({ account, responseTimeout, tls }: Options, receive: Receive) =>
  Effect.async<Live, BindFailure>((resume) => {
    let settled = false
    const settle = (result: Effect.Effect<Live, BindFailure>) => {
      if (settled) return
      settled = true
      resume(result)
    }
    const session = smpp.connect({
      // TLS checks the SMSC's certificate against its host name (SNI takes names only)
      ...(account.tls && isIP(account.host) === 0 ? { servername: account.host } : {}),
      ...(account.tls ? tls : {}),
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
    session.on("pdu", (pdu: smpp.Pdu) => onRequest(live, pdu, receive))
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
      onTimeout: (): BindFailure => ({
        _tag: "unreachable",
        reason: `no bind within ${Duration.format(responseTimeout)}`
      })
    })
  )

/** Sends `enquire_link` after each quiet `every`; a session that does not answer in time is dropped. */
const keepAlive = (live: Live, every: Duration.Duration, responseTimeout: Duration.Duration) =>
  Effect.forever(Effect.gen(function*() {
    yield* Effect.sleep(every)
    const answered = yield* Effect.async<boolean>((resume) => {
      if (!live.session.enquire_link({}, () => resume(Effect.succeed(true)))) resume(Effect.succeed(true))
    }).pipe(Effect.timeoutTo({ duration: responseTimeout, onSuccess: () => true, onTimeout: () => false }))
    if (!answered) {
      live.reason = `no answer to enquire_link within ${Duration.format(responseTimeout)}`
      live.session.destroy()
    }
  }))

/** Unbinds, waiting at most 2 seconds for the answer or the close, then destroys the socket. */
const unbind = (live: Live) => {
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
}

/** Writes one `submit_sm` on `live`, its answer awaited in `live.outstanding` (see `Session.send`). */
const submitSm = (live: Live, sm: Submits.SubmitSm, reference: string, accepted: (messageId: string) => void) =>
  Effect.async<Answer>((resume) => {
    let settled = false
    const settle = (answer: Answer) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(answer))
    }
    const pdu = new smpp.PDU("submit_sm", { ...sm, short_message: Buffer.from(sm.short_message) })
    const written = live.session.send(pdu, (response) => {
      live.outstanding.delete(pdu.sequence_number)
      const messageId = typeof response["message_id"] === "string" ? response["message_id"] : ""
      // Recorded at once, before the next PDU (its receipt, maybe) is read; and even when the
      // submit gave up waiting, so that a resubmission finds it accepted.
      if (response.command_status === 0) accepted(messageId)
      settle({ _tag: "answered", status: response.command_status, messageId })
    })
    if (!written) return settle({ _tag: "unsent" })
    live.outstanding.set(pdu.sequence_number, { reference, settle })
    return Effect.sync(() => void live.outstanding.delete(pdu.sequence_number))
  })

/**
 * Binds, and binds again whenever the session is lost, for as long as the scope. Waits for the
 * first bind, and fails with the `Refusal` when the SMSC refuses the credentials then (an SMSC that
 * cannot be reached is logged and tried again in the background); later refusals are logged.
 */
export const make = (
  options: Options,
  inDoubt: InDoubt,
  receive: Receive
): Effect.Effect<Session, Refusal, Scope.Scope> =>
  Effect.gen(function*() {
    const { account, label, reconnectMax, reconnectMin, responseTimeout, where } = options
    // where this session binds, in its log lines
    const at = label === undefined ? where : `${where} (${label})`
    const firstAttempt = yield* Deferred.make<void, Refusal>()
    let current: Live | undefined
    let state: State = "connecting"

    /** Says the new state once, when it changes. */
    const enter = (next: State, line: Effect.Effect<void>) =>
      Effect.suspend(() => {
        if (next === state) return Effect.void
        state = next
        return line
      })

    /** The in-doubt submits of a lost session, settled and counted. */
    const lose = (live: Live, reason: string) =>
      Effect.suspend(() => {
        const lost = [...live.outstanding.values()]
        live.outstanding.clear()
        for (const pending of lost) pending.settle({ _tag: "lost", reason })
        const doubt = inDoubt.lost(lost.map((pending) => pending.reference))
        return enter(
          "lost",
          Effect.logWarning(`SMPP: the session with ${at} was lost (${reason}); ${doubt}; binding again`)
        )
      })

    /** Serves a bound session until it is lost. */
    const serve = (live: Live) =>
      Effect.gen(function*() {
        current = live
        yield* enter(
          "bound",
          Effect.logInfo(
            `SMPP: bound to ${at} as a transceiver (window ${account.window}${
              account.sessions > 1 ? ` across ${account.sessions} sessions` : ""
            }${account.maxPerSecond === undefined ? "" : `, ${account.maxPerSecond} submits a second`})`
          )
        )
        yield* Deferred.succeed(firstAttempt, undefined)
        const alive = yield* Effect.fork(keepAlive(live, Duration.seconds(account.enquireLinkSeconds), responseTimeout))
        const reason = yield* Deferred.await(live.closed)
        yield* Fiber.interrupt(alive)
        current = undefined
        yield* lose(live, reason)
      })

    /** Says a failed bind; `false` when it was the first and refused, which ends the session. */
    const failed = (failure: BindFailure) =>
      Effect.gen(function*() {
        if (failure._tag === "unreachable") {
          yield* enter(
            "unreachable",
            Effect.logWarning(
              `SMPP: cannot reach ${at} (${failure.reason}); trying again, less often while it fails`
            )
          )
          yield* Deferred.succeed(firstAttempt, undefined)
          return true
        }
        const line = `The SMSC at ${where} refused to bind: ${Status.name(failure.status)}` +
          (Status.credential.has(failure.status)
            ? " (check the system_id, password and system_type of CARRIER_URL)"
            : "")
        if (!(yield* Deferred.isDone(firstAttempt))) {
          yield* Deferred.fail(firstAttempt, { status: Status.name(failure.status), message: line })
          return false
        }
        yield* enter(
          "refused",
          Effect.logError(
            `SMPP: ${line}${label === undefined ? "" : ` (${label})`}; trying again, less often while it refuses`
          )
        )
        return true
      })

    /** Binds, serves the session until it is lost, and binds again, backing off while it fails; for ever. */
    const connection = Effect.gen(function*() {
      let failures = 0
      for (;;) {
        const attempt = yield* Effect.either(bind(options, receive))
        if (Either.isRight(attempt)) {
          failures = 0
          yield* serve(attempt.right)
        } else {
          failures++
          if (!(yield* failed(attempt.left))) return
        }
        yield* Effect.sleep(Duration.millis(Math.min(reconnectMax, reconnectMin * 2 ** Math.max(0, failures - 1))))
      }
    })

    // Unbinds (when bound) as the scope closes, after the connection fiber is stopped.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const live = current
        current = undefined
        return live === undefined ? Effect.void : unbind(live)
      })
    )
    yield* Effect.forkScoped(connection)
    yield* Deferred.await(firstAttempt)

    const session: Session = {
      state: Effect.sync(() => state),
      live: () => current?.reason === undefined ? current : undefined,
      drop: (live, reason) =>
        Effect.sync(() => {
          if (current !== live) return
          live.reason ??= reason
          live.session.destroy()
        }),
      send: (live, sm, reference, accepted) =>
        Effect.suspend((): Effect.Effect<Answer> =>
          current !== live ? Effect.succeed({ _tag: "unsent" }) : submitSm(live, sm, reference, accepted)
        ).pipe(
          Effect.timeoutTo({
            duration: responseTimeout,
            onSuccess: (answer) => answer,
            onTimeout: (): Answer => ({ _tag: "timeout" })
          })
        )
    }
    return session
  })
