/**
 * The core's use cases as the `sendline` commands build them: over the configured store, with the
 * configured messaging settings, URL policy and limits.
 *
 * @since 0.1.0
 */
import { BrandVerifier, Ids, Limits, Markets, MessagingConfig, Services, UrlPolicy } from "@sendline/core"
import { Effect, Layer } from "effect"
import * as Config from "../Config.js"
import * as Store from "../Store.js"

/**
 * The use cases over `config`'s store (migrated as it opens), with the configured messaging
 * settings. `traced` (a server that exports traces) builds them with spans, each use case call
 * one; else both are built without (see `Services.withoutSpans`), the store's batches then not
 * tracing their callers either.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: Config.ServerConfig, traced = false) => {
  const spans = traced ? <A, E, R>(layer: Layer.Layer<A, E, R>) => layer : Services.withoutSpans
  return spans(Services.layerWithoutDefaults).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Markets.layer,
        Ids.layer,
        MessagingConfig.layerConfig(Config.messaging),
        UrlPolicy.layerConfig(Config.urlPolicy),
        Limits.layer(config.limits),
        BrandVerifier.layer
      )
    ),
    Layer.provideMerge(spans(Store.layer(config)))
  )
}

/**
 * Runs `effect` with the use cases over the store the environment configures.
 *
 * @since 0.1.0
 * @category running
 */
export const provide = <A, E>(effect: Effect.Effect<A, E, Services.UseCases>) =>
  Effect.flatMap(Config.server, (config) => Effect.provide(effect, layer(config)))
