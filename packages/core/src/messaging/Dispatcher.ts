/**
 * The Dispatcher worker (CONTRACT §3): claims `queued` messages and submits them to the carrier.
 * Accepted → `sent` with `sent_at`; refused, its Sender ID no longer registered, or its recipient
 * on its account's opt-out list (CONTRACT §12) → `failed` with `error`; carrier unavailable → left `queued`, tried again when its claim's lease ends.
 *
 * @since 0.1.0
 */
import type { RuleCode, StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Context, Effect, Either, Layer, Option } from "effect"
import type { IdGenerator } from "../Ids.js"
import * as Worker from "../internal/worker.js"
import { OptOutStore } from "../optOuts/OptOutStore.js"
import * as SenderId from "../senderIds/SenderId.js"
import { findSendable, SenderIdStore } from "../senderIds/SenderIdStore.js"
import * as Carrier from "./Carrier.js"
import type { Message } from "./Message.js"
import { MessageStore } from "./MessageStore.js"
import * as Transition from "./Transition.js"

/** Dispatcher settings: those of every worker that claims, and its submissions in flight. @since 0.1.0 @category models */
export interface Options extends Worker.Leased {
  /** Submissions in flight at once. */
  readonly concurrency: number
}

/**
 * The default settings: those of every worker that claims (batches of 100, 30 s leases, 1 s polls),
 * 16 submissions in flight.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = { ...Worker.leasedDefaults, concurrency: 16 }

/** A message left queued for its lease to end: the carrier did not take it, or asked to slow down. */
type Retry = "retry" | "throttled"

/** The error code of a message whose Sender ID stopped being registered before dispatch. */
const senderIdNotRegistered: RuleCode = "sender_id_not_registered"

/** The error code of a message whose recipient opted out before dispatch. */
const recipientOptedOut: RuleCode = "recipient_opted_out"

/** The Dispatcher worker: a pass claims the messages due now and dispatches them. @since 0.1.0 @category services */
export class Dispatcher
  extends Context.Tag("@sendline/core/Dispatcher")<Dispatcher, Worker.Worker<StoreUnavailable>>()
{}

const senderKey = (m: Message) => SenderId.lookupKey(m.accountId, m.senderId, m.market)

