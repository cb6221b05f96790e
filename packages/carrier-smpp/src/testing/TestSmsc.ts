/**
 * A real SMSC in the test's process: the `smpp` package's server on a loopback port, binding the
 * transceivers of its `users` (as many sessions as asked), answering each `submit_sm` as the test
 * says (accept, a status, hold the answer, or drop the connection; `answerBy` for a status by
 * destination or source; `ESME_RTHROTTLED` over `maxPerSecondPerSession`) and sending a delivery
 * receipt for each accepted one (`receipt`, a chosen `stat` and `err`), with the receipt text and,
 * unless told otherwise, the `receipted_message_id` and `message_state` TLVs. It keeps every bind
 * and submit, each `short_message` and `validity_period` as they came over the wire; `dropSession`
 * drops one session, `drop` all.
 *
 * To keep those, it has the package keep them when it decodes a `submit_sm` (the package would
 * turn them into text and a `Date`): a process-wide addition, which changes nothing else the
 * package does, made when this module loads. Sendline's carrier never decodes a `submit_sm`.
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Effect } from "effect"
import type { AddressInfo } from "node:net"
import smpp from "smpp"
import * as Receipts from "../Receipts.js"

// Keeps each submit_sm's `short_message` bytes and `validity_period` text beside the package's
// decoding, as `raw_short_message` and `raw_validity_period`.
const submitParams = smpp.commands["submit_sm"]!.params!
const keepRaw = (param: string) => {
  const kept = submitParams[param]!
  if (kept.filter === undefined || "keepsRaw" in kept.filter) return
  const filter = kept.filter
  submitParams[param] = {
    type: kept.type,
    filter: {
      keepsRaw: true,
      encode: filter.encode,
      decode(value, skipUdh) {
        const raw = this as Record<string, unknown>
        if (Buffer.isBuffer(value)) raw[`raw_${param}`] = Buffer.from(value)
        else if (typeof value === "string") raw[`raw_${param}`] = value
        return filter.decode.call(this, value, skipUdh)
      }
    } as NonNullable<typeof kept.filter>
  }
}
keepRaw("short_message")
keepRaw("validity_period")

/** A `submit_sm` as the SMSC received it. @since 0.1.0 @category models */
export interface Submit {
  /** The system_id of the session it came on. */
  readonly systemId: string
  /** The session it came on: 1 for the first bound, 2 for the next… */
  readonly session: number
  readonly sequenceNumber: number
  readonly sourceAddrTon: number
  readonly sourceAddrNpi: number
  readonly sourceAddr: string
  readonly destAddrTon: number
  readonly destAddrNpi: number
  readonly destinationAddr: string
  readonly esmClass: number
  readonly registeredDelivery: number
  readonly dataCoding: number
  /** As sent (`000002000000000R`); empty when none was. */
  readonly validityPeriod: string
  /** The user data as sent: UDH (when `esmClass` has 0x40) and payload. */
  readonly shortMessage: Buffer
}

/** How the SMSC answers a submit: accept, a status, no answer (until `release`), or drop the connection. @since 0.1.0 @category models */
export type Answer = "accept" | "hold" | "drop" | { readonly status: number }

/** The receipt to send for an accepted submit, or none. @since 0.1.0 @category models */
export interface ReceiptPlan {
  readonly stat: string
  readonly err?: string
  /** Send the `receipted_message_id` and `message_state` TLVs (default true). */
  readonly tlvs?: boolean
}

/** What the SMSC does; every part may be changed while it runs. @since 0.1.0 @category models */
export interface Options {
  /** The port to listen on (default: one the system picks). */
  readonly port?: number
  /** system_id → password of the accounts it binds (default `{ sendline: "secret" }`). */
  readonly users?: Readonly<Record<string, string>>
  /** The answer to each submit (default: accept). */
  readonly answer?: (submit: Submit) => Answer
  /** The receipt for each accepted submit, sent just after its answer (default: `DELIVRD`). */
  readonly receipt?: (submit: Submit, messageId: string) => ReceiptPlan | undefined
  /** Real time before an accepting answer, as a remote SMSC's round trip (default 0: at once). */
  readonly answerDelayMillis?: number
  /** Submits a session may make in one real second from its first; more are answered `ESME_RTHROTTLED` (default: no cap). */
  readonly maxPerSecondPerSession?: number
  /** TLS from the first byte with this key and certificate (PEM): `url` then says `smpps://`. */
  readonly tls?: { readonly key: string; readonly cert: string }
}

/** One bind attempt. @since 0.1.0 @category models */
export interface Bind {
  readonly systemId: string
  readonly systemType: string
  readonly accepted: boolean
}

