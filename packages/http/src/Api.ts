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
import type { Account, Permission } from "@sendline/core"
import { Errors } from "@sendline/core"
import { Context, Schema } from "effect"
import * as Json from "./Json.js"
import * as RequestBody from "./RequestBody.js"
import * as WireErrors from "./WireErrors.js"

/** The authenticated caller of the current request. @since 0.1.0 @category context */
export class CurrentPrincipal extends Context.Tag("@sendline/http/CurrentPrincipal")<
  CurrentPrincipal,
  Account.Principal
>() {}

/** Bearer-key authentication, the per-key rate limit and the endpoint's permission. @since 0.1.0 @category middleware */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(
    WireErrors.Unauthenticated,
    WireErrors.RateLimited,
    WireErrors.StoreUnavailable,
    WireErrors.PermissionDenied,
    WireErrors.InvalidRequest
  ),
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/**
 * The permission an endpoint needs: checked with the key, before the body is read, and named in
 * the endpoint's OpenAPI description.
 *
 * @since 0.1.0
 * @category annotations
 */
export class RequiredPermission extends Context.Tag("@sendline/http/RequiredPermission")<
  RequiredPermission,
  Permission.Permission
>() {}

const needs = (permission: Permission.Permission) =>
  Context.make(RequiredPermission, permission).pipe(
    Context.add(OpenApi.Description, `Needs the ${permission} permission.`)
  )

const MessageId = Schema.Struct({ id: Schema.String })

/** Sending, previewing, reading, listing and cancelling messages. @since 0.1.0 @category groups */
export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/messaging/messages")
      .setPayload(Json.SendMessage)
      .addSuccess(Json.Envelope(Json.MessageFull), { status: 201 })
      .addError(WireErrors.RuleViolation)
      .annotate(OpenApi.Summary, "Send an SMS")
      .annotateContext(needs("messaging:send"))
  )
  .add(
    HttpApiEndpoint.post("preview", "/messaging/preview")
      .setPayload(Json.PreviewMessage)
      .addSuccess(Json.Envelope(Json.PreviewResult))
      .addError(WireErrors.RuleViolation)
      .annotate(OpenApi.Summary, "Count segments and price a body without sending")
      .annotateContext(needs("messaging:send"))
  )
  .add(
    HttpApiEndpoint.get("list", "/messaging/messages")
      .setUrlParams(Json.ListMessagesQuery)
      .addSuccess(Json.ListEnvelope(Json.MessageItem))
      .annotate(OpenApi.Summary, "List messages, newest first")
      .annotateContext(needs("messaging:read"))
  )
  .add(
    HttpApiEndpoint.get("get", "/messaging/messages/:id")
      .setPath(MessageId)
      .addSuccess(Json.Envelope(Json.MessageFull))
      .annotate(OpenApi.Summary, "Get a message")
      .annotateContext(needs("messaging:read"))
  )
  .add(
    HttpApiEndpoint.post("cancel", "/messaging/messages/:id/cancel")
      .setPath(MessageId)
      .addSuccess(Json.Envelope(Json.MessageFull))
      .annotate(OpenApi.Summary, "Cancel a scheduled message")
      .annotateContext(needs("messaging:send"))
  )
  .addError(WireErrors.InvalidRequest)
  .addError(WireErrors.PermissionDenied)
  .addError(WireErrors.NotFound)
  .addError(WireErrors.Conflict)
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
  "413": `payload_too_large: the body is over ${RequestBody.maxBytes / 1024} KiB.`,
  "415": "unsupported_media_type: the body is not sent as application/json.",
  "429": "rate_limited: retry after Retry-After seconds.",
  "500": "internal_error: something went wrong on our side; it has been logged.",
  "503": "unavailable: retry after Retry-After seconds."
}

const errorResponse = (status: string) => ({
  description: errorDescriptions[status],
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
})

const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Replays the first answer to a retry of the same request for 24 hours (1–255 printable characters).",
  schema: { type: "string", minLength: 1, maxLength: 255 }
}

// Errors leave as the error envelope (Middleware), not as core's tagged errors: document that, with
// the responses the middleware gives before any endpoint runs, and drop the schemas that no
// response refers to any more. POSTs take an Idempotency-Key.
const documentErrorEnvelope = (spec: Record<string, any>): Record<string, any> => {
  const schemas: Record<string, any> = spec.components.schemas
  for (const operations of Object.values<Record<string, any>>(spec.paths)) {
    for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
      for (const status of Object.keys(operation.responses)) {
        if (Number(status) >= 400) operation.responses[status] = errorResponse(status)
      }
      operation.responses["500"] = errorResponse("500")
      const body: string | undefined = operation.requestBody?.content?.["application/json"]?.schema?.$ref
      if (body !== undefined) {
        operation.responses["413"] = errorResponse("413")
        operation.responses["415"] = errorResponse("415")
        // CONTRACT §1: unknown body fields are ignored, not refused.
        delete schemas[body.replace("#/components/schemas/", "")]?.additionalProperties
      }
      if (method === "post") operation.parameters = [...(operation.parameters ?? []), idempotencyKey]
    }
  }
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
  .annotate(HttpApi.AdditionalSchemas, [Json.ErrorEnvelope])
  .annotate(OpenApi.Transform, documentErrorEnvelope)
  .annotate(OpenApi.Title, "Sendline")
  .annotate(OpenApi.Version, "1")
{}
