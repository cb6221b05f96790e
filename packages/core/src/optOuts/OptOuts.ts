/**
 * The opt-outs use case (CONTRACT §12): listing a number an account's messages must not reach,
 * reading, listing and deleting the account's opt-outs, and importing them from CSV in chunks.
 * Numbers are E.164 once `Phone.normalise`d, by the parser sending uses: `+61 412 345 678` and
 * `+61412345678` are one entry. Another account's opt-out is not found, as an unlisted number is.
 *
 * @since 0.2.0
 */
import {
  invalidParameter,
  type InvalidRequest,
  NotFound,
  type PermissionDenied,
  rule,
  type RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { maxInvalidReported, maxReasonLength } from "@sendline/api/optOuts/OptOutsJson"
import { Clock, Context, Effect, Layer, Option, Scheduler, Stream } from "effect"
import type { Principal } from "../accounts/Account.js"
import { requirePermission } from "../accounts/Auth.js"
import { codePoints, loneSurrogate, notWellFormed } from "../internal/text.js"
import * as UseCase from "../internal/useCase.js"
import * as Pagination from "../Pagination.js"
import * as Phone from "../Phone.js"
import type { OptOut, OptOutFilter } from "./OptOut.js"
import { type Added, OptOutStore } from "./OptOutStore.js"

/** A new opt-out, as `POST /v1/opt-outs` takes it. @since 0.2.0 @category models */
export interface AddOptOut {
  readonly phone: string
  readonly reason?: string | undefined
}

/** A line of an import whose first column is no valid number: its number, from 1 over every line. @since 0.2.0 @category models */
export interface InvalidLine {
  readonly line: number
  readonly value: string
}

/** What an import did. @since 0.2.0 @category models */
export interface Imported {
  /** Numbers added to the list. */
  readonly imported: number
  /** Valid numbers listed already, or repeated in the file. */
  readonly alreadyListed: number
  /** The first `maxInvalidReported` lines without a valid number. */
  readonly invalid: ReadonlyArray<InvalidLine>
}

/** Numbers written per transaction of an import. @since 0.2.0 @category constants */
export const importChunk = 1_000

/**
 * Numbers of an import checked between two turns of the event loop: ~10 ms of parsing (a number
 * costs ~40 µs to check), so that other requests wait that long at most behind an import, not a
 * chunk's whole parse. Blank lines cost nothing and are not counted: a turn is a timer's (at least
 * 1 ms), and a turn every 250 lines of a file of blank lines took 40 s for 10 MiB.
 */
const numbersPerTurn = 250

/**
 * Lets every task waiting on the event loop run (a timer's turn, not a microtask): other fibers, and
 * the I/O of other requests, which a body already buffered would otherwise keep waiting until the
 * whole import is read. No `Clock` is involved, so it is instant under a TestClock.
 */
const yieldToEventLoop = Effect.yieldNow().pipe(Effect.withScheduler(Scheduler.timer(0)))

/** The longest first column an import reports back, in characters; a longer one is cut. */
const maxValueReported = 100

/** The opt-outs use case. @since 0.2.0 @category services */
export class OptOuts extends Context.Tag("@sendline/core/OptOuts")<OptOuts, {
  /** Lists the number for the caller's account (`source: "api"`), unless listed already: the entry as stored, and whether this created it. */
  readonly add: (
    principal: Principal,
    input: AddOptOut
  ) => Effect.Effect<Added, RuleViolation | InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The caller's opt-outs that `filter` keeps (its `phone` normalised), newest first. */
  readonly list: (
    principal: Principal,
    filter: OptOutFilter,
    paging: Pagination.Paging
  ) => Effect.Effect<
    Pagination.Page<OptOut>,
    RuleViolation | InvalidRequest | PermissionDenied | StoreUnavailable
  >
  /** The caller's entry for the number; not found when the account does not list it. */
  readonly get: (
    principal: Principal,
    phone: string
  ) => Effect.Effect<OptOut, RuleViolation | NotFound | PermissionDenied | StoreUnavailable>
  /** Takes the number off the caller's list: its E.164 form; not found when it was not listed. */
  readonly delete: (
    principal: Principal,
    phone: string
  ) => Effect.Effect<string, RuleViolation | NotFound | PermissionDenied | StoreUnavailable>
  /**
   * Imports the CSV `csv` (its text, in pieces as read) into the caller's list (`source:
   * "import"`): a number in the first column of each line; a header (the first non-blank line when
   * its first column has no digit), blank lines, a byte order mark and `\r\n` line ends are
   * ignored. Read as it streams, written `importChunk` numbers per transaction: a failure midway
   * keeps the chunks written before it, and importing again adds only what is missing.
   */
  readonly importCsv: <E>(
    principal: Principal,
    csv: Stream.Stream<string, E>
  ) => Effect.Effect<Imported, E | PermissionDenied | StoreUnavailable>
}>() {}

/** `phone` in E.164, or 422 `invalid_phone_number` on `field`. */
const normalised = (phone: string, field: string): Effect.Effect<string, RuleViolation> => {
  const e164 = Phone.normalise(phone)
  return e164 === undefined
    ? Effect.fail(rule(
      "invalid_phone_number",
      field,
      `${
        JSON.stringify(phone.slice(0, maxValueReported))
      } is not a valid phone number: ${field} must be E.164 (+, country code, number) and valid in its numbering plan.`
    ))
    : Effect.succeed(e164)
}

const notListed = (phone: string) => new NotFound({ message: `${phone} is not on your opt-out list.` })

/** `reason` when at most `maxReasonLength` characters of well-formed Unicode; null when absent. */
const checkReason = (reason: string | undefined): Effect.Effect<string | null, InvalidRequest> => {
  if (reason === undefined) return Effect.succeed(null)
  if (loneSurrogate.test(reason)) return Effect.fail(notWellFormed("reason"))
  return codePoints(reason) > maxReasonLength
    ? Effect.fail(invalidParameter("reason", `reason must be at most ${maxReasonLength} characters.`))
    : Effect.succeed(reason)
}

/** The first column of a CSV line, without its spaces and quotes. */
const firstColumn = (line: string): string => {
  const trimmed = line.trimStart()
  if (trimmed.startsWith("\"")) {
    const end = trimmed.indexOf("\"", 1)
    return (end < 0 ? trimmed.slice(1) : trimmed.slice(1, end)).trim()
  }
  const comma = trimmed.indexOf(",")
  return (comma < 0 ? trimmed : trimmed.slice(0, comma)).trim()
}

/** Builds the opt-outs use case on the opt-out store. @since 0.2.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const store = yield* OptOutStore

  const add = fn("OptOuts.add")(function*(principal: Principal, input: AddOptOut) {
    yield* requirePermission(principal, "opt_outs:write")
    const phone = yield* normalised(input.phone, "phone")
    const reason = yield* checkReason(input.reason)
    return yield* store.add({
      accountId: principal.accountId,
      phone,
      reason,
      source: "api",
      createdAt: yield* Clock.currentTimeMillis
    })
  })

  const list = fn("OptOuts.list")(function*(principal: Principal, filter: OptOutFilter, paging: Pagination.Paging) {
    yield* requirePermission(principal, "opt_outs:read")
    const pageSize = yield* Pagination.pageSizeOf(paging.pageSize)
    const phone = filter.phone === undefined ? undefined : yield* normalised(filter.phone, "phone")
    const kept: OptOutFilter = { phone, source: filter.source, from: filter.from, to: filter.to }
    const filters = { list: "opt_outs", ...kept }
    const after = yield* Pagination.after(paging.cursor, filters)
    const rows = yield* store.list(principal.accountId, kept, after, pageSize + 1)
    return Pagination.of(rows, pageSize, filters, (o) => ({ createdAt: o.createdAt, id: o.phone }))
  })

  const get = fn("OptOuts.get")(function*(principal: Principal, phone: string) {
    yield* requirePermission(principal, "opt_outs:read")
    const e164 = yield* normalised(phone, "phone")
    const found = yield* store.get(principal.accountId, e164)
    return yield* Option.match(found, { onNone: () => Effect.fail(notListed(e164)), onSome: Effect.succeed })
  })

  const delete_ = fn("OptOuts.delete")(function*(principal: Principal, phone: string) {
    yield* requirePermission(principal, "opt_outs:write")
    const e164 = yield* normalised(phone, "phone")
    if (!(yield* store.delete(principal.accountId, e164))) return yield* notListed(e164)
    return e164
  })

  const importCsv = <E>(principal: Principal, csv: Stream.Stream<string, E>) =>
    Effect.gen(function*() {
      yield* requirePermission(principal, "opt_outs:write")
      const at = yield* Clock.currentTimeMillis
      let line = 0
      let seenContent = false
      let valid = 0
      let imported = 0
      let checked = 0
      const invalid: Array<InvalidLine> = []
      let chunk = new Set<string>()
      const flush = Effect.suspend(() => {
        if (chunk.size === 0) return Effect.void
        const phones = [...chunk]
        chunk = new Set()
        // One transaction per chunk; between chunks other requests run (and other writers commit).
        return Effect.zipRight(
          Effect.map(store.addMany(principal.accountId, phones, "import", at), (added) => {
            imported += added
          }),
          yieldToEventLoop
        )
      })
      // One line: its number checked and added to the chunk, which is written once full.
      const take = (text: string) => {
        const column = firstColumn(line === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text)
        if (column === "") return Effect.void
        const isHeader = !seenContent && !/\d/.test(column)
        seenContent = true
        if (isHeader) return Effect.void
        const e164 = Phone.normalise(column)
        const turn = ++checked % numbersPerTurn === 0 ? yieldToEventLoop : Effect.void
        if (e164 === undefined) {
          if (invalid.length < maxInvalidReported) invalid.push({ line, value: column.slice(0, maxValueReported) })
          return turn
        }
        valid++
        chunk.add(e164)
        return chunk.size >= importChunk ? flush : turn
      }
      yield* Stream.splitLines(csv).pipe(
        Stream.runForEach((text) =>
          Effect.suspend(() => {
            line++
            return take(text)
          })
        )
      )
      yield* flush
      return { imported, alreadyListed: valid - imported, invalid } satisfies Imported
    }).pipe(Effect.withSpan("OptOuts.importCsv"))

  return OptOuts.of({ add, list, get, delete: delete_, importCsv })
})

/** `make` as a layer. @since 0.2.0 @category layers */
export const layer: Layer.Layer<OptOuts, never, OptOutStore> = Layer.effect(OptOuts, make)
