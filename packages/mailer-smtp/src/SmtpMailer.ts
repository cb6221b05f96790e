/**
 * The SMTP `Mailer` of `@sendline/core`, through nodemailer: each mail goes to the server of an
 * `smtp://` or `smtps://` URL, credentials in the URL. `smtps://` speaks TLS from the first byte
 * (port 465 by default); `smtp://` starts in the clear (port 587 by default) and upgrades with
 * STARTTLS whenever the server offers it, checking the server's certificate either way.
 *
 * A send that cannot reach the server, times out, or is answered 4xx (or whose credentials the
 * server refuses) fails `Unavailable`: the MailSender tries it again later. One the server refuses
 * for good (its recipient or its content, a 5xx answer to `RCPT TO` or the message) fails
 * `Rejected`. No error or log line holds the URL's credentials.
 *
 * @since 0.1.0
 */
import { Mailer } from "@sendline/core"
import type { Mail } from "@sendline/core"
import type { ConfigError } from "effect"
import { Config, Duration, Effect, Either, Layer, Redacted } from "effect"
import { createTransport } from "nodemailer"

/** Where and as whom mail is sent. @since 0.1.0 @category models */
export interface Options {
  /** `smtp[s]://[user[:password]@]host[:port]`, user and password percent-encoded. */
  readonly url: Redacted.Redacted<string>
  /** The `From` of every mail: `sendline@example.com` or `Sendline <sendline@example.com>`. */
  readonly from: string
  /** How long each step may take: connecting, the greeting, each answer (default 10 seconds). */
  readonly timeout?: Duration.DurationInput | undefined
}

/** The default `timeout`: a server that does not answer within it is unavailable. @since 0.1.0 @category constants */
export const defaultTimeout: Duration.Duration = Duration.seconds(10)

/** Where the SMTP server is and how to reach it, as `parse` reads it from the URL. @since 0.1.0 @category models */
export interface Server {
  readonly host: string
  readonly port: number
  /** TLS from the first byte (`smtps://`), rather than STARTTLS. */
  readonly secure: boolean
  readonly auth: { readonly user: string; readonly pass: string } | undefined
}

/**
 * Reads `url`: `smtps://` is TLS (port 465 unless given), `smtp://` STARTTLS when offered (port 587
 * unless given); a user and password, percent-decoded, are the credentials. Any other scheme, no
 * host, or a query or fragment is refused with the problem ("must start smtp:// or smtps://"),
 * never the URL's text, which may hold a password.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (url: Redacted.Redacted<string>): Either.Either<Server, string> => {
  let parsed: URL
  try {
    parsed = new URL(Redacted.value(url))
  } catch {
    return Either.left("is not a URL")
  }
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") return Either.left("must start smtp:// or smtps://")
  if (parsed.hostname === "") return Either.left("names no host")
  if (parsed.search !== "" || parsed.hash !== "") return Either.left("takes no query or fragment")
  const secure = parsed.protocol === "smtps:"
  return Either.right({
    // an IPv6 address in its URL brackets: the socket wants it bare
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? (secure ? 465 : 587) : Number(parsed.port),
    secure,
    auth: parsed.username === ""
      ? undefined
      : { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) }
  })
}

/**
 * Where `url` points, `smtps://host:port`, never its user or password: for logs and errors (an
 * unreadable URL is "an unreadable SMTP URL").
 *
 * @since 0.1.0
 * @category formatting
 */
export const location = (url: Redacted.Redacted<string>): string =>
  Either.match(parse(url), {
    onLeft: () => "an unreadable SMTP URL",
    onRight: ({ host, port, secure }) =>
      `${secure ? "smtps" : "smtp"}://${host.includes(":") ? `[${host}]` : host}:${port}`
  })

/** What nodemailer's errors carry beside their message. */
interface SmtpFailure {
  readonly message?: unknown
  readonly code?: unknown
  readonly responseCode?: unknown
  readonly command?: unknown
}

/**
 * Whether the server refused this mail for good: a 5xx answer (or a refusal before asking) about
 * its recipient or its content. A refused sender (`MAIL FROM`) is the configuration's, not the
 * mail's: it is `Unavailable`, sent once the configuration is fixed.
 */
const refusedForGood = ({ code, command, responseCode }: SmtpFailure): boolean =>
  (code === "EENVELOPE" && command !== "MAIL FROM" || code === "EMESSAGE") &&
  (typeof responseCode !== "number" || responseCode >= 500)

/**
 * A nodemailer failure as core's `MailerError`, its message with any occurrence of `secret` (the
 * URL's password) masked.
 *
 * @since 0.1.0
 * @category errors
 */
export const toMailerError = (failure: unknown, secret: string | undefined): Mailer.MailerError => {
  const details = (typeof failure === "object" && failure !== null ? failure : {}) as SmtpFailure
  const text = typeof details.message === "string" ? details.message : String(failure)
  const message = secret === undefined || secret === "" ? text : text.split(secret).join("***")
  return new Mailer.MailerError({ reason: refusedForGood(details) ? "Rejected" : "Unavailable", message })
}

/** The domain of a `From` address, for the Message-ID: `example.com` of `Sendline <sendline@example.com>`. */
const domainOf = (from: string): string => /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? "sendline.invalid"

/**
 * A `Mailer` on the SMTP server of `options.url`, a connection per mail. A mail's Message-ID is
 * made of its id, so that a mail sent again (at least once, see `MailSender`) is recognisably the
 * same. The transport is closed when the scope ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const smtp = yield* Either.match(parse(options.url), {
      onLeft: (problem) => Effect.dieMessage(`The SMTP URL ${problem}`),
      onRight: Effect.succeed
    })
    const timeout = Duration.toMillis(options.timeout ?? defaultTimeout)
    const transport = yield* Effect.acquireRelease(
      Effect.sync(() =>
        createTransport({
          host: smtp.host,
          port: smtp.port,
          secure: smtp.secure,
          ...(smtp.auth === undefined ? {} : { auth: { user: smtp.auth.user, pass: smtp.auth.pass } }),
          connectionTimeout: timeout,
          greetingTimeout: timeout,
          socketTimeout: timeout,
          dnsTimeout: timeout
        })
      ),
      (transport) => Effect.sync(() => transport.close())
    )
    const messageDomain = domainOf(options.from)
    const send = (mail: Mail.Mail) =>
      Effect.tryPromise({
        try: () =>
          transport.sendMail({
            from: options.from,
            to: mail.to,
            subject: mail.subject,
            text: mail.text,
            messageId: `<${mail.id}@${messageDomain}>`
          }),
        catch: (failure) => toMailerError(failure, smtp.auth?.pass)
      }).pipe(Effect.asVoid)
    return Mailer.Mailer.of({ send })
  })

/**
 * The SMTP mailer as a layer; a URL that `parse` refuses is a defect at build, naming the problem,
 * never the URL.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Mailer.Mailer> => Layer.scoped(Mailer.Mailer, make(options))

/** `layer` with its options read from configuration. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Mailer.Mailer, ConfigError.ConfigError> => Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
