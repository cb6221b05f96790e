/**
 * The `/v1` API, defined once: the server, the OpenAPI document and the typed client all come
 * from it. HTTP statuses of domain errors are chosen in `WireErrors`, not in core.
 *
 * @since 0.1.0
 */
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity,
  OpenApi
} from "@effect/platform"
import type { Account } from "@sendline/core"
import { Errors } from "@sendline/core"
import { Context, Schema } from "effect"
import * as Json from "./Json.js"
import * as WireErrors from "./WireErrors.js"

/** The authenticated caller of the current request. @since 0.1.0 @category context */
export class CurrentPrincipal extends Context.Tag("@sendline/http/CurrentPrincipal")<
  CurrentPrincipal,
  Account.Principal
>() {}

/** Bearer-key authentication and the per-key rate limit. @since 0.1.0 @category middleware */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(WireErrors.Unauthenticated, WireErrors.RateLimited, WireErrors.StoreUnavailable),
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const MessageId = Schema.Struct({ id: Schema.String })

/** Sending, previewing, reading, listing and cancelling messages. @since 0.1.0 @category groups */
export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/messaging/messages")
      .setPayload(Json.SendMessage)
      .addSuccess(Json.Envelope(Json.MessageFull), { status: 201 })
      .addError(WireErrors.RuleViolation)
      .annotate(OpenApi.Summary, "Send an SMS")
  )
  .add(
    HttpApiEndpoint.post("preview", "/messaging/preview")
      .setPayload(Json.PreviewMessage)
      .addSuccess(Json.Envelope(Json.PreviewResult))
      .addError(WireErrors.RuleViolation)
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
  HttpApiEndpoint.get("health", "/health").addSuccess(Json.Envelope(Schema.Struct({ status: Schema.Literal("ok") })))
) {}

const errorDescriptions: Record<string, string> = {
  "400": "invalid_request, invalid_parameter or invalid_cursor: the request is malformed.",
  "401": "unauthenticated: the API key is missing, malformed, unknown, expired or revoked.",
  "403": "permission_denied: the API key lacks the permission named in the message.",
  "404": "not_found: no such resource in this account.",
  "409": "idempotency_conflict, idempotency_in_progress or invalid_state_transition.",
  "422": `A rule is broken: ${Errors.RuleCode.literals.join(", ")}.`,
  "429": "rate_limited: retry after Retry-After seconds.",
  "503": "unavailable: retry after Retry-After seconds."
}

// Errors leave as the error envelope (Middleware), not as core's tagged errors: document that, and
// drop the schemas that no response refers to any more.
const documentErrorEnvelope = (spec: Record<string, any>): Record<string, any> => {
  for (const operations of Object.values<Record<string, any>>(spec.paths)) {
    for (const operation of Object.values<Record<string, any>>(operations)) {
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
        if (Number(status) < 400) continue
        operation.responses[status] = {
          description: errorDescriptions[status] ?? response.description,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
        }
      }
    }
  }
  const schemas: Record<string, unknown> = spec.components.schemas
  const used = new Set<string>()
  const visit = (value: unknown): void => {
    for (const [, ref] of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = ref!.replace(/~1/g, "/").replace(/~0/g, "~")
      if (!used.has(name)) {
        used.add(name)
        visit(schemas[name] ?? null)
      }
    }
  }
  visit(spec.paths)
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
  return spec
}

/** The whole API. @since 0.1.0 @category api */
export class Api extends HttpApi.make("sendline")
  .add(MessagesGroup)
  .add(HealthGroup)
  .addError(WireErrors.InvalidRequest)
  .addError(WireErrors.Unauthenticated)
  .addError(WireErrors.PermissionDenied)
  .addError(WireErrors.NotFound)
  .addError(WireErrors.Conflict)
  .addError(WireErrors.RateLimited)
  .addError(WireErrors.StoreUnavailable)
  .annotate(HttpApi.AdditionalSchemas, [Json.ErrorEnvelope])
  .annotate(OpenApi.Transform, documentErrorEnvelope)
  .annotate(OpenApi.Title, "Sendline")
  .annotate(OpenApi.Version, "1")
{}
