/**
 * Handlers of the messages group: decode → core `Messaging` → envelope.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { Messaging } from "@sendline/core"
import { Effect } from "effect"
import { Api, CurrentPrincipal } from "../Api.js"
import * as Idempotent from "../Idempotent.js"
import * as Json from "../Json.js"
import * as Respond from "../Respond.js"

/** The messages group's handlers, over `Messaging` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(Api, "messages", (handlers) =>
  Effect.gen(function*() {
    const messaging = yield* Messaging.Messaging
    return handlers
      .handle("send", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, (idempotencyKey) =>
            messaging.send(principal, {
              to: payload.to,
              senderId: payload.sender_id,
              body: payload.body,
              market: payload.market,
              reference: payload.reference,
              callbackUrl: payload.callback_url,
              scheduledAt: payload.scheduled_at,
              idempotencyKey
            }).pipe(Effect.flatMap((message) => Respond.envelope(201, Json.messageFull(message)))))))
      .handle("preview", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            messaging.preview(principal, payload).pipe(
              Effect.flatMap((preview) => Respond.envelope(200, Json.preview(preview)))
            ))))
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          messaging.list(principal, {
            filter: {
              market: q.market,
              status: q.status,
              senderId: q.sender_id,
              reference: q.reference,
              from: q.from,
              to: q.to
            },
            cursor: q.cursor,
            pageSize: q.page_size
          }).pipe(
            Effect.flatMap((page) => Respond.page(page, Json.messageItem)),
            Effect.map((body) => Respond.toResponse(body))
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          messaging.get(principal, path.id).pipe(
            Effect.flatMap((message) => Respond.envelope(200, Json.messageFull(message))),
            Effect.map((body) => Respond.toResponse(body))
          )))
      .handle("cancel", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            messaging.cancel(principal, path.id).pipe(
              Effect.flatMap((message) => Respond.envelope(200, Json.messageFull(message)))
            ))))
  }))
