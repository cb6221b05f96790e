import { assert, describe, it } from "@effect/vitest"
import { Markets, MessagingConfig } from "@sendline/core"
import { Cause, Config, ConfigProvider, Effect, Either, Exit, Layer } from "effect"

/** Configuration read from `env` alone. */
const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const nz: Markets.Market = {
  code: "NZ",
  currency: "NZD",
  pricePerSegment: "0.1000",
  identifierTypes: ["NZBN"],
  networks: ["spark"]
}

/** A market list given as JSON in MARKETS. */
const marketsJson = Config.map(Config.string("MARKETS"), (json): ReadonlyArray<Markets.Market> => JSON.parse(json))

describe("layerConfig", () => {
  it.effect("MessagingConfig reads the settings it is given a Config for, over the defaults", () =>
    Effect.gen(function*() {
      const layer = MessagingConfig.layerConfig({
        maxSegments: Config.integer("MAX_SEGMENTS")
      })
      const settings = yield* Effect.provide(MessagingConfig.MessagingConfig, layer).pipe(
        withEnv({ MAX_SEGMENTS: "3" })
      )
      assert.deepStrictEqual(settings, { ...MessagingConfig.defaults, maxSegments: 3 })
      const refused = yield* Effect.either(Layer.build(layer).pipe(Effect.scoped, withEnv({ MAX_SEGMENTS: "many" })))
      assert.isTrue(Either.isLeft(refused))
    }))

  it.effect("MessagingConfig refuses a maxSegments past mostSegments, given or read, as a defect: a larger send answer would not fit its idempotency key", () =>
    Effect.gen(function*() {
      const build = (layer: Layer.Layer<MessagingConfig.MessagingConfig, unknown>) =>
        Effect.exit(Effect.scoped(Layer.build(layer)))
      const read = MessagingConfig.layerConfig({ maxSegments: Config.integer("MAX_SEGMENTS") })
      assert.isTrue(Exit.isSuccess(yield* build(MessagingConfig.layer({ maxSegments: MessagingConfig.mostSegments }))))
      for (
        const refused of [
          MessagingConfig.layer({ maxSegments: MessagingConfig.mostSegments + 1 }),
          MessagingConfig.layer({ maxSegments: 0 })
        ]
      ) {
        const exit = yield* build(refused)
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      }
      const exit = yield* build(read).pipe(withEnv({ MAX_SEGMENTS: "31" }))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
    }))

  it.effect("Markets reads the market list, and serves the default markets when it has none", () =>
    Effect.gen(function*() {
      const all = Effect.map(Markets.Markets, (markets) => markets.all)
      const layer = Markets.layerConfig(marketsJson)
      assert.deepStrictEqual(yield* Effect.provide(all, layer).pipe(withEnv({ MARKETS: JSON.stringify([nz]) })), [nz])
      assert.deepStrictEqual(yield* Effect.provide(all, layer).pipe(withEnv({})), Markets.defaults)
    }))
})
