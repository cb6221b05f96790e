/**
 * A deterministic carrier simulator implementing core's `Carrier` and `DeliveryReportInbox` ports:
 * it answers submissions and holds their delivery reports until they are taken. What happens to a
 * message depends only on the last four digits of its recipient (see `rules`); latency, report
 * delay and the throughput cap run on Effect's `Clock`, so `TestClock` drives them. Every submission
 * is journaled, in memory (for ever, or for `retain`) and optionally in a file that outlives the
 * process.
 *
 * @since 0.1.0
 */
import { Carrier, DeliveryReportInbox, type Message } from "@sendline/core"
import type { ConfigError } from "effect"
import { Clock, Config, Context, Duration, Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import { dirname } from "node:path"

/** A recipient ending in these digits is accepted and reported `undelivered` (`absent_subscriber`). @since 0.1.0 @category rules */
export const undeliveredSuffix = "0000"
/** A recipient ending in these digits is refused at submit (`invalid_destination`). @since 0.1.0 @category rules */
export const refusedSuffix = "9999"
/** A recipient ending in these digits is accepted and never reported. @since 0.1.0 @category rules */
export const silentSuffix = "5555"
/** A recipient ending in these digits is unavailable on its first submission, accepted on the next. @since 0.1.0 @category rules */
export const flakySuffix = "7777"

/**
 * A normalised error (CONTRACT §11) the mock answers for the recipients ending in `suffix`: a
 * refusal at submit (`CarrierRefused`, `failover` when it is about the route rather than the
 * recipient or the content) or an `undelivered` report. Its `carrier_code` is `sim:<code>`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Failure {
  readonly suffix: string
  readonly at: "submit" | "report"
  readonly code: string
  readonly message: string
  readonly failover: boolean
}

/** Every failure the mock simulates, one suffix each. @since 0.2.0 @category rules */
export const failures: ReadonlyArray<Failure> = [
  {
    suffix: refusedSuffix,
    at: "submit",
    code: "invalid_destination",
    message: "The carrier refused the destination number.",
    failover: false
  },
  {
    suffix: "2222",
    at: "submit",
    code: "barred",
    message: "The destination is barred from receiving messages.",
    failover: false
  },
  {
    suffix: "3333",
    at: "submit",
    code: "blocked_content",
    message: "The carrier blocked the message's content.",
    failover: false
  },
  {
    suffix: "4444",
    at: "submit",
    code: "sender_not_allowed",
    message: "The carrier does not allow this sender on the account.",
    failover: true
  },
  {
    suffix: "8888",
    at: "submit",
    code: "rejected_by_carrier",
    message: "The carrier rejected the message.",
    failover: true
  },
  {
    suffix: undeliveredSuffix,
    at: "report",
    code: "absent_subscriber",
    message: "The handset was unreachable until the message expired.",
    failover: false
  },
  {
    suffix: "1111",
    at: "report",
    code: "unknown_subscriber",
    message: "The network does not know the subscriber.",
    failover: false
  },
  {
    suffix: "6666",
    at: "report",
    code: "expired",
    message: "The message expired before it could be delivered.",
    failover: false
  },
  {
    suffix: "0500",
    at: "report",
    code: "carrier_error",
    message: "The carrier failed to deliver the message.",
    failover: false
  }
]

/** The failure the mock simulates for a recipient, if any. @since 0.2.0 @category rules */
export const failureFor = (to: string): Failure | undefined => failures.find((failure) => to.endsWith(failure.suffix))

/** A failure as a message's `error`: `{ code, message, carrier_code }`. @since 0.2.0 @category rules */
export const errorOf = (failure: Failure): typeof Message.MessageError.Type => ({
  code: failure.code,
  message: failure.message,
  carrier_code: `sim:${failure.code}`
})

/** The `error` of a refusal at submit of a `9999`. @since 0.1.0 @category rules */
export const refusedError: typeof Message.MessageError.Type = errorOf(failureFor(refusedSuffix)!)
/** The `error` of an `undelivered` report of a `0000`. @since 0.1.0 @category rules */
export const undeliveredError: typeof Message.MessageError.Type = errorOf(failureFor(undeliveredSuffix)!)

/** What the mock does with a recipient. @since 0.1.0 @category rules */
export type Rule = "deliver" | "undeliver" | "refuse" | "silent" | "flaky"

/** The rule for a recipient, by its last four digits (`failures` and the suffixes above); anything else is delivered. @since 0.1.0 @category rules */
export const ruleFor = (to: string): Rule => {
  const failure = failureFor(to)
  if (failure !== undefined) return failure.at === "submit" ? "refuse" : "undeliver"
  return to.endsWith(silentSuffix) ? "silent" : to.endsWith(flakySuffix) ? "flaky" : "deliver"
}

/** Mock settings. @since 0.1.0 @category models */
export interface Options {
  /** Clock time each submission takes before the answer (default 0). */
  readonly submitLatency?: Duration.DurationInput | undefined
  /** Clock time from acceptance to the delivery report (default 2 seconds). */
  readonly reportDelay?: Duration.DurationInput | undefined
  /** Submissions per second (> 0) before `CarrierUnavailable` "throttled" (token bucket; default no cap). */
  readonly maxPerSecond?: number | undefined
  /**
   * A JSON-lines file the journal is appended to. When it exists at start, the mock remembers it:
   * accepted references stay deduped and their reports are due again, as a real carrier that
   * outlived the crash of its client would. Its directory is created; a file that cannot be
   * written fails the mock at start with `JournalUnavailable`.
   */
  readonly journalPath?: string | undefined
  /**
   * How long (Clock time) the mock remembers a submission: its journal entry and, for an accepted
   * one, the reference it dedupes on. Default: for ever, as tests read the whole journal; a
   * long-running server sets a window, as a real carrier's dedupe window.
   */
  readonly retain?: Duration.DurationInput | undefined
}

/** How the mock answered a submission. @since 0.1.0 @category models */
export type Decision = "accepted" | "duplicate" | "refused" | "unavailable" | "throttled"

/** One submission as the mock saw it. Only `accepted` ones are sent and charged. @since 0.1.0 @category models */
export interface JournalEntry {
  /** When the mock answered (epoch milliseconds, Clock). */
  readonly at: number
  readonly reference: string
  readonly accountId: string
  readonly to: string
  readonly segments: number
  readonly decision: Decision
  readonly carrierMessageId?: string
  readonly code?: string
}

/** The mock's test view. @since 0.1.0 @category services */
export class CarrierMock extends Context.Tag("@sendline/carrier-mock/CarrierMock")<CarrierMock, {
  /** Every remembered submission, oldest first. */
  readonly journal: Effect.Effect<ReadonlyArray<JournalEntry>>
  /** Reports not taken yet, due or not, by due time. */
  readonly pendingReports: Effect.Effect<ReadonlyArray<DeliveryReportInbox.DeliveryReport>>
  /** Segments charged: the sum over remembered accepted submissions (duplicates are free). */
  readonly charged: Effect.Effect<number>
  /** Adds a report as if the network had sent it (for unknown or repeated reports in tests). */
  readonly injectReport: (report: DeliveryReportInbox.DeliveryReport) => Effect.Effect<void>
}>() {}

/** Whether a journal entry is a sent (and charged) message. @since 0.1.0 @category filters */
export const isAccepted = (entry: JournalEntry): boolean => entry.decision === "accepted"

const parseJournal = (path: string): ReadonlyArray<JournalEntry> => {
  if (!fs.existsSync(path)) return []
  const text = fs.readFileSync(path, "utf8")
  // end a line cut short by a crash, so that the next entry starts on a line of its own
  if (text.length > 0 && !text.endsWith("\n")) fs.appendFileSync(path, "\n")
  const entries: Array<JournalEntry> = []
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    try {
      entries.push(JSON.parse(line) as JournalEntry)
    } catch {
      // a line cut short by a crash: the submission it began to record was never answered
    }
  }
  return entries
}

