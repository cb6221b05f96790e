/**
 * The messages group of `/v1` (CONTRACT §3): sending, previewing, reading, listing and cancelling.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as WireErrors from "../envelope/WireErrors.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as BatchesJson from "./BatchesJson.js"
import * as MessageJson from "./MessageJson.js"
import * as MessagesJson from "./MessagesJson.js"

const MessageId = Fields.PathId("msg", "message")
const BatchId = Fields.PathId("bat", "batch")

/** The messages group. @since 0.1.0 @category groups */
export class MessagesApi extends v1(
  HttpApiGroup.make("messages")
    .annotate(
      OpenApi.Description,
      "Sending SMS through a registered Sender ID: send, preview, read, list and cancel messages; send up to 1,000 in one batch."
    )
    .add(
      HttpApiEndpoint.post("send", "/messaging/messages")
        .setPayload(MessagesJson.SendMessage)
        .addSuccess(Envelope(MessageJson.MessageFull), { status: 201 })
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Send an SMS")
        .annotateContext(needs("messaging:send"))
    )
    .add(
      HttpApiEndpoint.post("sendBatch", "/messaging/batches")
        .setPayload(BatchesJson.SendBatch)
        .addSuccess(Envelope(BatchesJson.BatchJson), { status: 201 })
        .addError(WireErrors.RuleViolation)
        .annotate(
          OpenApi.Summary,
          "Send a batch of 1 to 1,000 messages (at most 1 MiB), with defaults and {{placeholders}}: the valid ones are accepted together, the others answered with their error; none valid → 422 batch_rejected"
        )
        .annotateContext(needs("messaging:send"))
    )
    .add(
      HttpApiEndpoint.get("getBatch", "/messaging/batches/:id")
        .setPath(BatchId)
        .addSuccess(Envelope(BatchesJson.BatchStatusJson))
        .annotate(OpenApi.Summary, "Get a batch, with its messages counted by status")
        .annotateContext(needs("messaging:read"))
    )
    .add(
      HttpApiEndpoint.post("preview", "/messaging/preview")
        .setPayload(MessagesJson.PreviewMessage)
        .addSuccess(Envelope(MessagesJson.PreviewResult))
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Count segments and price a body without sending")
        .annotateContext(needs("messaging:send"))
    )
    .add(
      HttpApiEndpoint.get("list", "/messaging/messages")
        .setUrlParams(MessagesJson.ListMessagesQuery)
        .addSuccess(ListEnvelope(MessageJson.MessageItem))
        .annotate(OpenApi.Summary, "List messages, newest first")
        .annotateContext(needs("messaging:read"))
    )
    .add(
      HttpApiEndpoint.get("get", "/messaging/messages/:id")
        .setPath(MessageId)
        .addSuccess(Envelope(MessageJson.MessageFull))
        .annotate(OpenApi.Summary, "Get a message")
        .annotateContext(needs("messaging:read"))
    )
    .add(
      HttpApiEndpoint.post("cancel", "/messaging/messages/:id/cancel")
        .setPath(MessageId)
        .addSuccess(Envelope(MessageJson.MessageFull))
        .annotate(OpenApi.Summary, "Cancel a scheduled message")
        .annotateContext(needs("messaging:send"))
    )
) {}
