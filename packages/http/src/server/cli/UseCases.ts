/**
 * The core's use cases as the `sendline` commands build them: over the configured store, with the
 * configured messaging settings.
 *
 * @since 0.1.0
 */
import { BrandVerifier, Ids, Markets, MessagingConfig, Services } from "@sendline/core"
import { Effect, Layer } from "effect"
import * as Config from "../Config.js"
import * as Store from "../Store.js"

/**
 * The use cases over `config`'s store (migrated as it opens), with the configured messaging
 * settings; built without spans while there is no trace exporter (see `Services.withoutSpans`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: Config.ServerConfig) =>
  Services.withoutSpans(Services.layerWithoutDefaults).pipe(
    Layer.provideMerge(
      Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layerConfig(Config.messaging), BrandVerifier.layer)
    ),
    Layer.provideMerge(Store.layer(config))
  )

/**
 * Runs `effect` with the use cases over the store the environment configures.
 *
 * @since 0.1.0
 * @category running
 */
export const provide = <A, E>(effect: Effect.Effect<A, E, Services.UseCases>) =>
  Effect.flatMap(Config.server, (config) => Effect.provide(effect, layer(config)))