/** The journal file cannot be read or written (its message names the file and the reason). @since 0.1.0 @category errors */
export class JournalUnavailable
  extends Schema.TaggedError<JournalUnavailable>("@sendline/carrier-mock/JournalUnavailable")("JournalUnavailable", {
    message: Schema.String
  })
{}

// Makes the journal's directory and its missing parents, its owner's only. Not Node's `recursive`
// mkdir: it never returns where mkdir answers ENOENT for a parent that exists (under `/proc`).
const makeDirectory = (directory: string): void => {
  const found = fs.statSync(directory, { throwIfNoEntry: false })
  if (found?.isDirectory() === true) return
  if (found === undefined && dirname(directory) !== directory) makeDirectory(dirname(directory))
  fs.mkdirSync(directory, { mode: 0o700 }) // a file in its place: EEXIST
}

// The journal's entries so far, its directory created and the file checked writable at start, so
// that a bad path stops the server at once rather than every submission later.
const openJournal = (path: string) =>
  Effect.try({
    try: () => {
      makeDirectory(dirname(path))
      const entries = parseJournal(path)
      // Created readable by its owner only: it holds the phone number of every submission.
      fs.appendFileSync(path, "", { mode: 0o600 })
      return entries
    },
    catch: (cause) =>
      new JournalUnavailable({ message: `Cannot use the carrier journal at ${path} (${(cause as Error).message})` })
  })