/** A running SMSC. @since 0.1.0 @category models */
export interface Smsc {
  readonly port: number
  /** `smpp://sendline:secret@127.0.0.1:<port>` (`smpps://` with TLS) with `query` appended. */
  readonly url: (query?: string) => string
  readonly binds: ReadonlyArray<Bind>
  readonly submits: ReadonlyArray<Submit>
  /** The id given to each accepted submit, by its index in `submits`. */
  readonly messageIds: ReadonlyMap<number, string>
  /** `enquire_link`s received. */
  readonly enquireLinks: () => number
  /** Receipts the client has acknowledged (`deliver_sm_resp`). */
  readonly receiptsAcknowledged: () => number
  /** Sessions bound now. */
  readonly boundSessions: () => number
  /** Submits whose answer is held. */
  readonly held: () => number
  /** Changes how submits are answered from now on. */
  setAnswer(answer: (submit: Submit) => Answer): void
  /** Changes which receipts are sent from now on. */
  setReceipt(receipt: (submit: Submit, messageId: string) => ReceiptPlan | undefined): void
  /** Waits (for real events, not the Clock) until `condition` holds. */
  until(condition: () => boolean): Effect.Effect<void>
  /** Answers every held submit: accepted. */
  release(): void
  /** Drops every connection at once, as a crashing SMSC does. */
  drop(): void
  /** Drops the session bound first of those bound now, as a network losing one connection does. */
  dropSession(): void
  /** Asks every bound session to unbind, as an SMSC going down for maintenance does. */
  unbind(): void
  /** Sends a receipt for `messageId` on a bound session. */
  sendReceipt(messageId: string, plan: ReceiptPlan, destination?: string): void
}

/**
 * Answers the status given for a submit's destination (`destinations`, without `+`) or else its
 * source (`sources`), and accepts the rest: `TestSmsc.start({ answer: answerBy({ destinations:
 * { "61400000001": 0x0B } }) })`.
 *
 * @since 0.2.0
 * @category answers
 */
export const answerBy = (statuses: {
  readonly destinations?: Readonly<Record<string, number>>
  readonly sources?: Readonly<Record<string, number>>
}) =>
(submit: Submit): Answer => {
  const status = statuses.destinations?.[submit.destinationAddr] ?? statuses.sources?.[submit.sourceAddr]
  return status === undefined ? "accept" : { status }
}

/** A `submit_sm` received on session `session`, bound as `systemId`, as `Submit`. */
const submitOf = (systemId: string, session: number, pdu: smpp.Pdu): Submit => ({
  systemId,
  session,
  sequenceNumber: pdu.sequence_number,
  sourceAddrTon: Number(pdu["source_addr_ton"]),
  sourceAddrNpi: Number(pdu["source_addr_npi"]),
  sourceAddr: String(pdu["source_addr"]),
  destAddrTon: Number(pdu["dest_addr_ton"]),
  destAddrNpi: Number(pdu["dest_addr_npi"]),
  destinationAddr: String(pdu["destination_addr"]),
  esmClass: Number(pdu["esm_class"]),
  registeredDelivery: Number(pdu["registered_delivery"]),
  dataCoding: Number(pdu["data_coding"]),
  validityPeriod: String(pdu["raw_validity_period"] ?? ""),
  shortMessage: (pdu["raw_short_message"] as Buffer | undefined) ?? Buffer.alloc(0)
})

/** The `deliver_sm` parameters of a receipt for `messageId`, from the handset at `destination`. */
const receiptOf = (messageId: string, plan: ReceiptPlan, destination: string): Record<string, unknown> => {
  const state = [...Receipts.messageStates].find(([, stat]) => stat === plan.stat)?.[0]
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: destination,
    esm_class: 0x04,
    data_coding: 0,
    short_message: Buffer.from(Receipts.text({ id: messageId, stat: plan.stat, err: plan.err }), "latin1"),
    ...(plan.tlvs === false
      ? {}
      : { receipted_message_id: messageId, ...(state === undefined ? {} : { message_state: state }) })
  }
}

