/**
 * The `/v1` API, defined once: the server, the OpenAPI document and the typed client all come
 * from it. HTTP statuses of domain errors are chosen here, not in core.
 *
 * @since 0.1.0
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import type { Account } from "@sendline/core"
import { Errors } from "@sendline/core"
import { Context, Schema } from "effect"
import * as Json from "./Json.js"

/** The authenticated caller of the current request. @since 0.1.0 @category context */
export class CurrentPrincipal extends Context.Tag("@sendline/http/CurrentPrincipal")<
  CurrentPrincipal,
  Account.Principal
>() {}

/** Bearer-key authentication and the per-key rate limit. @since 0.1.0 @category middleware */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(Errors.Unauthenticated, Errors.RateLimited, Errors.StoreUnavailable),
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const MessageId = Schema.Struct({ id: Schema.String })

/** Sending, previewing, reading, listing and cancelling messages. @since 0.1.0 @category groups */
export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/messaging/messages")
      .setPayload(Json.SendMessage)
      .addSuccess(Json.Envelope(Json.MessageFull), { status: 201 })
      .addError(Errors.RuleViolation, { status: 422 })
      .annotate(OpenApi.Summary, "Send an SMS")
  )
  .add(
    HttpApiEndpoint.post("preview", "/messaging/preview")
      .setPayload(Json.PreviewMessage)
      .addSuccess(Json.Envelope(Json.PreviewResult))
      .addError(Errors.RuleViolation, { status: 422 })
      .annotate(OpenApi.Summary, "Count segments and price a body without sending")
  )
  .add(
    HttpApiEndpoint.get("list", "/messaging/messages")
      .setUrlParams(Json.ListMessagesQuery)
      .addSuccess(Json.ListEnvelope(Json.MessageItem))
      .annotate(OpenApi.Summary, "List messages, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", "/messaging/messages/:id")
      .setPath(MessageId)
      .addSuccess(Json.Envelope(Json.MessageFull))
      .annotate(OpenApi.Summary, "Get a message")
  )
  .add(
    HttpApiEndpoint.post("cancel", "/messaging/messages/:id/cancel")
      .setPath(MessageId)
      .addSuccess(Json.Envelope(Json.MessageFull))
      .annotate(OpenApi.Summary, "Cancel a scheduled message")
  )
  .middleware(Authentication)
  .prefix("/v1")
{}

/** Liveness, outside `/v1` and without a key. @since 0.1.0 @category groups */
export class HealthGroup extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ ok: Schema.Literal(true) }))
) {}

/** The whole API. @since 0.1.0 @category api */
export class Api extends HttpApi.make("sendline")
  .add(MessagesGroup)
  .add(HealthGroup)
  .addError(Errors.InvalidRequest, { status: 400 })
  .addError(Errors.Unauthenticated, { status: 401 })
  .addError(Errors.PermissionDenied, { status: 403 })
  .addError(Errors.NotFound, { status: 404 })
  .addError(Errors.Conflict, { status: 409 })
  .addError(Errors.RateLimited, { status: 429 })
  .addError(Errors.StoreUnavailable, { status: 503 })
  .annotate(OpenApi.Title, "Sendline")
  .annotate(OpenApi.Version, "1")
{}
