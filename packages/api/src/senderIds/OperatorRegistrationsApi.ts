/**
 * The operator registrations group of `/v1` (CONTRACT §6, the operator's side): an operator lists
 * and reads the Sender ID registrations submitted to its network and decides them.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as OperatorRegistrationsJson from "./OperatorRegistrationsJson.js"
import * as SenderIdJson from "./SenderIdJson.js"

const RegistrationId = Fields.PathId("opreg", "operator registration")

/** The operator registrations group. @since 0.1.0 @category groups */
export class OperatorRegistrationsApi extends v1(
  HttpApiGroup.make("operatorRegistrations")
    .annotate(
      OpenApi.Description,
      "For mobile network operators: the Sender ID registrations of their network to review, approve or reject."
    )
    .add(
      HttpApiEndpoint.get("list", "/operator-registrations")
        .setUrlParams(OperatorRegistrationsJson.ListRegistrationsQuery)
        .addSuccess(ListEnvelope(SenderIdJson.RegistrationJson))
        .annotate(OpenApi.Summary, "List the Sender ID registrations submitted to your network, newest first")
        .annotateContext(needs("operator:read"))
    )
    .add(
      HttpApiEndpoint.get("get", "/operator-registrations/:id")
        .setPath(RegistrationId)
        .addSuccess(Envelope(SenderIdJson.RegistrationJson))
        .annotate(OpenApi.Summary, "Get a registration submitted to your network")
        .annotateContext(needs("operator:read"))
    )
    .add(
      HttpApiEndpoint.post("approve", "/operator-registrations/:id/approve")
        .setPath(RegistrationId)
        .addSuccess(Envelope(SenderIdJson.RegistrationJson))
        .annotate(OpenApi.Summary, "Approve a registration pending review or resubmitted")
        .annotateContext(needs("operator:write"))
    )
    .add(
      HttpApiEndpoint.post("reject", "/operator-registrations/:id/reject")
        .setPath(RegistrationId)
        .setPayload(OperatorRegistrationsJson.RejectRegistration)
        .addSuccess(Envelope(SenderIdJson.RegistrationJson))
        .annotate(OpenApi.Summary, "Reject a registration pending review or resubmitted, with a reason")
        .annotateContext(needs("operator:write"))
    )
    .add(
      HttpApiEndpoint.post("requestInfo", "/operator-registrations/:id/request-info")
        .setPath(RegistrationId)
        .setPayload(OperatorRegistrationsJson.RequestInformation)
        .addSuccess(Envelope(SenderIdJson.RegistrationJson))
        .annotate(OpenApi.Summary, "Ask the submitter for information; it resubmits with POST /v1/sids/{id}/resubmit")
        .annotateContext(needs("operator:write"))
    )
) {}
