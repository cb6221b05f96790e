/**
 * Authentication and permission checks (CONTRACT §2): a bearer key becomes a `Principal`.
 *
 * @since 0.1.0
 */
import type { Permission } from "@sendline/api/accounts/Permission"
import { PermissionDenied, type StoreUnavailable, Unauthenticated } from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import * as UseCase from "../internal/useCase.js"
import type { Principal } from "./Account.js"
import { AccountStore } from "./AccountStore.js"

const keyPattern = /^sk_[0-9A-Za-z]{40}$/
const bearer = /^Bearer +(\S+) *$/i

/** SHA-256 hex digest of an API key secret: what the store keeps. @since 0.1.0 @category hashing */
export const digest = (secret: string): string => createHash("sha256").update(secret).digest("hex")

/** Whether `secret` has the form of an API key, `sk_` + 40 base62 characters. @since 0.1.0 @category checks */
export const isKeyFormat = (secret: string): boolean => keyPattern.test(secret)

/** Turns API keys into principals. @since 0.1.0 @category services */
export class Auth extends Context.Tag("@sendline/core/Auth")<Auth, {
  /** Authenticates an `Authorization` header value. */
  readonly authenticate: (
    authorization: string | undefined
  ) => Effect.Effect<Principal, Unauthenticated | StoreUnavailable>
}>() {}

/** Fails with `permission_denied` unless `principal` holds `permission`. @since 0.1.0 @category checks */
export const requirePermission = (
  principal: Principal,
  permission: Permission
): Effect.Effect<void, PermissionDenied> =>
  principal.permissions.has(permission)
    ? Effect.void
    : Effect.fail(
      new PermissionDenied({ code: "permission_denied", message: `This API key lacks the ${permission} permission.` })
    )

const refuse = (message: string) => Effect.fail(new Unauthenticated({ message }))

/** Builds the authentication use case on the account store. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const accounts = yield* AccountStore
  const authenticate = fn("Auth.authenticate")(
    function*(authorization: string | undefined) {
      if (authorization === undefined) return yield* refuse("Missing API key: send Authorization: Bearer <key>.")
      const secret = bearer.exec(authorization)?.[1]
      if (secret === undefined || !isKeyFormat(secret)) return yield* refuse("Malformed API key.")
      const found = yield* accounts.findKeyByDigest(digest(secret))
      if (Option.isNone(found)) return yield* refuse("Unknown API key.")
      const key = found.value
      const now = yield* Clock.currentTimeMillis
      if (key.revokedAt !== undefined) return yield* refuse("This API key was revoked.")
      if (key.expiresAt !== undefined && key.expiresAt <= now) return yield* refuse("This API key has expired.")
      return { accountId: key.accountId, keyId: key.id, permissions: new Set(key.permissions) } satisfies Principal
    }
  )
  return Auth.of({ authenticate })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<Auth, never, AccountStore> = Layer.effect(Auth, make)