/** Builds the Dispatcher worker with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<
  Context.Tag.Service<Dispatcher>,
  never,
  MessageStore | SenderIdStore | OptOutStore | Carrier.Carrier | IdGenerator
> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const messages = yield* MessageStore
    const senderIds = yield* SenderIdStore
    const optOuts = yield* OptOutStore
    const carrier = yield* Carrier.Carrier

    const transition = yield* Transition.make("Dispatcher")
    // The messages this dispatcher left queued (the carrier did not take them, or their Sender ID
    // lookup failed), by id, with when they were last left: while any waits, more are logged at
    // debug level only. One not claimed again for two leases went another way (another process).
    const waiting = new Map<string, number>()
    const noteWaiting = (
      left: ReadonlyArray<string>,
      moved: ReadonlyArray<Transition.Change>,
      claimed: number,
      now: number
    ) =>
      Effect.suspend(() => {
        const before = waiting.size
        for (const id of left) waiting.set(id, now)
        for (const change of moved) waiting.delete(change.next.id)
        for (const [id, at] of waiting) if (now - at > 2 * settings.leaseMillis) waiting.delete(id)
        if (left.length > 0) {
          const line = `Dispatcher: ${left.length} of ${claimed} messages stay queued ` +
            "(the carrier was unavailable or throttled, or the Sender ID lookup failed); " +
            "they are tried again when their lease ends"
          return before === 0 ? Effect.logInfo(line) : Effect.logDebug(line)
        }
        return before > 0 && waiting.size === 0
          ? Effect.logInfo("Dispatcher: the carrier takes messages again (none of those left queued waits)")
          : Effect.void
      })

    const failed = (
      message: Message,
      error: Message["error"] & {}
    ): Transition.Change => ({
      next: { ...message, status: "failed", error },
      from: "queued"
    })

    // What the carrier's answer makes of one registered message: a change to record, or a retry
    // ("throttled" when the carrier asked to slow down).
    const submit = (message: Message): Effect.Effect<Transition.Change | Retry> =>
      Effect.flatMap(
        Effect.either(carrier.submit(Carrier.outbound(message))),
        (answer): Effect.Effect<Transition.Change | Retry> => {
          if (Either.isRight(answer)) {
            return Effect.map(Clock.currentTimeMillis, (sentAt): Transition.Change => ({
              next: {
                ...message,
                status: "sent",
                sentAt,
                carrierMessageId: answer.right.carrierMessageId,
                ...(answer.right.carrier === undefined ? {} : { carrier: answer.right.carrier })
              },
              from: "queued"
            }))
          }
          const error = answer.left
          if (error._tag === "CarrierRefused") {
            return Effect.succeed(failed(message, {
              code: error.code,
              message: error.message,
              ...(error.carrierCode === undefined ? {} : { carrier_code: error.carrierCode })
            }))
          }
          return Effect.as(
            Effect.logDebug(`Dispatcher: carrier ${error.reason} for ${message.id}; retrying after the lease`),
            error.reason === "throttled" ? "throttled" as const : "retry" as const
          )
        }
      )

    // One Sender ID lookup per distinct (account, Sender ID, market) of the batch: whether each may
    // still send, or the lookup's failure.
    const registrations = (claimed: ReadonlyArray<Message>, now: number) => {
      const keys = new Map<string, Message>()
      for (const m of claimed) if (!keys.has(senderKey(m))) keys.set(senderKey(m), m)
      return Effect.map(
        Effect.forEach(keys, ([key, m]) =>
          Effect.map(
            Effect.either(findSendable(senderIds, m.accountId, m.senderId, m.market, now)),
            (found) => [key, Either.map(found, Option.isSome)] as const
          ), { concurrency: settings.concurrency }),
        (lookups) => new Map(lookups)
      )
    }

    // One opt-out lookup per account of the batch: its recipients listed, or the lookup's failure.
    const optedOut = (claimed: ReadonlyArray<Message>) => {
      const byAccount = new Map<string, Array<string>>()
      for (const m of claimed) byAccount.set(m.accountId, [...(byAccount.get(m.accountId) ?? []), m.to])
      return Effect.map(
        Effect.forEach(byAccount, ([accountId, phones]) =>
          Effect.map(
            Effect.either(optOuts.listed(accountId, phones)),
            (found) => [accountId, found] as const
          ), { concurrency: settings.concurrency }),
        (lookups) => new Map(lookups)
      )
    }

    // Submissions are interruptible; the answers that came back are recorded even when the worker
    // is being stopped, all in one store call, so that a clean shutdown never leaves an accepted
    // message queued. A failed record leaves its messages queued: they are tried again after the
    // lease, and the carrier dedupes the resubmission on the reference.
    const pass = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* restore(messages.claim("dispatch", now, settings.batchSize, now + settings.leaseMillis))
        if (claimed.length === 0) return { taken: 0 }
        const registered = yield* restore(registrations(claimed, now))
        const listed = yield* restore(optedOut(claimed))
        // Submissions still waiting for the carrier at the lease's deadline stay queued for it.
        const answers: Array<Transition.Change | Retry> = []
        const left: Array<string> = []
        const submitted = yield* Effect.exit(restore(
          Effect.forEach(claimed, (message) => {
            const check = registered.get(senderKey(message))!
            if (Either.isLeft(check)) {
              answers.push("retry")
              left.push(message.id)
              return Effect.logWarning(`Dispatcher: Sender ID lookup failed for ${message.id}`, check.left)
            }
            if (!check.right) {
              answers.push(failed(message, {
                code: senderIdNotRegistered,
                message: `Sender ID ${message.senderId} is no longer registered to this account for ${message.market}.`
              }))
              return Effect.void
            }
            const optOut = listed.get(message.accountId)!
            if (Either.isLeft(optOut)) {
              answers.push("retry")
              left.push(message.id)
              return Effect.logWarning(`Dispatcher: opt-out lookup failed for ${message.id}`, optOut.left)
            }
            if (optOut.right.has(message.to)) {
              answers.push(failed(message, {
                code: recipientOptedOut,
                message: `${message.to} opted out of this account's messages before dispatch.`
              }))
              return Effect.void
            }
            return Effect.map(submit(message), (answer) => {
              answers.push(answer)
              if (typeof answer === "string") left.push(message.id)
            })
          }, { concurrency: settings.concurrency, discard: true }).pipe(
            Worker.withinLease(settings, now, () =>
              Effect.logWarning(
                `Dispatcher: the carrier answered ${answers.length} of ${claimed.length} before the lease's deadline; ` +
                  "the rest wait for the lease to end"
              ))
          )
        ))
        const changes = answers.filter((answer): answer is Transition.Change => typeof answer !== "string")
        // Logged when messages start staying queued and when none waits any more, not every lease
        // while a carrier is down.
        yield* noteWaiting(left, changes, claimed.length, now)
        const recorded = yield* Effect.either(transition.move(changes))
        if (Either.isLeft(recorded)) {
          yield* Effect.logWarning(
            `Dispatcher: could not record ${changes.length} answers; retrying after the lease`,
            recorded.left
          )
        }
        yield* submitted
        return {
          taken: claimed.length,
          // Wait a poll before the next pass when the carrier or the store is struggling: a record
          // failed, the deadline cut submissions short, the carrier throttled, or nothing was
          // taken. A message or two it did not take in a pass that went through is no reason to.
          backOff: Either.isLeft(recorded) || answers.length < claimed.length || answers.includes("throttled") ||
            (changes.length === 0 && answers.length > 0)
        }
      })
    )

    return Dispatcher.of(Worker.make("Dispatcher", settings, { pass, logProgress: transition.logProgress }))
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (
  options: Partial<Options> = {}
): Layer.Layer<Dispatcher, never, MessageStore | SenderIdStore | OptOutStore | Carrier.Carrier | IdGenerator> =>
  Layer.effect(Dispatcher, make(options))
