/**
 * The Dispatcher worker (CONTRACT §3): claims `queued` messages and submits them to the carrier.
 * Accepted → `sent` with `sent_at`; refused, or its Sender ID no longer registered → `failed` with
 * `error`; carrier unavailable → left `queued`, tried again when its claim's lease ends.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Either, Layer, Option } from "effect"
import * as Carrier from "./Carrier.js"
import type { StoreUnavailable } from "./Errors.js"
import { IdGenerator } from "./Ids.js"
import * as Transition from "./internal/transition.js"
import { loop } from "./internal/worker.js"
import type { Message } from "./Message.js"
import { MessageStore } from "./MessageStore.js"
import * as SenderId from "./SenderId.js"
import { SenderIdStore } from "./SenderIdStore.js"

/** Dispatcher settings. @since 0.1.0 @category models */
export interface Options {
  /** Messages claimed per pass. */
  readonly batchSize: number
  /** How long a claim holds a message: a message left `queued` is tried again after it. */
  readonly leaseMillis: number
  /** Clock time between passes when the last one found less than a full batch. */
  readonly pollMillis: number
  /** Submissions in flight at once. */
  readonly concurrency: number
}

/** @since 0.1.0 @category constants */
export const defaults: Options = { batchSize: 100, leaseMillis: 30_000, pollMillis: 1_000, concurrency: 16 }

/** The error code of a message whose Sender ID stopped being registered before dispatch. @since 0.1.0 @category constants */
export const senderIdNotRegistered = "sender_id_not_registered"

/** What became of one claimed message. @since 0.1.0 @category models */
export type Outcome = "sent" | "failed" | "retry" | "lost"

/** The Dispatcher worker. @since 0.1.0 @category services */
export class Dispatcher extends Context.Tag("@sendline/core/Dispatcher")<Dispatcher, {
  /** One pass: claims the messages due now and dispatches them; returns how many it claimed. */
  readonly runOnce: Effect.Effect<number, StoreUnavailable>
  /** Passes forever, sleeping `pollMillis` of Clock time between them; ends only by interruption. */
  readonly run: Effect.Effect<never>
}>() {}

const senderKey = (m: Message) => `${m.accountId}\u0000${m.senderId}\u0000${m.market}`

/** @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Tag.Service<Dispatcher>, never, MessageStore | SenderIdStore | Carrier.Carrier | IdGenerator> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const messages = yield* MessageStore
    const senderIds = yield* SenderIdStore
    const carrier = yield* Carrier.Carrier

    const transition = yield* Transition.make

    const move = (next: Message, outcome: Outcome) =>
      Effect.gen(function*() {
        if (yield* transition(next, "queued")) return outcome
        yield* Effect.logDebug(`Dispatcher: ${next.id} had already left queued`)
        return "lost" as const
      })

    const fail = (message: Message, error: { readonly code: string; readonly message: string }) =>
      move({ ...message, status: "failed", error }, "failed")

    // Submission is interruptible; once the carrier has answered, the answer is recorded even if
    // the worker is being stopped, so that a clean shutdown never leaves an accepted message queued.
    const dispatchOne = (message: Message, registered: boolean): Effect.Effect<Outcome> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          if (!registered) {
            return yield* fail(message, {
              code: senderIdNotRegistered,
              message: `Sender ID ${message.senderId} is no longer registered to this account for ${message.market}.`
            })
          }
          const answer = yield* Effect.either(restore(carrier.submit(Carrier.outbound(message))))
          if (Either.isRight(answer)) {
            const sentAt = yield* Clock.currentTimeMillis
            return yield* move({ ...message, status: "sent", sentAt }, "sent")
          }
          const error = answer.left
          if (error._tag === "CarrierRefused") return yield* fail(message, { code: error.code, message: error.message })
          yield* Effect.logDebug(`Dispatcher: carrier ${error.reason} for ${message.id}; retrying after the lease`)
          return "retry" as const
        })
      ).pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`Dispatcher: could not record ${message.id}; retrying after the lease`, error), "retry" as const)
        )
      )

    const pass = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* messages.claim("dispatch", now, settings.batchSize, now + settings.leaseMillis)
      if (claimed.length === 0) return { taken: 0, full: false, backOff: false }
      // one Sender ID lookup per distinct (account, Sender ID, market) in the batch
      const keys = new Map<string, Message>()
      for (const m of claimed) if (!keys.has(senderKey(m))) keys.set(senderKey(m), m)
      const lookups = yield* Effect.forEach(
        keys,
        ([key, m]) =>
          Effect.map(
            Effect.either(senderIds.findRegistered(m.accountId, m.senderId, m.market)),
            (found) => [key, Either.map(found, Option.exists((record) => SenderId.canSend(record, now)))] as const
          ),
        { concurrency: settings.concurrency }
      )
      const registered = new Map(lookups)
      const outcomes = yield* Effect.forEach(claimed, (m) => {
        const check = registered.get(senderKey(m))!
        if (Either.isLeft(check)) {
          return Effect.as(Effect.logWarning(`Dispatcher: Sender ID lookup failed for ${m.id}`, check.left), "retry" as const)
        }
        return dispatchOne(m, check.right)
      }, { concurrency: settings.concurrency })
      return {
        taken: claimed.length,
        full: claimed.length === settings.batchSize,
        backOff: outcomes.includes("retry")
      }
    })

    const runOnce = Effect.map(pass, (p) => p.taken).pipe(Effect.withSpan("Dispatcher.runOnce"))
    return Dispatcher.of({ runOnce, run: loop("Dispatcher", pass, settings.pollMillis) })
  })

/** @since 0.1.0 @category layers */
export const layer = (
  options: Partial<Options> = {}
): Layer.Layer<Dispatcher, never, MessageStore | SenderIdStore | Carrier.Carrier | IdGenerator> =>
  Layer.effect(Dispatcher, make(options))
