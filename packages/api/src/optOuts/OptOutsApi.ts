/**
 * The opt-outs group of `/v1` (CONTRACT §12): listing a number the account's messages must not
 * reach, reading, listing and deleting its opt-outs (`opt_outs:read`, `opt_outs:write`), and
 * importing them from a CSV file of up to 10 MiB.
 *
 * @since 0.2.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as WireErrors from "../envelope/WireErrors.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as OptOutsJson from "./OptOutsJson.js"

/** The opt-outs group. @since 0.2.0 @category groups */
export class OptOutsApi extends v1(
  HttpApiGroup.make("optOuts")
    .annotate(
      OpenApi.Description,
      "Opt-outs: the numbers the account's messages must not reach. A send to one is refused (422 recipient_opted_out); a queued message to one fails before dispatch."
    )
    .add(
      HttpApiEndpoint.post("create", "/opt-outs")
        .setPayload(OptOutsJson.CreateOptOut)
        .addSuccess(Envelope(OptOutsJson.OptOutJson), { status: 201 })
        .addSuccess(Envelope(OptOutsJson.OptOutJson), { status: 200 })
        .addError(WireErrors.RuleViolation)
        .annotate(
          OpenApi.Summary,
          "List a number (E.164): 201 with the new entry, or 200 with the entry as it was when the number is listed already"
        )
        .annotateContext(needs("opt_outs:write"))
    )
    .add(
      HttpApiEndpoint.post("import", "/opt-outs/import")
        .addSuccess(Envelope(OptOutsJson.OptOutImport))
        .annotate(
          OpenApi.Summary,
          "Import numbers from CSV (Content-Type: text/csv, at most 10 MiB): the first column of each line; a header line and blank lines ignored; written 1,000 numbers per transaction"
        )
        .annotate(OpenApi.Override, {
          requestBody: {
            required: true,
            content: {
              "text/csv": {
                schema: { type: "string", maxLength: OptOutsJson.maxImportBytes },
                example: "phone\r\n+61412345678\r\n+61 412 345 679\r\n"
              }
            }
          }
        })
        .annotateContext(needs("opt_outs:write"))
    )
    .add(
      HttpApiEndpoint.get("list", "/opt-outs")
        .setUrlParams(OptOutsJson.ListOptOutsQuery)
        .addSuccess(ListEnvelope(OptOutsJson.OptOutJson))
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "List your opt-outs, newest first; by phone, source and date")
        .annotateContext(needs("opt_outs:read"))
    )
    .add(
      HttpApiEndpoint.get("get", "/opt-outs/:phone")
        .setPath(OptOutsJson.OptOutPath)
        .addSuccess(Envelope(OptOutsJson.OptOutJson))
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Get the opt-out of a number (URL-encoded: %2B61412345678); 404 when not listed")
        .annotateContext(needs("opt_outs:read"))
    )
    .add(
      HttpApiEndpoint.del("delete", "/opt-outs/:phone")
        .setPath(OptOutsJson.OptOutPath)
        .addSuccess(Envelope(OptOutsJson.OptOutDeleted))
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Take a number off the list: the account's messages reach it again")
        .annotateContext(needs("opt_outs:write"))
    )
) {}
