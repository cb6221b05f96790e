/**
 * Handlers of the Sender IDs group: the declared payload (decoded by HttpApi from the checked body)
 * → core `SenderIds` → envelope, every POST under the request's `Idempotency-Key`.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { SenderIdsApi } from "@sendline/api/senderIds/SenderIdsApi"
import { SenderIdJson, SenderIds } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"

/** The Sender IDs group's handlers, over `SenderIds` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(served(SenderIdsApi), "sids", (handlers) =>
  Effect.gen(function*() {
    const sids = yield* SenderIds.SenderIds
    const answer = (status: number) => (sid: Parameters<typeof SenderIdJson.senderId>[0]) =>
      Envelope.success(status, SenderIdJson.senderId(sid))
    return handlers
      // A body that does not decode is refused before the idempotency key is taken: not kept.
      .handle("register", ({ payload: body }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            sids.register(principal, {
              senderId: body.sender_id,
              brandId: body.brand_id,
              market: body.market,
              useCase: body.use_case,
              matchType: body.match_type,
              matchValue: body.match_value
            }).pipe(Effect.flatMap(answer(201))))))
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          sids.list(principal, { status: q.status, market: q.market, cursor: q.cursor, pageSize: q.page_size }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, SenderIdJson.senderId)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          sids.get(principal, path.id).pipe(
            Effect.flatMap(answer(200)),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("resubmit", ({ path, payload: body }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            sids.resubmit(principal, path.id, { useCase: body.use_case, matchValue: body.match_value }).pipe(
              Effect.flatMap(answer(200))
            ))))
      .handle("renew", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            sids.renew(principal, path.id).pipe(Effect.flatMap(answer(200))))))
  }))
