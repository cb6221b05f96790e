import { assert, describe, it } from "@effect/vitest"
import { Markets, MessagingConfig } from "@sendline/core"
import { Config, ConfigProvider, Effect, Either, Layer } from "effect"

/** Configuration read from `env` alone. */
const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const nz: Markets.Market = { code: "NZ", currency: "NZD", pricePerSegment: "0.1000", identifierTypes: ["NZBN"], networks: ["spark"] }

/** A market list given as JSON in MARKETS. */
const marketsJson = Config.map(Config.string("MARKETS"), (json): ReadonlyArray<Markets.Market> => JSON.parse(json))

describe("layerConfig", () => {
  it.effect("MessagingConfig reads the settings it is given a Config for, over the defaults", () =>
    Effect.gen(function*() {
      const layer = MessagingConfig.layerConfig({
        maxSegments: Config.integer("MAX_SEGMENTS"),
        callbackPolicy: { allowHttp: Config.boolean("ALLOW_HTTP"), allowPrivate: Config.succeed(false) }
      })
      const settings = yield* Effect.provide(MessagingConfig.MessagingConfig, layer).pipe(withEnv({ MAX_SEGMENTS: "3", ALLOW_HTTP: "true" }))
      assert.deepStrictEqual(settings, { ...MessagingConfig.defaults, maxSegments: 3, callbackPolicy: { allowHttp: true, allowPrivate: false } })
      const refused = yield* Effect.either(Layer.build(layer).pipe(Effect.scoped, withEnv({ MAX_SEGMENTS: "many" })))
      assert.isTrue(Either.isLeft(refused))
    }))

  it.effect("Markets reads the market list, and serves the default markets when it has none", () =>
    Effect.gen(function*() {
      const all = Effect.map(Markets.Markets, (markets) => markets.all)
      const layer = Markets.layerConfig(marketsJson)
      assert.deepStrictEqual(yield* Effect.provide(all, layer).pipe(withEnv({ MARKETS: JSON.stringify([nz]) })), [nz])
      assert.deepStrictEqual(yield* Effect.provide(all, layer).pipe(withEnv({})), Markets.defaults)
    }))
})
