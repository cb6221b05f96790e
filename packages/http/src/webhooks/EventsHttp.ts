/**
 * Handlers of the events group: core `EventLog` → envelope, under the request's `Idempotency-Key`
 * for the POST.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { EventsApi } from "@sendline/api/webhooks/EventsApi"
import { EventLog } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"
import * as EventsJson from "./EventsJson.js"

/** The events group's handlers, over `EventLog` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(served(EventsApi), "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* EventLog.EventLog
    return handlers
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          events.list(principal, { type: q.type, createdAfter: q.created_after }, {
            cursor: q.cursor,
            pageSize: q.page_size
          }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, EventsJson.event)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          events.get(principal, path.id).pipe(
            Effect.flatMap((event) => Envelope.success(200, EventsJson.event(event))),
            Effect.map((body) => Envelope.toResponse(body))
          )))
      .handle("redeliver", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            events.redeliver(principal, path.id).pipe(
              Effect.flatMap((deliveries) =>
                Envelope.success(200, EventsJson.redelivered(path.id, deliveries))
              )
            ))))
  }))
