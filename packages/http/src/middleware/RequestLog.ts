/**
 * The request log: one line per answer, at info level (a 5xx at warning level), named by its route
 * template, never its raw path or query: "POST /v1/messaging/messages 201 in 3.12 ms". Its fields,
 * as log annotations: `method`, `route` (absent when no route matched), `status`, `duration_ms`,
 * `account_id` once a key has authenticated, and the `request_id` that every line written while
 * the request is handled carries (`Middleware` annotates them). Never a key, a body or a phone
 * number. A request that ended before its answer (its client went away, or the server is
 * stopping) is no failure of ours: an info line that says so, without a status.
 *
 * @since 0.1.0
 */
import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, FiberRef, LogLevel } from "effect"
import type * as RouteTemplates from "./RouteTemplates.js"

/** What the handling of a request learns for its line: the account of its key, once authenticated. */
interface Learnt {
  accountId: string | undefined
}

/** The current request's `Learnt`, shared by reference with every fiber that handles it. */
const learnt = FiberRef.unsafeMake<Learnt | undefined>(undefined)

/**
 * Names `accountId` in the current request's line (the caller's key has authenticated).
 *
 * @since 0.1.0
 * @category recording
 */
export const noteAccount = (accountId: string): Effect.Effect<void> =>
  Effect.map(FiberRef.get(learnt), (current) => {
    if (current !== undefined) current.accountId = accountId
  })

/** How a request is answered, and whether it ended before its answer. @since 0.1.0 @category models */
export type Answered<E, R> = Effect.Effect<readonly [HttpServerResponse.HttpServerResponse, gone: boolean], E, R>

/** Milliseconds between two readings of `Clock.currentTimeNanos`, to a hundredth. */
const millisBetween = (start: bigint, end: bigint) => Math.round(Number(end - start) / 10_000) / 100

/** The line of one answer, its fields annotated; without a time when it was not measured. */
const line = (
  request: HttpServerRequest.HttpServerRequest,
  find: RouteTemplates.Find,
  [response, gone]: readonly [HttpServerResponse.HttpServerResponse, gone: boolean],
  durationMs: number | undefined,
  learnt: Learnt
) => {
  const route = find(request.method, request.url)
  const took = durationMs === undefined ? "" : ` in ${durationMs} ms`
  const named = `${request.method} ${route ?? "(no route)"}`
  const fields = {
    method: request.method,
    ...(route === undefined ? {} : { route }),
    ...(gone ? {} : { status: response.status }),
    ...(durationMs === undefined ? {} : { duration_ms: durationMs }),
    ...(learnt.accountId === undefined ? {} : { account_id: learnt.accountId })
  }
  const message = gone ? `${named} ended before its answer${took}` : `${named} ${response.status}${took}`
  const log = response.status >= 500 && !gone ? Effect.logWarning(message) : Effect.logInfo(message)
  return Effect.annotateLogs(log, fields)
}

/**
 * Logs the answers of the requests it is given: every one when info lines are kept (as the level
 * is when the server is built), else a 5xx only, and an answer then costs no clock reads.
 *
 * @since 0.1.0
 * @category logging
 */
export const make = Effect.map(FiberRef.get(FiberRef.currentMinimumLogLevel), (level) => {
  const everyAnswer = LogLevel.lessThanEqual(level, LogLevel.Info)
  return <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    find: RouteTemplates.Find,
    answer: Answered<E, R>
  ): Answered<E, R> => {
    const seen: Learnt = { accountId: undefined }
    const logged = everyAnswer
      ? Effect.flatMap(
        Clock.currentTimeNanos,
        (start) =>
          Effect.tap(
            answer,
            (answered) =>
              Effect.flatMap(Clock.currentTimeNanos, (end) =>
                line(request, find, answered, millisBetween(start, end), seen))
          )
      )
      : Effect.tap(
        answer,
        (answered) =>
          answered[0].status >= 500 && !answered[1] ? line(request, find, answered, undefined, seen) : Effect.void
      )
    // set, not scoped: the request's fiber ends with it (see `RequestContext.enter`)
    return Effect.zipRight(FiberRef.set(learnt, seen), logged)
  }
})
