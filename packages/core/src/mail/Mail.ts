/**
 * Mail: one e-mail Sendline sends (a pending brand relationship to its brand's contact, CONTRACT §6;
 * a disabled webhook subscription to its account's admin, §7), and its delivery bookkeeping in the
 * outbox. A mail is written by the store write that causes it, in the same transaction, and sent
 * later by the `MailSender` worker; this module says what each attempt makes of it, and when a
 * failed one is tried again.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Schema } from "effect"
import { IdGenerator } from "../Ids.js"
import { oneLine } from "../internal/text.js"

/**
 * Where a mail stands: `pending` until it is sent (tried again after each failure, however many),
 * `sent` once the mail server took it, `failed` when the server refused the mail itself (its
 * recipient, its content) for good, so that trying again cannot help.
 *
 * @since 0.1.0
 * @category models
 */
export const MailStatus = Schema.Literal("pending", "sent", "failed")
/** A mail status. @since 0.1.0 @category models */
export type MailStatus = typeof MailStatus.Type

/** A mail `mail_…`, plain text only (no HTML part); timestamps are epoch milliseconds. @since 0.1.0 @category models */
export const Mail = Schema.Struct({
  id: Schema.String,
  /** The recipient's address. */
  to: Schema.String,
  subject: Schema.String,
  /** The body, plain text. */
  text: Schema.String,
  createdAt: Schema.Number,
  status: MailStatus,
  /** Attempts made so far, the successful one included. */
  attempts: Schema.Number,
  /** When a pending mail is due (its first attempt: when it was made). */
  nextAttemptAt: Schema.Number,
  sentAt: Schema.optional(Schema.Number),
  /** Why the last attempt failed, as the mailer said it (never a credential). */
  lastError: Schema.optional(Schema.String)
})
/** A mail `mail_…`. @since 0.1.0 @category models */
export type Mail = typeof Mail.Type

/** What a new mail says, and to whom. @since 0.1.0 @category models */
export interface Draft {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/**
 * Makes the pending mail of `draft`, due at once: its id `mail_…` from the `IdGenerator`, its
 * `createdAt` from the `Clock`, its subject on one line whoever drafted it (`oneLine`: a line break
 * in a header field would start another header). Writing it is the caller's store write (see `MailStore`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (draft: Draft): Effect.Effect<Mail, never, IdGenerator> =>
  Effect.gen(function*() {
    const id = yield* (yield* IdGenerator).make("mail")
    const now = yield* Clock.currentTimeMillis
    const subject = oneLine(draft.subject)
    return {
      id,
      to: draft.to,
      subject,
      text: draft.text,
      createdAt: now,
      status: "pending",
      attempts: 0,
      nextAttemptAt: now
    }
  })

/**
 * How long a mail waits after each failed attempt in a row: 30 s, 1 min, 5 min, 15 min, then an hour
 * after every later failure, without end. A mail is never given up for its server being down: a
 * server back after a day still gets it, within the hour.
 *
 * @since 0.1.0
 * @category constants
 */
export const retryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(30),
  Duration.minutes(1),
  Duration.minutes(5),
  Duration.minutes(15),
  Duration.hours(1)
]

/** The wait after the `failures`-th failed attempt in a row (1 or more), from `retryDelays`. @since 0.1.0 @category scheduling */
export const retryDelay = (failures: number): Duration.Duration =>
  retryDelays[Math.min(Math.max(failures, 1), retryDelays.length) - 1]!

/** `mail` after an attempt at `at` that the mail server took: sent. @since 0.1.0 @category transitions */
export const sent = (mail: Mail, at: number): Mail => ({
  ...mail,
  status: "sent",
  attempts: mail.attempts + 1,
  sentAt: at
})

/**
 * `mail` after an attempt at `at` that failed with `error` while the server may take it later:
 * still pending, due again after `retryDelay` of its attempts so far.
 *
 * @since 0.1.0
 * @category transitions
 */
export const retried = (mail: Mail, at: number, error: string): Mail => ({
  ...mail,
  attempts: mail.attempts + 1,
  nextAttemptAt: at + Duration.toMillis(retryDelay(mail.attempts + 1)),
  lastError: error
})

/** `mail` after an attempt that the server refused for good with `error`: failed, never tried again. @since 0.1.0 @category transitions */
export const refused = (mail: Mail, error: string): Mail => ({
  ...mail,
  status: "failed",
  attempts: mail.attempts + 1,
  lastError: error
})
