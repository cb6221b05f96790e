/**
 * Handlers of the operator registrations group: query or declared payload (decoded by HttpApi from
 * the checked body) → core `OperatorReview` → envelope, every decision under the request's
 * `Idempotency-Key`.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { OperatorRegistrationsApi } from "@sendline/api/senderIds/OperatorRegistrationsApi"
import { OperatorReview, type Registration, SenderIdJson } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"

/** The operator registrations group's handlers, over `OperatorReview` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(
  served(OperatorRegistrationsApi),
  "operatorRegistrations",
  (handlers) =>
    Effect.gen(function*() {
      const review = yield* OperatorReview.OperatorReview
      const decide = (id: string, decision: Registration.Decision) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            review.decide(principal, id, decision).pipe(
              Effect.flatMap((registration) =>
                Envelope.success(200, SenderIdJson.registration(registration))
              )
            )))
      return handlers
        .handle("list", ({ urlParams: q }) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            review.list(principal, {
              status: q.status,
              market: q.market,
              senderId: q.sender_id,
              brandName: q.brand_name,
              submitterType: q.submitter_type,
              submittedAfter: q.submitted_after,
              submittedBefore: q.submitted_before,
              cursor: q.cursor,
              pageSize: q.page_size
            }).pipe(
              Effect.flatMap((page) => Envelope.page(page, SenderIdJson.registration)),
              Effect.map((body) => Envelope.toResponse(body))
            )))
        .handle("get", ({ path }) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            review.get(principal, path.id).pipe(
              Effect.flatMap((registration) => Envelope.success(200, SenderIdJson.registration(registration))),
              Effect.map((body) => Envelope.toResponse(body))
            )))
        .handle("approve", ({ path }) => decide(path.id, { status: "approved" }))
        .handle("reject", ({ path, payload }) => decide(path.id, { status: "rejected", reason: payload.reason }))
        .handle("requestInfo", ({ path, payload }) =>
          decide(path.id, { status: "info_requested", message: payload.message }))
    })
)
