/**
 * Handler of the usage group: the query → core `Spending` → envelope, amounts as 4-place decimals.
 *
 * @since 0.2.0
 */
import { HttpApiBuilder } from "@effect/platform"
import type { Usage } from "@sendline/api/messaging/UsageApi"
import { UsageApi } from "@sendline/api/messaging/UsageApi"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { Spending } from "@sendline/core"
import { Effect, Option } from "effect"
import * as Envelope from "../envelope/Envelope.js"

/** A month's usage as JSON. @since 0.2.0 @category encoding */
export const usage = (u: Spending.Usage): typeof Usage.Encoded => ({
  month: u.month,
  spend: u.spend.map((line) => ({
    currency: line.currency,
    amount: Spending.fromUnits(line.amount),
    limit: Option.match(line.limit, { onNone: () => null, onSome: Spending.fromUnits }),
    messages: line.messages,
    segments: line.segments
  }))
})

/** The usage group's handler, over `Spending`. @since 0.2.0 @category layers */
export const layer = HttpApiBuilder.group(served(UsageApi), "usage", (handlers) =>
  Effect.gen(function*() {
    const spending = yield* Spending.Spending
    return handlers.handle("get", ({ urlParams }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        spending.usage(principal, urlParams.month).pipe(
          Effect.flatMap((answer) =>
            Envelope.success(200, usage(answer))
          ),
          Effect.map((body) => Envelope.toResponse(body))
        )))
  }))