/** Starts the SMSC on 127.0.0.1; it stops when the scope closes. @since 0.1.0 @category constructors */
export const start = (options: Options = {}): Effect.Effect<Smsc, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: smpp.Server; readonly smsc: Smsc }, Error>((resume) => {
      const users = options.users ?? { sendline: "secret" }
      let answer = options.answer ?? (() => "accept" as const)
      let receipt = options.receipt ?? ((): ReceiptPlan | undefined => ({ stat: "DELIVRD" }))
      const binds: Array<Bind> = []
      const submits: Array<Submit> = []
      const messageIds = new Map<number, string>()
      const bound = new Set<smpp.Session>()
      let sessionsBound = 0
      const heldAnswers: Array<() => void> = []
      const waiters = new Set<() => void>()
      let enquireLinks = 0
      let acknowledged = 0
      let counter = 0
      const notify = () => {
        for (const waiter of [...waiters]) waiter()
      }

      const deliverReceipt = (session: smpp.Session, messageId: string, plan: ReceiptPlan, destination: string) => {
        session.deliver_sm(receiptOf(messageId, plan, destination), () => {
          acknowledged++
          notify()
        })
      }

      /** Whether the session is over its cap this real second (from its first submit of the second). */
      const overCap = (pace: { start: number; count: number }) => {
        if (options.maxPerSecondPerSession === undefined) return false
        const now = Date.now()
        if (now - pace.start >= 1000) Object.assign(pace, { start: now, count: 0 })
        return ++pace.count > options.maxPerSecondPerSession
      }

      const onSubmit = (session: smpp.Session, systemId: string, n: number, pdu: smpp.Pdu, pace: {
        start: number
        count: number
      }) => {
        const submit = submitOf(systemId, n, pdu)
        const index = submits.push(submit) - 1
        const decided = overCap(pace) ? { status: smpp.errors.ESME_RTHROTTLED! } : answer(submit)
        const accept = () => {
          const messageId = (++counter).toString(16).padStart(8, "0")
          messageIds.set(index, messageId)
          session.send(pdu.response({ message_id: messageId }))
          const plan = receipt(submit, messageId)
          if (plan !== undefined) deliverReceipt(session, messageId, plan, submit.destinationAddr)
        }
        const delay = options.answerDelayMillis ?? 0
        if (decided === "accept") {
          if (delay > 0) setTimeout(accept, delay)
          else accept()
        } else if (decided === "hold") heldAnswers.push(accept)
        else if (decided === "drop") session.destroy()
        else session.send(pdu.response({ command_status: decided.status }))
        notify()
      }

      const server = smpp.createServer(options.tls === undefined ? {} : { ...options.tls }, (session) => {
        let systemId: string | undefined
        let n = 0
        const pace = { start: 0, count: 0 }
        session.socket.setNoDelay(true)
        session.on("error", () => {})
        session.on("close", () => {
          bound.delete(session)
          notify()
        })
        session.on("bind_transceiver", (pdu: smpp.Pdu) => {
          const id = String(pdu["system_id"])
          const accepted = users[id] !== undefined && users[id] === pdu["password"]
          binds.push({ systemId: id, systemType: String(pdu["system_type"]), accepted })
          if (accepted) {
            systemId = id
            n = ++sessionsBound
            bound.add(session)
            session.send(pdu.response({ system_id: "TestSmsc" }))
          } else {
            session.send(pdu.response({ command_status: smpp.errors.ESME_RINVPASWD }))
          }
          notify()
        })
        session.on("enquire_link", (pdu: smpp.Pdu) => {
          enquireLinks++
          session.send(pdu.response())
          notify()
        })
        session.on("unbind", (pdu: smpp.Pdu) => {
          bound.delete(session)
          session.send(pdu.response())
          session.close()
          notify()
        })
        session.on("submit_sm", (pdu: smpp.Pdu) => {
          if (systemId === undefined) return session.send(pdu.response({ command_status: smpp.errors.ESME_RINVBNDSTS }))
          onSubmit(session, systemId, n, pdu, pace)
        })
      })

      const smsc: Smsc = {
        get port() {
          return (server.address() as AddressInfo).port
        },
        url: (query) =>
          `${options.tls === undefined ? "smpp" : "smpps"}://sendline:secret@127.0.0.1:${
            (server.address() as AddressInfo).port
          }${query === undefined ? "" : `?${query}`}`,
        binds,
        submits,
        messageIds,
        enquireLinks: () => enquireLinks,
        receiptsAcknowledged: () => acknowledged,
        boundSessions: () => bound.size,
        held: () => heldAnswers.length,
        setAnswer: (next) => void (answer = next),
        setReceipt: (next) => void (receipt = next),
        until: (condition) =>
          Effect.async<void>((resume) => {
            if (condition()) return resume(Effect.void)
            const waiter = () => {
              if (!condition()) return
              waiters.delete(waiter)
              resume(Effect.void)
            }
            waiters.add(waiter)
            return Effect.sync(() => void waiters.delete(waiter))
          }),
        release: () => {
          for (const accept of heldAnswers.splice(0)) accept()
        },
        drop: () => {
          heldAnswers.length = 0
          // no longer bound from now, not from when each socket's close event comes
          bound.clear()
          for (const session of [...server.sessions]) session.destroy()
          notify()
        },
        dropSession: () => {
          const [first] = bound
          if (first === undefined) return
          bound.delete(first)
          first.destroy()
        },
        unbind: () => {
          const unbinding = [...bound]
          bound.clear()
          for (const session of unbinding) session.unbind({}, () => session.close())
          notify()
        },
        sendReceipt: (messageId, plan, destination = "61400000000") => {
          const session = [...bound][0]
          if (session !== undefined) deliverReceipt(session, messageId, plan, destination)
        }
      }
      server.on("error", (error) => resume(Effect.fail(error)))
      server.listen(options.port ?? 0, "127.0.0.1", () => resume(Effect.succeed({ server, smsc })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        for (const session of [...server.sessions]) session.destroy()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ smsc }) => smsc))
