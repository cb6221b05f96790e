/**
 * Handlers of the webhooks group: the declared payload (decoded by HttpApi from the checked body)
 * → core `Webhooks` → envelope, under the request's `Idempotency-Key` for the POSTs.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { WebhooksApi } from "@sendline/api/webhooks/WebhooksApi"
import { Webhooks } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"
import * as DeliveriesJson from "./DeliveriesJson.js"
import * as WebhooksJson from "./WebhooksJson.js"

/** The webhooks group's handlers, over `Webhooks` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(served(WebhooksApi), "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks.Webhooks
    const answer = (status: number) => (subscription: Parameters<typeof WebhooksJson.webhook>[0]) =>
      Envelope.success(status, WebhooksJson.webhook(subscription))
    return handlers
      // A body that does not decode is refused before the idempotency key is taken: not kept.
      .handle("create", ({ payload: body }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            webhooks.create(principal, { url: body.url, events: body.events, secret: body.secret }).pipe(
              Effect.flatMap(answer(201))
            ))))
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          webhooks.list(principal, { cursor: q.cursor, pageSize: q.page_size }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, WebhooksJson.webhook)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          webhooks.get(principal, path.id).pipe(
            Effect.flatMap(answer(200)),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("update", ({ path, payload: patch }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          webhooks.update(principal, path.id, {
            url: patch.url,
            events: patch.events,
            secret: patch.secret,
            status: patch.status
          }).pipe(
            Effect.flatMap(answer(200)),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("delete", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          webhooks.delete(principal, path.id).pipe(
            Effect.flatMap(() =>
              Envelope.success(200, { id: path.id, deleted: true })
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("deliveries", ({ path, urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          webhooks.deliveries(principal, path.id, { eventType: q.event_type, state: q.state }, {
            cursor: q.cursor,
            pageSize: q.page_size
          }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, DeliveriesJson.delivery)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("redeliver", ({ path, payload: body }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            webhooks.redeliver(principal, path.id, body.since).pipe(
              Effect.flatMap((done) =>
                Envelope.success(200, WebhooksJson.redelivered(path.id, done))
              )
            ))))
  }))
