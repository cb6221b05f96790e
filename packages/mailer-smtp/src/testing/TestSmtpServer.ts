/**
 * A real SMTP server in the test's process (the `smtp-server` package) on a loopback port: it
 * keeps every message it receives, with its envelope, and decodes the parts a test reads (subject,
 * body, headers). It refuses any recipient `nobody@…` for good (550), and logins other than its
 * `users`. For a test of mail that must wait for its server: `closedPort` is a port where none
 * listens, and `start({ port })` brings one up there later.
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Effect } from "effect"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

/** A message the server received, as the test reads it. @since 0.1.0 @category models */
export interface Received {
  /** The envelope's sender and recipients. */
  readonly from: string
  readonly to: ReadonlyArray<string>
  /** The user the client logged in as, if it did. */
  readonly user: string | undefined
  /** The message's headers, by lowercase name, unfolded, as UTF-8; encoded words decoded. */
  readonly headers: ReadonlyMap<string, string>
  /** The body, its transfer encoding undone, as UTF-8. */
  readonly text: string
}

/** A running server: its port and what it received so far. @since 0.1.0 @category models */
export interface Running {
  readonly port: number
  readonly received: ReadonlyArray<Received>
}

/** Where the server listens and whom it lets in. @since 0.1.0 @category models */
export interface Options {
  /** The port to listen on (default: one the system picks). */
  readonly port?: number
  /** Users and passwords it accepts; none: it asks for no login. */
  readonly users?: Readonly<Record<string, string>>
}

/** Bytes that quoted-printable `=XX` escapes and underscores stand for. */
const unquote = (text: string, underscoreIsSpace: boolean): string =>
  Buffer.from(
    (underscoreIsSpace ? text.replace(/_/g, " ") : text).replace(/=\r?\n/g, "")
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1"
  ).toString("utf8")

/** A header value with its RFC 2047 encoded words (UTF-8, Q or B) decoded. */
const decodeWords = (value: string): string =>
  value.replace(
    /=\?utf-8\?([qb])\?([^?]*)\?=(\s+(?==\?))?/gi,
    (_, encoding: string, text: string) =>
      encoding.toLowerCase() === "b" ? Buffer.from(text, "base64").toString("utf8") : unquote(text, true)
  )

/** Reads a raw message: headers (unfolded, decoded) and body (its transfer encoding undone). @since 0.1.0 @category parsing */
export const parse = (raw: string): Pick<Received, "headers" | "text"> => {
  const split = raw.indexOf("\r\n\r\n")
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ")
  const headers = new Map<string, string>()
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":")
    // a raw 8-bit header (an internationalised address, under SMTPUTF8) is UTF-8 too
    const value = Buffer.from(line.slice(colon + 1).trim(), "latin1").toString("utf8")
    headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(value))
  }
  const body = raw.slice(split + 4)
  const encoding = headers.get("content-transfer-encoding")?.toLowerCase()
  const text = encoding === "quoted-printable"
    ? unquote(body, false)
    : encoding === "base64"
    ? Buffer.from(body, "base64").toString("utf8")
    : body
  return { headers, text: text.replace(/\r\n/g, "\n") }
}

/** Starts the server on 127.0.0.1; it stops when the scope closes. @since 0.1.0 @category constructors */
export const start = (options: Options = {}): Effect.Effect<Running, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: SMTPServer; readonly running: Running }, Error>((resume) => {
      const received: Array<Received> = []
      const server = new SMTPServer({
        logger: false,
        // plain text on loopback: the client's STARTTLS would check a certificate the test has not
        disabledCommands: options.users === undefined ? ["STARTTLS", "AUTH"] : ["STARTTLS"],
        authOptional: options.users === undefined,
        allowInsecureAuth: true,
        onAuth: (auth, _session, callback) => {
          const user = auth.username ?? ""
          return options.users?.[user] !== undefined && options.users[user] === auth.password
            ? callback(null, { user })
            : callback(new Error("Invalid username or password"))
        },
        onRcptTo: (address, _session, callback) =>
          address.address.startsWith("nobody@")
            ? callback(Object.assign(new Error("No such mailbox"), { responseCode: 550 }))
            : callback(),
        onData: (stream, session, callback) => {
          const chunks: Array<Buffer> = []
          stream.on("data", (chunk: Buffer) => chunks.push(chunk))
          stream.on("end", () => {
            received.push({
              from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((address) => address.address),
              user: typeof session.user === "string" ? session.user : undefined,
              ...parse(Buffer.concat(chunks).toString("latin1"))
            })
            callback()
          })
        }
      })
      server.on("error", (error) => resume(Effect.fail(error)))
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        const port = (server.server.address() as AddressInfo).port
        resume(Effect.succeed({ server, running: { port, received } }))
      })
    }),
    ({ server }) => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
  ).pipe(Effect.map(({ running }) => running))

/** A loopback port where no server listens (one was just there, and closed). @since 0.1.0 @category constructors */
export const closedPort: Effect.Effect<number, Error> = Effect.scoped(Effect.map(start(), (running) => running.port))
