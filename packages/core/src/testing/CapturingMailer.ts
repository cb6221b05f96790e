/**
 * A `Mailer` for tests: keeps every mail it is given, and can be told to be down (every send fails
 * `Unavailable`, as a mail server that cannot be reached) or to refuse (`Rejected`), so that a test
 * reads what was sent and drives the MailSender's retries.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Ref } from "effect"
import type { Mail } from "../mail/Mail.js"
import { Mailer, MailerError } from "../mail/Mailer.js"

/** How the capturing mailer answers: takes every mail, or fails each with that reason. @since 0.1.0 @category models */
export type Mode = "up" | MailerError["reason"]

/** The test's view of the capturing mailer. @since 0.1.0 @category services */
export class CapturingMailer extends Context.Tag("@sendline/core/testing/CapturingMailer")<CapturingMailer, {
  /** The mails it took, in the order it took them. */
  readonly sent: Effect.Effect<ReadonlyArray<Mail>>
  /** How many sends it was asked for, taken or not. */
  readonly attempts: Effect.Effect<number>
  /** How it answers from now on. */
  readonly setMode: (mode: Mode) => Effect.Effect<void>
}>() {}

/** A `Mailer` that captures, and its `CapturingMailer` view; up at first. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Mailer | CapturingMailer> = Layer.effectContext(Effect.gen(function*() {
  const sent = yield* Ref.make<ReadonlyArray<Mail>>([])
  const attempts = yield* Ref.make(0)
  const mode = yield* Ref.make<Mode>("up")
  const send = (mail: Mail) =>
    Effect.zipRight(
      Ref.update(attempts, (n) => n + 1),
      Effect.flatMap(Ref.get(mode), (now) =>
        now === "up"
          ? Ref.update(sent, (all) => [...all, mail])
          : Effect.fail(
            new MailerError({
              reason: now,
              message: now === "Rejected" ? "550 no such mailbox" : "connect ECONNREFUSED"
            })
          ))
    )
  return Context.make(Mailer, Mailer.of({ send })).pipe(
    Context.add(
      CapturingMailer,
      CapturingMailer.of({ sent: Ref.get(sent), attempts: Ref.get(attempts), setMode: (m) => Ref.set(mode, m) })
    )
  )
}))
