/**
 * Permissions an API key may hold (CONTRACT §2).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Every permission: INTERFACE.md's five plus CONTRACT §2's four. @since 0.1.0 @category models */
export const Permission = Schema.Literal(
  "messaging:send",
  "messaging:read",
  "brands:write",
  "brands:read",
  "operator:read",
  "operator:write",
  "sids:write",
  "sids:read",
  "webhooks:manage"
)
/** A permission an API key may hold. @since 0.1.0 @category models */
export type Permission = typeof Permission.Type

/** All permissions, in a stable order. @since 0.1.0 @category constants */
export const all: ReadonlyArray<Permission> = Permission.literals
