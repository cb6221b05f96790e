/**
 * Handlers of the messages group: the declared payload (decoded by HttpApi from the checked body)
 * → core `Messaging` → envelope, under the request's `Idempotency-Key` for the POSTs.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { MessagesApi } from "@sendline/api/messaging/MessagesApi"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { Batches, MessageJson, Messaging } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"
import * as MessagesJson from "./MessagesJson.js"

/** The messages group's handlers, over `Messaging` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(served(MessagesApi), "messages", (handlers) =>
  Effect.gen(function*() {
    const messaging = yield* Messaging.Messaging
    const batches = yield* Batches.Batches
    return handlers
      // A body that does not decode is refused before the idempotency key is taken: not kept.
      .handle("send", ({ payload: send }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, (idempotencyKey) =>
            messaging.send(principal, {
              to: send.to,
              senderId: send.sender_id,
              body: send.body,
              market: send.market,
              reference: send.reference,
              callbackUrl: send.callback_url,
              scheduledAt: send.scheduled_at,
              idempotencyKey
            }).pipe(Effect.flatMap((message) =>
              Envelope.success(201, MessageJson.full(message))
            )))))
      // A batch's answer is kept for its key whole, up to what a 1,000-message answer can be.
      .handle("sendBatch", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, (idempotencyKey) =>
            batches.send(principal, {
              defaults: payload.defaults === undefined ? undefined : {
                senderId: payload.defaults.sender_id,
                market: payload.defaults.market,
                body: payload.defaults.body,
                reference: payload.defaults.reference,
                callbackUrl: payload.defaults.callback_url,
                scheduledAt: payload.defaults.scheduled_at
              },
              messages: payload.messages.map((m) => ({
                to: m.to,
                senderId: m.sender_id,
                market: m.market,
                body: m.body,
                reference: m.reference,
                callbackUrl: m.callback_url,
                scheduledAt: m.scheduled_at,
                variables: m.variables
              })),
              idempotencyKey
            }).pipe(Effect.flatMap((batch) =>
              Envelope.success(201, MessagesJson.batch(batch))
            )), {
            maxKeptBytes: Batches.maxAnswerBytes
          })))
      .handle("getBatch", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          batches.get(principal, path.id).pipe(
            Effect.flatMap((found) =>
              Envelope.success(200, MessagesJson.batchStatus(found))
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      // Preview has no effect and answers a body the same way every time: an answer too large for
      // its key (a long body's UCS-2 characters) is computed again on replay.
      .handle("preview", ({ payload: preview }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            messaging.preview(principal, preview).pipe(
              Effect.flatMap((answer) =>
                Envelope.success(200, MessagesJson.preview(answer))
              )
            ), { withoutEffect: true })))
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          messaging.list(principal, {
            filter: {
              market: q.market,
              status: q.status,
              senderId: q.sender_id,
              reference: q.reference,
              batchId: q.batch_id,
              from: q.from,
              to: q.to
            },
            cursor: q.cursor,
            pageSize: q.page_size
          }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, MessageJson.item)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          messaging.get(principal, path.id).pipe(
            Effect.flatMap((message) =>
              Envelope.success(200, MessageJson.full(message))
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("cancel", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            messaging.cancel(principal, path.id).pipe(
              Effect.flatMap((message) =>
                Envelope.success(200, MessageJson.full(message))
              )
            ))))
  }))
