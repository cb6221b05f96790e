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
import type { StoreUnavailable } from "@sendline/api/Errors"
import { Clock, Context, Duration, Effect, Either, Layer } from "effect"
import * as Progress from "../internal/progress.js"
import * as Worker from "../internal/worker.js"
import * as Mail from "./Mail.js"
import { Mailer } from "./Mailer.js"
import { MailStore } from "./MailStore.js"

/** MailSender settings: those of every worker that claims, and its mails at once. @since 0.1.0 @category models */
export interface Options extends Worker.Leased {
  /** Mails handed to the mailer at once. */
  readonly concurrency: number
}

/**
 * The default settings: those of every worker that claims (30 s leases, 1 s polls), with batches
 * of 10 and 5 mails at once: a batch is two rounds of attempts, which end within the lease's
 * deadline (24 s) even when each waits out a 10 s connection timeout (`@sendline/mailer-smtp`'s
 * default).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = { ...Worker.leasedDefaults, batchSize: 10, concurrency: 5 }

/** The MailSender worker: a pass claims the mails due now and sends them. @since 0.1.0 @category services */
export class MailSender
  extends Context.Tag("@sendline/core/MailSender")<MailSender, Worker.Worker<StoreUnavailable>>()
{}

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
              Effect.logError(
                `MailSender: ${mail.id} refused by the mail server (${error.message}); it will not be tried again`
              ),
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
        if (claimed.length === 0) return { taken: 0 }
        // Attempts still waiting for the server at the lease's deadline are tried again after it.
        const attempted: Array<Mail.Mail> = []
        const sending = yield* Effect.exit(restore(
          Effect.forEach(claimed, (mail) => Effect.map(attempt(mail), (next) => void attempted.push(next)), {
            concurrency: settings.concurrency,
            discard: true
          }).pipe(
            Worker.withinLease(settings, now, () =>
              Effect.logWarning(
                `MailSender: the mail server answered ${attempted.length} of ${claimed.length} mails before the lease's deadline; ` +
                  "the rest are tried again when their lease ends"
              ))
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
          // Wait a poll before the next pass while the server or the store is struggling.
          backOff: Either.isLeft(recorded) || attempted.length < claimed.length ||
            attempted.some((mail) => mail.status === "pending")
        }
      })
    )

    return MailSender.of(Worker.make("MailSender", settings, { pass, logProgress: progress.log }))
  })

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer = (options: Partial<Options> = {}): Layer.Layer<MailSender, never, MailStore | Mailer> =>
  Layer.effect(MailSender, make(options))
