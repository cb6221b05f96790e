/**
 * Settings of the messaging use case: given as values (`layer`), or read from a `Config`
 * (`layerConfig`; `@sendline/http` reads them from the environment).
 *
 * @since 0.1.0
 */
import type { ConfigError } from "effect"
import { Config, Context, Effect, Layer } from "effect"

/** The messaging settings: segment limit, how far ahead a send may be scheduled. @since 0.1.0 @category models */
export interface Settings {
  /** The most segments one message may have (CONTRACT §3 default 10). */
  readonly maxSegments: number
  /** How far ahead `scheduled_at` may be (default 7 days); the refusal names it. */
  readonly maxScheduleAheadMillis: number
}

/**
 * The most segments any settings may allow. A send or cancel then answers at most ~14 KB (a body
 * of this many segments and a 255-character reference, each character escaped as six bytes of
 * JSON), which an idempotency key keeps whole (`Idempotency.maxKeptBytes`): an endpoint with
 * effects is replayed from its kept bytes, never computed again.
 *
 * @since 0.1.0
 * @category constants
 */
export const mostSegments = 30

/** The default settings: 10 segments, 7 days ahead. @since 0.1.0 @category constants */
export const defaults: Settings = {
  maxSegments: 10,
  maxScheduleAheadMillis: 7 * 86_400_000
}

/** Messaging settings. @since 0.1.0 @category services */
export class MessagingConfig extends Context.Tag("@sendline/core/MessagingConfig")<MessagingConfig, Settings>() {}

/**
 * The given settings, over the defaults; a `maxSegments` that is not an integer from 1 to
 * `mostSegments` is a defect.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (settings: Partial<Settings> = {}): Layer.Layer<MessagingConfig> => {
  const { maxSegments } = { ...defaults, ...settings }
  return Number.isInteger(maxSegments) && maxSegments >= 1 && maxSegments <= mostSegments
    ? Layer.succeed(MessagingConfig, { ...defaults, ...settings })
    : Layer.die(new RangeError(`maxSegments must be an integer from 1 to ${mostSegments}, not ${maxSegments}.`))
}

/** The settings read from `config`, over the defaults. @since 0.1.0 @category layers */
export const layerConfig = (
  config: Config.Config.Wrap<Partial<Settings>>
): Layer.Layer<MessagingConfig, ConfigError.ConfigError> => Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
