import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, LogLevel, Option, Redacted } from "effect"
import * as Config from "../../src/server/Config.js"

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
        [{ MAX_MESSAGE_SEGMENTS: "31" }, "MAX_MESSAGE_SEGMENTS must be 30 or less"],
        [{ CARRIER_SUBMIT_LATENCY_MS: "-5" }, "CARRIER_SUBMIT_LATENCY_MS must be 0 or more"],
        [{ CARRIER_REPORT_DELAY_MS: "-1" }, "CARRIER_REPORT_DELAY_MS must be 0 or more"],
        [{ CARRIER_RETAIN_MS: "-1" }, "CARRIER_RETAIN_MS must be 0 or more"],
        [{ WORKER_POLL_MS: "0" }, "WORKER_POLL_MS must be 1 or more"],
        [{ SQLITE_SYNCHRONOUS: "off" }, "SQLITE_SYNCHRONOUS must be one of normal, full"],
        [
          { RATE_LIMIT_PER_SECOND: "Infinity" },
          `RATE_LIMIT_PER_SECOND: Expected a number value but received "Infinity"`
        ],
        [{ RATE_LIMIT_PER_SECOND: "1e400" }, `RATE_LIMIT_PER_SECOND: Expected a number value but received "1e400"`],
        [{ PORT: "0" }, `PORT: Expected a network port value but received "0"`],
        [{ WEBHOOK_ALLOW_HTTP: "maybe" }, `WEBHOOK_ALLOW_HTTP: Expected a boolean value but received "maybe"`],
        [
          { DATABASE_URL: "mysql://root@localhost/db" },
          "DATABASE_URL must be a postgres:// URL; unset it to use SQLite"
        ],
        [{ WORKER_LEASE_MS: "0" }, "WORKER_LEASE_MS must be 1000 or more"],
        [{ WEBHOOK_IN_FLIGHT_PER_ACCOUNT: "0" }, "WEBHOOK_IN_FLIGHT_PER_ACCOUNT must be 1 or more"],
        [{ AUTH_FAILURES_PER_MINUTE: "-1" }, "AUTH_FAILURES_PER_MINUTE must be 0 or more"],
        [
          { TRUST_PROXY: "10.0.0.0/8, localhost" },
          `TRUST_PROXY: Expected a comma-separated list of addresses or CIDR ranges value`
        ],
        [{ SMTP_URL: "https://user:hunter2@mail.example.com" }, "SMTP_URL must start smtp:// or smtps://"],
        [{ SMTP_URL: "smtp://user:hunter2@mail.example.com?tls=off" }, "SMTP_URL takes no query or fragment"],
        [{ CARRIER_URL: "http://id:hunter2@smsc.example.com" }, "CARRIER_URL must start smpp:// or smpps://"],
        [
          { CARRIER_URL: "smpp://id:hunter2@smsc.example.com?window=0" },
          "CARRIER_URL window must be an integer from 1 to 1000"
        ],
        [{ CARRIER_RETAIN_MS: "0" }, "CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (60000 ms)"],
        [
          { CARRIER_RETAIN_MS: "119999", WORKER_LEASE_MS: "60000" },
          "CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (120000 ms)"
        ],
        [{ DATABASE_STATEMENT_TIMEOUT_MS: "-1" }, "DATABASE_STATEMENT_TIMEOUT_MS must be 0 or more"],
        [
          { DATABASE_QUERY_TIMEOUT_MS: "1.5" },
          `DATABASE_QUERY_TIMEOUT_MS: Expected an integer value but received "1.5"`
        ],
        [
          { DATABASE_QUERY_TIMEOUT_MS: "5000" },
          "DATABASE_QUERY_TIMEOUT_MS must be longer than DATABASE_STATEMENT_TIMEOUT_MS (5000 ms)"
        ],
        [
          { DATABASE_STATEMENT_TIMEOUT_MS: "20000", DATABASE_QUERY_TIMEOUT_MS: "10000" },
          "DATABASE_QUERY_TIMEOUT_MS must be longer than DATABASE_STATEMENT_TIMEOUT_MS (20000 ms)"
        ]
      ]
      for (const [env, says] of cases) assert.isTrue((yield* refusal(env)).startsWith(says), says)
    }))

  it.effect("a variable several settings read is named once", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* refusal({ WORKER_LEASE_MS: "0" }), "WORKER_LEASE_MS must be 1000 or more")
    }))

  it.effect("the carrier's and the workers' settings are the options their layers take; the carrier's alone checks its window", () =>
    Effect.gen(function*() {
      const env = (entries: Record<string, string>) =>
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))
      assert.deepStrictEqual(yield* Config.workers.pipe(env({ WORKER_POLL_MS: "250", WORKER_LEASE_MS: "5000" })), {
        dispatcher: { pollMillis: 250, leaseMillis: 5000 },
        scheduler: { pollMillis: 250, leaseMillis: 5000 },
        deliveryReports: { pollMillis: 250 },
        mailSender: { pollMillis: 250, leaseMillis: 5000 },
        webhookDeliverer: { leaseMillis: 5000, perAccount: 32 }
      })
      assert.deepStrictEqual(
        (yield* Config.workers.pipe(env({ WEBHOOK_IN_FLIGHT_PER_ACCOUNT: "8" }))).webhookDeliverer,
        { leaseMillis: 30_000, perAccount: 8 }
      )
      assert.deepStrictEqual(yield* Config.carrier.pipe(env({ CARRIER_MAX_PER_SECOND: "50" })), {
        submitLatency: 0,
        reportDelay: 2000,
        maxPerSecond: 50,
        journalPath: undefined,
        retain: 600_000
      })
      const refused = yield* Effect.either(Config.carrier.pipe(env({ CARRIER_RETAIN_MS: "1000" })))
      assert.isTrue(
        Either.isLeft(refused) &&
          Config.describeError(refused.left).startsWith(
            "CARRIER_RETAIN_MS must be at least twice WORKER_LEASE_MS (60000 ms)"
          )
      )
    }))

  it.effect("the webhook transport's URL policy is the one subscriptions and callback URLs are checked against", () =>
    Effect.gen(function*() {
      const env = (entries: Record<string, string>) =>
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))
      assert.deepStrictEqual(yield* Config.webhookTransport.pipe(env({})), {
        policy: { allowHttp: false, allowPrivate: false }
      })
      const open = { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "yes" }
      assert.deepStrictEqual(yield* Config.webhookTransport.pipe(env(open)), {
        policy: { allowHttp: true, allowPrivate: true }
      })
      assert.deepStrictEqual(yield* Config.urlPolicy.pipe(env(open)), { allowHttp: true, allowPrivate: true })
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
      assert.isUndefined(settings.carrier.journalPath)
    }))

  it.effect("an empty or blank value of any setting counts as unset: RATE_LIMIT_PER_SECOND= keeps the limit", () =>
    Effect.gen(function*() {
      const names = [
        "PORT",
        "RATE_LIMIT_PER_SECOND",
        "RATE_LIMIT_PER_ACCOUNT_PER_SECOND",
        "AUTH_FAILURES_PER_MINUTE",
        "TRUST_PROXY",
        "WEBHOOK_ALLOW_HTTP",
        "WEBHOOK_ALLOW_PRIVATE",
        "MAX_MESSAGE_SEGMENTS",
        "CARRIER_SUBMIT_LATENCY_MS",
        "CARRIER_REPORT_DELAY_MS",
        "CARRIER_MAX_PER_SECOND",
        "CARRIER_RETAIN_MS",
        "WORKER_POLL_MS",
        "WORKER_LEASE_MS",
        "SQLITE_SYNCHRONOUS",
        "DATABASE_STATEMENT_TIMEOUT_MS",
        "DATABASE_QUERY_TIMEOUT_MS",
        "SMTP_URL",
        "CARRIER_URL",
        "MAIL_FROM",
        "LOG_LEVEL",
        "LOG_FORMAT"
      ]
      for (const blank of ["", "  "]) {
        const env = Object.fromEntries(names.map((name) => [name, blank]))
        const settings = yield* Effect.flatMap(read(env), (result) => result)
        const defaults = yield* Effect.flatMap(read({}), (result) => result)
        assert.deepStrictEqual(settings, defaults, JSON.stringify(blank))
        assert.strictEqual(settings.rateLimitPerSecond, 100)
        assert.strictEqual(settings.rateLimitPerAccountPerSecond, 200)
        assert.strictEqual(settings.authFailuresPerMinute, 60)
        assert.deepStrictEqual(settings.trustProxy, [])
        const level = yield* Effect.withConfigProvider(
          Config.logLevel,
          ConfigProvider.fromMap(new Map([["LOG_LEVEL", blank]]))
        )
        assert.strictEqual(level, LogLevel.Info)
        const format = yield* Effect.withConfigProvider(
          Config.logFormat(false),
          ConfigProvider.fromMap(new Map([["LOG_FORMAT", blank]]))
        )
        assert.strictEqual(format, "json")
      }
    }))

  it.effect("TRUST_PROXY is a comma-separated list of addresses and CIDR ranges", () =>
    Effect.gen(function*() {
      const settings = yield* Effect.flatMap(read({ TRUST_PROXY: " 127.0.0.1, 10.0.0.0/8,fd00::/8 " }), (result) =>
        result)
      assert.deepStrictEqual(settings.trustProxy, ["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
    }))

  it.effect("the PostgreSQL timeouts default to PgPool's, are read in milliseconds, and 0 turns either off", () =>
    Effect.gen(function*() {
      const timeouts = (env: Record<string, string>) =>
        Effect.map(Effect.flatMap(read(env), (result) => result), ({ postgres }) => ({
          statement: Duration.toMillis(postgres.statementTimeout),
          query: Duration.toMillis(postgres.queryTimeout)
        }))
      assert.deepStrictEqual(yield* timeouts({}), { statement: 5_000, query: 8_000 })
      assert.deepStrictEqual(
        yield* timeouts({ DATABASE_STATEMENT_TIMEOUT_MS: "30000", DATABASE_QUERY_TIMEOUT_MS: "35000" }),
        { statement: 30_000, query: 35_000 }
      )
      assert.deepStrictEqual(yield* timeouts({ DATABASE_STATEMENT_TIMEOUT_MS: "0" }), { statement: 0, query: 8_000 })
      assert.deepStrictEqual(yield* timeouts({ DATABASE_QUERY_TIMEOUT_MS: "0" }), { statement: 5_000, query: 0 })
    }))

  it.effect("CARRIER_URL set: an SMPP account, redacted; unset: the simulated carrier", () =>
    Effect.gen(function*() {
      const url = "smpp://acme:hunter2@smsc.example.com:2775?system_type=SMPP&window=20"
      const set = yield* Effect.flatMap(read({ CARRIER_URL: url }), (result) => result)
      assert.strictEqual(Redacted.value(Option.getOrThrow(set.carrierUrl)), url)
      assert.notInclude(String(Option.getOrThrow(set.carrierUrl)), "hunter2")
      const unset = yield* Effect.flatMap(read({}), (result) => result)
      assert.isTrue(Option.isNone(unset.carrierUrl))
    }))

  it.effect("SMTP_URL set: mail goes through that server from MAIL_FROM, its credentials redacted; unset: none (logged)", () =>
    Effect.gen(function*() {
      const url = "smtps://mailer%40example.com:hunter2@mail.example.com"
      const set = yield* Effect.flatMap(
        read({ SMTP_URL: ` ${url} `, MAIL_FROM: "Acme <noreply@acme.example>" }),
        (result) => result
      )
      const mail = Option.getOrThrow(set.mail)
      assert.strictEqual(Redacted.value(mail.url), url)
      assert.strictEqual(mail.from, "Acme <noreply@acme.example>")
      assert.notInclude(String(mail.url), "hunter2")
      assert.notInclude(JSON.stringify(set), "hunter2")
      const refused = yield* refusal({ SMTP_URL: "ftp://user:hunter2@mail.example.com" })
      assert.notInclude(refused, "hunter2", "a refusal never shows the URL")
      const unset = yield* Effect.flatMap(read({ MAIL_FROM: "noreply@acme.example" }), (result) => result)
      assert.isTrue(Option.isNone(unset.mail))
      const byDefault = yield* Effect.flatMap(read({ SMTP_URL: "smtp://127.0.0.1:2525" }), (result) => result)
      assert.strictEqual(Option.getOrThrow(byDefault.mail).from, "sendline@localhost")
    }))

  it.effect("SQLITE_SYNCHRONOUS is read in any case", () =>
    Effect.gen(function*() {
      const settings = yield* Effect.flatMap(read({ SQLITE_SYNCHRONOUS: "FULL" }), (result) => result)
      assert.strictEqual(settings.sqliteSynchronous, "full")
    }))

  it.effect("LOG_FORMAT is json or pretty in any case; unset, pretty when the lines go to a terminal, else JSON; else refused, named", () =>
    Effect.gen(function*() {
      const format = (env: Record<string, string>, terminal: boolean) =>
        Effect.either(
          Effect.withConfigProvider(Config.logFormat(terminal), ConfigProvider.fromMap(new Map(Object.entries(env))))
        )
      assert.deepStrictEqual(yield* format({}, true), Either.right("pretty"))
      assert.deepStrictEqual(yield* format({}, false), Either.right("json"))
      assert.deepStrictEqual(yield* format({ LOG_FORMAT: "JSON" }, true), Either.right("json"))
      assert.deepStrictEqual(yield* format({ LOG_FORMAT: " Pretty " }, false), Either.right("pretty"))
      const refused = yield* format({ LOG_FORMAT: "logfmt" }, false)
      assert.strictEqual(
        Either.isLeft(refused) ? Config.describeError(refused.left) : "accepted",
        "LOG_FORMAT must be one of json, pretty"
      )
    }))
})
