/**
 * The usage group of `/v1` (CONTRACT §12): an account's spend of a month, by currency, with its limits.
 *
 * @since 0.2.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Envelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { needs, v1 } from "../middleware/Pipeline.js"

const Amount = (description: string) => Fields.text({ description, pattern: "^\\d+\\.\\d{4}$", examples: ["12.3500"] })

/** Query of `GET /v1/usage`. @since 0.2.0 @category requests */
export const UsageQuery = Schema.Struct({
  month: Schema.optional(
    Fields.text({ description: "The month, YYYY-MM (UTC); the current one when absent.", examples: ["2026-11"] })
  )
}).annotations({ parseOptions: { errors: "all" } })

/** One currency of a month's usage. @since 0.2.0 @category resources */
export const UsageLine = Schema.Struct({
  currency: Fields.text({ description: "An ISO 4217 currency code.", examples: ["AUD"] }),
  amount: Amount(
    "The month's spend: the price of the messages accepted in it, less those cancelled or failed before dispatch."
  ),
  limit: Schema.NullOr(Amount("The account's monthly limit in this currency; null without one.")),
  messages: Schema.Int,
  segments: Schema.Int
}).annotations({ identifier: "UsageLine" })

/** What `GET /v1/usage` answers. @since 0.2.0 @category resources */
export const Usage = Schema.Struct({
  month: Fields.text({ description: "The month, YYYY-MM (UTC).", examples: ["2026-11"] }),
  spend: Schema.Array(UsageLine)
}).annotations({ identifier: "Usage" })

/** The usage group. @since 0.2.0 @category groups */
export class UsageApi extends v1(
  HttpApiGroup.make("usage")
    .annotate(OpenApi.Description, "What an account has spent in a month, by currency, beside its spending limits.")
    .add(
      HttpApiEndpoint.get("get", "/usage")
        .setUrlParams(UsageQuery)
        .addSuccess(Envelope(Usage))
        .annotate(OpenApi.Summary, "Get the spend of a month")
        .annotateContext(needs("messaging:read"))
    )
) {}
