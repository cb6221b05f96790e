/**
 * The Sender IDs group of `/v1` (CONTRACT §6, the provider's side): registering a Sender ID for an
 * approved brand, reading and listing yours, resubmitting after an operator's question, renewing.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as WireErrors from "../envelope/WireErrors.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as SenderIdJson from "./SenderIdJson.js"
import * as SenderIdsJson from "./SenderIdsJson.js"

const SidId = Fields.PathId("sid", "Sender ID record")

/** The Sender IDs group. @since 0.1.0 @category groups */
export class SenderIdsApi extends v1(
  HttpApiGroup.make("sids")
    .annotate(
      OpenApi.Description,
      "Sender IDs: alphanumeric sender names registered for an approved brand in a market, with one registration per network."
    )
    .add(
      HttpApiEndpoint.post("register", "/sids")
        .setPayload(SenderIdsJson.RegisterSenderId)
        .addSuccess(Envelope(SenderIdJson.SenderIdJson), { status: 201 })
        .addError(WireErrors.RuleViolation)
        .annotate(
          OpenApi.Summary,
          "Register a Sender ID for a brand you have an approved relationship with; every operator of the market reviews it"
        )
        .annotateContext(needs("sids:write"))
    )
    .add(
      HttpApiEndpoint.get("list", "/sids")
        .setUrlParams(SenderIdsJson.ListSenderIdsQuery)
        .addSuccess(ListEnvelope(SenderIdJson.SenderIdJson))
        .annotate(OpenApi.Summary, "List your Sender IDs, newest first")
        .annotateContext(needs("sids:read"))
    )
    .add(
      HttpApiEndpoint.get("get", "/sids/:id")
        .setPath(SidId)
        .addSuccess(Envelope(SenderIdJson.SenderIdJson))
        .annotate(OpenApi.Summary, "Get a Sender ID with its operator registrations")
        .annotateContext(needs("sids:read"))
    )
    .add(
      HttpApiEndpoint.post("resubmit", "/sids/:id/resubmit")
        .setPath(SidId)
        .setPayload(SenderIdsJson.ResubmitSenderId)
        .addSuccess(Envelope(SenderIdJson.SenderIdJson))
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Resubmit the registrations an operator asked for information on")
        .annotateContext(needs("sids:write"))
    )
    .add(
      HttpApiEndpoint.post("renew", "/sids/:id/renew")
        .setPath(SidId)
        .addSuccess(Envelope(SenderIdJson.SenderIdJson))
        .annotate(OpenApi.Summary, "Renew a registered Sender ID for another 365 days")
        .annotateContext(needs("sids:write"))
    )
) {}
