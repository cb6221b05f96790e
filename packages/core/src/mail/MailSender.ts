/**
 * The MailSender worker: claims the mails due in the outbox (`MailStore`) and hands each to the
 * `Mailer`. Taken → `sent`. Not taken for now (the server down, a timeout, a 4xx answer) → a
 * warning naming the mail and the mailer's reason, and the mail stays pending, due again after
 * `Mail.retryDelay` (30 s, 1 min, 5 min, 15 min, then hourly, without end). Refused for good (its
 * recipient or content, a 5xx answer) → `failed`, logged as an error: never dropped silently.
 *
 * At least once: a mail whose attempt is not recorded (the store failed, or the worker stopped
 * while the server answered) is tried again when its claim's lease ends, and may arrive twice.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Either, Layer, Option } from "effect"
import type { StoreUnavailable } from "../Errors.js"
import * as Progress from "../internal/progress.js"
import { loop } from "../internal/worker.js"
import * as Mail from "./Mail.js"
import { Mailer } from "./Mailer.js"
import { MailStore } from "./MailStore.js"

/** MailSender settings. @since 0.1.0 @category models */
export interface Options {
  /** Mails claimed per pass. */
  readonly batchSize: number
  /**
   * How long a claim holds a mail: one whose attempt was not recorded is tried again after it. A
   * pass's attempts end by four fifths of it, leaving the rest to record them.
   */
  readonly leaseMillis: number
  /** Clock time between passes when the last one found less than a full batch. */
  readonly pollMillis: number
  /** Mails handed to the mailer at once. */
  readonly concurrency: number
}

/**
 * The default settings: batches of 10, 30 s leases, 1 s polls, 5 mails at once: a batch is two
 * rounds of attempts, which end within the lease's deadline (24 s) even when each waits out a 10 s
 * connection timeout (`@sendline/mailer-smtp`'s default).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = { batchSize: 10, leaseMillis: 30_000, pollMillis: 1_000, concurrency: 5 }

/** The MailSender worker. @since 0.1.0 @category services */
export class MailSender extends Context.Tag("@sendline/core/MailSender")<MailSender, {
  /** One pass: claims the mails due now and sends them; returns how many it claimed. */
  readonly runOnce: Effect.Effect<number, StoreUnavailable>
  /** Passes forever, sleeping `pollMillis` of Clock time between them; ends only by interruption. */
  readonly run: Effect.Effect<never>
}>() {}

const describe = (counts: ReadonlyMap<Mail.MailStatus, number>): string =>
  [...counts].map(([status, n], i) => {
    const outcome = status === "pending" ? "to be retried" : status
    return i === 0 ? `${n} ${n === 1 ? "mail" : "mails"} ${outcome}` : `${n} ${outcome}`
  }).join(", ")

/** Builds the MailSender with `options` over the defaults. @since 0.1.0 @category constructors */
export const make = (
  options: Partial<Options> = {}
): Effect.Effect<Context.Tag.Service<MailSender>, never, MailStore | Mailer> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const store = yield* MailStore
    const mailer = yield* Mailer
    const progress = Progress.make<Mail.MailStatus>("MailSender", describe)

    // What one attempt makes of a mail, logged when it failed (the mail's id and the mailer's
    // reason, which never holds a credential; the recipient is in the store).
    const attempt = (mail: Mail.Mail): Effect.Effect<Mail.Mail> =>
      Effect.flatMap(Effect.either(mailer.send(mail)), (answer) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          if (Either.isRight(answer)) return Effect.succeed(Mail.sent(mail, now))
          const error = answer.left
          if (error.reason === "Rejected") {
            const next = Mail.refused(mail, error.message)
            return Effect.as(
              Effect.logError(`MailSender: ${mail.id} refused by the mail server (${error.message}); it will not be tried again`),
              next
            )
          }
          const next = Mail.retried(mail, now, error.message)
          return Effect.as(
            Effect.logWarning(
              `MailSender: ${mail.id} not sent, attempt ${next.attempts} (${error.message}); ` +
                `next attempt in ${Duration.format(Duration.millis(next.nextAttemptAt - now))}`
            ),
            next
          )
        }))

    // Attempts are interruptible; those that came back are recorded even when the worker is being
    // stopped, in one store call, so that a clean shutdown never leaves a sent mail pending.
    const pass = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* restore(store.claim(now, settings.batchSize, now + settings.leaseMillis))
        if (claimed.length === 0) return { taken: 0, full: false, backOff: false }
        // Attempts still waiting for the server at the deadline are interrupted, before another
        // claimer can take their mails when the lease ends; those are tried again then.
        const deadline = now + settings.leaseMillis * 0.8 - (yield* Clock.currentTimeMillis)
        const attempted: Array<Mail.Mail> = []
        const sending = yield* Effect.exit(restore(
          Effect.forEach(claimed, (mail) => Effect.map(attempt(mail), (next) => void attempted.push(next)), {
            concurrency: settings.concurrency,
            discard: true
          }).pipe(
            Effect.timeoutOption(Duration.millis(Math.max(0, deadline))),
            Effect.tap(Option.match({
              onNone: () =>
                Effect.logWarning(
                  `MailSender: the mail server answered ${attempted.length} of ${claimed.length} mails before the lease's deadline; ` +
                    "the rest are tried again when their lease ends"
                ),
              onSome: () => Effect.void
            }))
          )
        ))
        const recorded = yield* Effect.either(store.record(attempted))
        if (Either.isLeft(recorded)) {
          yield* Effect.logWarning(
            `MailSender: could not record ${attempted.length} attempts; their mails are tried again when their lease ends`,
            recorded.left
          )
        } else {
          for (const [i, mail] of attempted.entries()) if (recorded.right[i]) progress.count(mail.status)
          yield* progress.log(false)
        }
        yield* sending
        return {
          taken: claimed.length,
          full: claimed.length === settings.batchSize,
          // Wait a poll before the next pass while the server or the store is struggling.
          backOff: Either.isLeft(recorded) || attempted.length < claimed.length ||
            attempted.some((mail) => mail.status === "pending")
        }
      })
    )

    return MailSender.of({
      runOnce: Effect.map(pass, (p) => p.taken).pipe(Effect.withSpan("MailSender.runOnce")),
      run: loop("MailSender", pass, settings.pollMillis, progress.log)
    })
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<MailSender, never, MailStore | Mailer> =>
  Layer.effect(MailSender, make(options))
