/**
 * The request pipeline each group of `Api` declares, in the order it runs after the envelope
 * middleware (`Middleware`: request id, media type and size from the headers): `Authentication`
 * (the bearer key, its rate limit and the endpoint's `RequiredPermission`) provides the
 * `CurrentPrincipal`; then `CheckBody` reads and checks the body once and provides it
 * (`CheckedBody`), from which HttpApi decodes the endpoint's payload. A request refused for its key
 * never has its body read. Declared here, with the API; implemented by the server
 * (`@sendline/http`'s `Authentication` and `RequestBody`). A client sends the key as its bearer
 * token and decodes their refusals.
 *
 * @since 0.1.0
 */
import {
  HttpApi,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity,
  OpenApi
} from "@effect/platform"
import { Context, Schema } from "effect"
import type { Principal } from "../accounts/Account.js"
import type { Permission } from "../accounts/Permission.js"
import * as WireErrors from "../envelope/WireErrors.js"

/** The authenticated caller of the current request. @since 0.1.0 @category context */
export class CurrentPrincipal extends Context.Tag("@sendline/api/CurrentPrincipal")<
  CurrentPrincipal,
  Principal
>() {}

/** A body read and checked: its text, parsed once as JSON (`null` for no body). @since 0.1.0 @category models */
export interface Checked {
  readonly text: string
  readonly json: unknown
}

/** The current request's body, read and checked by `CheckBody`. @since 0.1.0 @category context */
export class CheckedBody extends Context.Tag("@sendline/api/CheckedBody")<CheckedBody, Checked>() {}

/** Bearer-key authentication, the per-key rate limit and the endpoint's permission, in that order. @since 0.1.0 @category middleware */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(
    WireErrors.Unauthenticated,
    WireErrors.RateLimited,
    WireErrors.StoreUnavailable,
    WireErrors.PermissionDenied
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
export class RequiredPermission extends Context.Tag("@sendline/api/RequiredPermission")<
  RequiredPermission,
  Permission
>() {}

/** The annotations of an endpoint that needs `permission`. @since 0.1.0 @category annotations */
export const needs = (permission: Permission) =>
  Context.make(RequiredPermission, permission).pipe(
    Context.add(OpenApi.Description, `Needs the ${permission} permission.`)
  )

/**
 * The body read and checked once, after `Authentication`: refused with `invalid_request` when it is
 * not UTF-8 JSON of a safe depth (see `RequestBody`).
 *
 * @since 0.1.0
 * @category middleware
 */
export class CheckBody extends HttpApiMiddleware.Tag<CheckBody>()("CheckBody", {
  provides: CheckedBody,
  failure: WireErrors.InvalidRequest
}) {}

/**
 * `group` as a group of `/v1`: under the prefix, with the refusals every authenticated endpoint may
 * answer (400, 403, 404, 409), through `Authentication` then `CheckBody`. Applied last, once its
 * endpoints are added (the prefix applies to the endpoints the group has).
 *
 * @since 0.1.0
 * @category groups
 */
export const v1 = <
  Id extends string,
  Endpoints extends HttpApiEndpoint.HttpApiEndpoint.Any,
  E,
  R,
  TopLevel extends boolean
>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, E, R, TopLevel>
) =>
  group
    .addError(WireErrors.InvalidRequest)
    .addError(WireErrors.PermissionDenied)
    .addError(WireErrors.NotFound)
    .addError(WireErrors.Conflict)
    // the last middleware added runs first: Authentication, then CheckBody
    .middleware(CheckBody)
    .middleware(Authentication)
    .prefix("/v1")

/** The API's identifier: the whole API (`Api.ts`) and each group served alone (`served`) share it. @since 0.1.0 @category groups */
export const apiId = "sendline"

/**
 * `group` as an API of its own, under the whole API's identifier, for its handlers
 * (`HttpApiBuilder.group(served(XApi), "x", …)`): their layer is the one the whole API's server
 * takes, and a group's folder imports neither `Api.ts` nor another group.
 *
 * @since 0.1.0
 * @category groups
 */
export const served = <Group extends HttpApiGroup.HttpApiGroup.Any>(group: Group) => HttpApi.make(apiId).add(group)
