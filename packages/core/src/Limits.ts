/**
 * What one account may hold or ask for at once: limits an honest tenant never meets and an abusive
 * one always does (CONTRACT §6, §7, §9). Each is a number of the account's own, counted in the store
 * so that it holds across processes and restarts; past it, the use case refuses with a code of its
 * own (422) or `rate_limited` (429, with the time to wait). Why each default: docs/decisions.md,
 * "Limits per account".
 *
 * A `Context.Reference`: the defaults apply unless a layer of `layer` gives others, so embedders
 * who never think of limits still have them.
 *
 * @since 0.1.0
 */
import type { ConfigError } from "effect"
import { Config, Context, Effect, Layer } from "effect"

/** The limits of one account. @since 0.1.0 @category models */
export interface Settings {
  /** Sender IDs `pending` or `info_requested` at once (CONTRACT §6). */
  readonly pendingSenderIds: number
  /** Brands submitted in any hour (each may mail its contact). */
  readonly brandSubmissionsPerHour: number
  /** Webhook subscriptions, active or disabled (CONTRACT §7). */
  readonly webhookSubscriptions: number
  /** Redeliveries asked for (of an event, or of a subscription's failed deliveries) in any minute. */
  readonly redeliveriesPerMinute: number
}

/** The default limits. @since 0.1.0 @category constants */
export const defaults: Settings = {
  pendingSenderIds: 50,
  brandSubmissionsPerHour: 20,
  webhookSubscriptions: 25,
  redeliveriesPerMinute: 10
}

/** The limits per account; the defaults unless provided. @since 0.1.0 @category services */
export class Limits extends Context.Reference<Limits>()("@sendline/core/Limits", { defaultValue: () => defaults }) {}

/** The given limits over the defaults; a limit that is not a positive integer is a defect. @since 0.1.0 @category layers */
export const layer = (settings: Partial<Settings> = {}): Layer.Layer<Limits> => {
  const limits = { ...defaults, ...settings }
  const bad = Object.entries(limits).find(([, n]) => !Number.isSafeInteger(n) || n < 1)
  return bad === undefined
    ? Layer.succeed(Limits, limits)
    : Layer.die(new RangeError(`The limit ${bad[0]} must be a positive integer, not ${bad[1]}.`))
}

/** The limits read from `config`, over the defaults. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Partial<Settings>>
): Layer.Layer<Limits, ConfigError.ConfigError> => Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
