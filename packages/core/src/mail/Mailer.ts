/**
 * The `Mailer` port: hands one mail to a mail server. Only the `MailSender` worker calls it, with
 * mails from the outbox, so a request never waits on a mail server. `layerLog` (logs each mail) is
 * the default; `@sendline/mailer-smtp` sends through SMTP.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { Mail } from "./Mail.js"

/**
 * A mail the mailer did not send. `Unavailable`: the server could not be reached or did not take
 * it now (down, a timeout, a 4xx answer, refused credentials): try again later. `Rejected`: the
 * server refused this mail for good (its recipient or content, a 5xx answer): trying again cannot
 * help. Its message never holds a credential.
 *
 * @since 0.1.0
 * @category errors
 */
export class MailerError extends Schema.TaggedError<MailerError>("@sendline/core/MailerError")("MailerError", {
  reason: Schema.Literal("Unavailable", "Rejected"),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** Sends mail. @since 0.1.0 @category ports */
export class Mailer extends Context.Tag("@sendline/core/Mailer")<Mailer, {
  /** Hands `mail` (its `to`, `subject`, `text`) to the mail server; succeeds once the server took it. */
  readonly send: (mail: Mail) => Effect.Effect<void, MailerError>
}>() {}

/**
 * A mailer that sends nothing and logs each mail at info level, whole (recipient, subject, body):
 * the default while no mail server is configured, so that what would have been sent can be read.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerLog: Layer.Layer<Mailer> = Layer.succeed(
  Mailer,
  Mailer.of({
    send: (mail) =>
      Effect.logInfo(`Mail to ${mail.to}: ${mail.subject}\n\n${mail.text}`).pipe(Effect.annotateLogs("mail", mail.id))
  })
)