/** The mock's three faces: the `Carrier` and `DeliveryReportInbox` ports and the `CarrierMock` test view. @since 0.1.0 @category constructors */
export const make = (
  options: Options = {}
): Effect.Effect<Carrier.Made<Context.Tag.Service<CarrierMock>>, JournalUnavailable> =>
  Effect.flatMap(
    Effect.all([
      options.journalPath === undefined ? Effect.succeed([]) : openJournal(options.journalPath),
      Clock.currentTimeMillis
    ]),
    ([journaled, startedAt]) =>
      Effect.sync(() => {
        const latency = Duration.decode(options.submitLatency ?? 0)
        const reportDelay = Duration.toMillis(options.reportDelay ?? "2 seconds")
        const cap = options.maxPerSecond ?? Infinity
        const retain = options.retain === undefined ? undefined : Duration.toMillis(options.retain)
        // remembered entries are journal[head..]; the forgotten prefix is spliced off now and then
        const journal: Array<JournalEntry> = []
        let head = 0
        const accepted = new Map<string, Carrier.CarrierReceipt>()
        const flakySeen = new Set<string>()
        let pending: Array<DeliveryReportInbox.DeliveryReport> = []
        let counter = 0
        // The throughput cap: a token bucket of `cap` a second holding a second's worth (at least one
        // token), full at start and refilled continuously from the Clock (no cap: an endless bucket).
        const capacity = Math.max(1, cap)
        let tokens = capacity
        let refilledAt = startedAt

        const schedule = (entry: JournalEntry, carrierMessageId: string) => {
          const rule = ruleFor(entry.to)
          if (rule === "silent") return
          const report: DeliveryReportInbox.DeliveryReport = {
            reference: entry.reference,
            accountId: entry.accountId,
            carrierMessageId,
            outcome: rule === "undeliver" ? "undelivered" : "delivered",
            ...(rule === "undeliver" ? { error: errorOf(failureFor(entry.to)!) } : {}),
            at: entry.at + reportDelay
          }
          pending.push(report)
        }

        const remember = (entry: JournalEntry) => {
          journal.push(entry)
          if (entry.decision === "unavailable") flakySeen.add(entry.reference)
          if (entry.decision === "accepted" && entry.carrierMessageId !== undefined) {
            accepted.set(entry.reference, {
              carrierMessageId: entry.carrierMessageId,
              acceptedAt: entry.at,
              duplicate: false
            })
            schedule(entry, entry.carrierMessageId)
          }
        }

        // Forgets, oldest first, the entries answered before `now - retain`. Entries are journaled in
        // about `at` order (a throttled answer can come before a slower accepted one), so this stops at
        // the first entry still in the window: an out-of-order one is forgotten a little later.
        const forget = (now: number) => {
          if (retain === undefined) return
          const cutoff = now - retain
          while (head < journal.length && journal[head]!.at < cutoff) {
            const entry = journal[head++]!
            if (
              entry.decision === "accepted" &&
              accepted.get(entry.reference)?.carrierMessageId === entry.carrierMessageId
            ) {
              accepted.delete(entry.reference)
            }
            if (entry.decision === "unavailable") flakySeen.delete(entry.reference)
          }
          if (head === journal.length) {
            journal.length = 0
            head = 0
          } else if (head > 64 && head * 2 > journal.length) {
            journal.splice(0, head)
            head = 0
          }
        }

        // The file keeps every submission; the mock takes back only those still in its window (their
        // dedupe and their reports), and counts every acceptance so that carrier ids stay unique.
        const loadedFrom = retain === undefined ? -Infinity : startedAt - retain
        for (const entry of journaled) {
          if (entry.at >= loadedFrom) remember(entry)
          if (entry.decision === "accepted") counter++
        }

        const record = (entry: JournalEntry) => {
          remember(entry)
          if (options.journalPath !== undefined) fs.appendFileSync(options.journalPath, JSON.stringify(entry) + "\n")
        }

        const refill = (now: number): void => {
          if (now > refilledAt) {
            tokens = Math.min(capacity, tokens + ((now - refilledAt) / 1000) * cap)
            refilledAt = now
          }
        }

        const takeToken = (now: number): boolean => {
          refill(now)
          if (tokens < 1) return false
          tokens -= 1
          return true
        }

        const entryFor = (
          message: Carrier.Outbound,
          at: number,
          decision: Decision,
          extra: Partial<JournalEntry> = {}
        ) => ({
          at,
          reference: message.reference,
          accountId: message.accountId,
          to: message.to,
          segments: message.segments,
          decision,
          ...extra
        })

        // The answer is decided in one synchronous step, so that concurrent submissions of one
        // reference see each other: the first is accepted, the others are duplicates.
        const decide = (message: Carrier.Outbound, now: number) =>
          Effect.suspend(
            (): Effect.Effect<Carrier.CarrierReceipt, Carrier.CarrierRefused | Carrier.CarrierUnavailable> => {
              forget(now) // before the lookup, so that a reference past the window is new again
              const first = accepted.get(message.reference)
              if (first !== undefined) {
                record(entryFor(message, now, "duplicate", { carrierMessageId: first.carrierMessageId }))
                return Effect.succeed({ ...first, duplicate: true })
              }
              const failure = failureFor(message.to)
              if (failure?.at === "submit") {
                record(entryFor(message, now, "refused", { code: failure.code }))
                return Effect.fail(
                  new Carrier.CarrierRefused({
                    code: failure.code,
                    message: failure.message,
                    carrierCode: errorOf(failure).carrier_code,
                    failover: failure.failover
                  })
                )
              }
              const rule = ruleFor(message.to)
              if (rule === "flaky" && !flakySeen.has(message.reference)) {
                record(entryFor(message, now, "unavailable"))
                return Effect.fail(
                  new Carrier.CarrierUnavailable({
                    reason: "unavailable",
                    message: "The route is temporarily unavailable."
                  })
                )
              }
              const carrierMessageId = `mock_${String(++counter).padStart(8, "0")}`
              record(entryFor(message, now, "accepted", { carrierMessageId }))
              return Effect.succeed({ carrierMessageId, acceptedAt: now, duplicate: false })
            }
          )

        const submit = (message: Carrier.Outbound) =>
          Effect.gen(function*() {
            const arrived = yield* Clock.currentTimeMillis
            if (!takeToken(arrived)) {
              forget(arrived)
              record(entryFor(message, arrived, "throttled"))
              return yield* new Carrier.CarrierUnavailable({
                reason: "throttled",
                message: `Over the carrier's limit of ${cap} submissions per second.`
              })
            }
            if (Duration.toMillis(latency) > 0) yield* Effect.sleep(latency)
            return yield* decide(message, yield* Clock.currentTimeMillis)
          })

        const take = (max: number) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const due = pending.filter((r) => r.at <= now).sort((a, b) => a.at - b.at).slice(0, Math.max(0, max))
            if (due.length > 0) {
              const taken = new Set(due)
              pending = pending.filter((r) => !taken.has(r))
            }
            return due
          })

        // bound, but throttled while the bucket holds no token: the router passes it over until it refills
        const status = Effect.map(Clock.currentTimeMillis, (now): Carrier.CarrierStatus => {
          refill(now)
          return { state: tokens < 1 ? "throttled" : "bound" }
        })

        const carrier = Carrier.Carrier.of({ submit, status })
        const inbox = DeliveryReportInbox.DeliveryReportInbox.of({ take })
        const mock = CarrierMock.of({
          journal: Effect.sync(() => journal.slice(head)),
          pendingReports: Effect.sync(() => [...pending].sort((a, b) => a.at - b.at)),
          charged: Effect.sync(() => {
            let sum = 0
            for (let i = head; i < journal.length; i++) if (isAccepted(journal[i]!)) sum += journal[i]!.segments
            return sum
          }),
          injectReport: (report) => Effect.sync(() => void pending.push(report))
        })
        return { carrier, inbox, view: mock }
      })
  )

/** The ports the mock provides, with its test view. @since 0.1.0 @category models */
export type Provides = Carrier.Carrier | DeliveryReportInbox.DeliveryReportInbox | CarrierMock

/** The mock as the `Carrier` and its `DeliveryReportInbox`, with its `CarrierMock` test view. @since 0.1.0 @category layers */
export const layer = (options: Options = {}): Layer.Layer<Provides, JournalUnavailable> =>
  Carrier.layerOf(CarrierMock, make(options))

/** `layer` with the options read from `config`. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<Provides, JournalUnavailable | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
