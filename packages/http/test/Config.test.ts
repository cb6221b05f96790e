import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option } from "effect"
import * as Config from "../src/Config.js"

/** The server settings read from `env` alone. */
const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(Config.server, ConfigProvider.fromMap(new Map(Object.entries(env)))))

/** What starting with `env` is refused with. */
const refusal = (env: Record<string, string>) =>
  Effect.map(read(env), Either.match({ onLeft: Config.describeError, onRight: () => "accepted" }))

describe("Config", () => {
  it.effect("each refusal names its variable", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{ PORT: "abc" }, `PORT: Expected a network port value but received "abc"`],
        [{ RATE_LIMIT_PER_SECOND: "abc" }, `RATE_LIMIT_PER_SECOND: Expected a number value but received "abc"`],
        [{ MAX_MESSAGE_SEGMENTS: "2.5" }, `MAX_MESSAGE_SEGMENTS: Expected an integer value but received "2.5"`],
        [{ MAX_MESSAGE_SEGMENTS: "0" }, "MAX_MESSAGE_SEGMENTS must be 1 or more"],
        [{ CARRIER_SUBMIT_LATENCY_MS: "-5" }, "CARRIER_SUBMIT_LATENCY_MS must be 0 or more"],
        [{ CARRIER_REPORT_DELAY_MS: "-1" }, "CARRIER_REPORT_DELAY_MS must be 0 or more"],
        [{ CARRIER_RETAIN_MS: "-1" }, "CARRIER_RETAIN_MS must be 0 or more"],
        [{ WORKER_POLL_MS: "0" }, "WORKER_POLL_MS must be 1 or more"],
        [{ SQLITE_SYNCHRONOUS: "off" }, "SQLITE_SYNCHRONOUS must be normal or full"],
        [{ WORKER_LEASE_MS: "0" }, "WORKER_LEASE_MS must be 1000 or more"],
        [{ CARRIER_RETAIN_MS: "0" }, "CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (60000 ms)"],
        [{ CARRIER_RETAIN_MS: "119999", WORKER_LEASE_MS: "60000" }, "CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (120000 ms)"]
      ]
      for (const [env, says] of cases) assert.isTrue((yield* refusal(env)).startsWith(says), says)
    }))

  it.effect("an empty value counts as unset: HOST= is not every interface, SQLITE_PATH= not a temporary database", () =>
    Effect.gen(function*() {
      const settings = yield* Effect.flatMap(
        read({ HOST: "", SQLITE_PATH: "", SQLITE_SYNCHRONOUS: "", DATABASE_URL: "", CARRIER_JOURNAL_PATH: "" }),
        (result) => result
      )
      assert.strictEqual(settings.host, "127.0.0.1")
      assert.strictEqual(settings.sqlitePath, "data/sendline.sqlite")
      assert.strictEqual(settings.sqliteSynchronous, "normal")
      assert.isTrue(Option.isNone(settings.databaseUrl))
      assert.isTrue(Option.isNone(settings.carrier.journalPath))
    }))

  it.effect("SQLITE_SYNCHRONOUS is read in any case", () =>
    Effect.gen(function*() {
      const settings = yield* Effect.flatMap(read({ SQLITE_SYNCHRONOUS: "FULL" }), (result) => result)
      assert.strictEqual(settings.sqliteSynchronous, "full")
    }))
})
