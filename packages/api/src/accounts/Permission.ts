/**
 * Permissions an API key may hold (CONTRACT §2).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Every permission: INTERFACE.md's five, CONTRACT §2's four and §12's two. @since 0.1.0 @category models */
export const Permission = Schema.Literal(
  "messaging:send",
  "messaging:read",
  "brands:write",
  "brands:read",
  "operator:read",
  "operator:write",
  "sids:write",
  "sids:read",
  "webhooks:manage",
  "opt_outs:read",
  "opt_outs:write"
)
/** A permission an API key may hold. @since 0.1.0 @category models */
export type Permission = typeof Permission.Type

/** All permissions, in a stable order. @since 0.1.0 @category constants */
export const all: ReadonlyArray<Permission> = Permission.literals
