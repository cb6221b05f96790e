/**
 * The failed-authentication limit (AUTH_FAILURES_PER_MINUTE, CONTRACT §9): per client address, on
 * the server's clock; past it, 429 before any key lookup; failures logged once a minute in
 * aggregate; a refusal held a second of the server's clock before it is answered. Addresses other
 * than 127.0.0.1 come through `X-Forwarded-For` from a trusted proxy.
 */
import { HttpServerRequest } from "@effect/platform"
import { assert, describe, it, layer } from "@effect/vitest"
import { AccountStore } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Chunk, Effect, Fiber, Layer, LogLevel, Option, TestClock } from "effect"
import * as ClientAddress from "../../src/middleware/ClientAddress.js"
import type * as Http from "../support/Http.js"
import * as Logs from "../support/Logs.js"
import * as Replies from "../support/Replies.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestServer from "../support/TestServer.js"

/** A well-formed key no account holds, different each time. */
let guesses = 0
const guess = () => `sk_${String(++guesses).padStart(40, "0")}`

/** The key digests the store was asked for. */
const lookups: Array<string> = []
const countingStores = Layer.effect(
  AccountStore.AccountStore,
  Effect.map(AccountStore.AccountStore, (store) =>
    AccountStore.AccountStore.of({
      ...store,
      findKeyByDigest: (digest) =>
        Effect.zipRight(Effect.sync(() => lookups.push(digest)), store.findKeyByDigest(digest))
    }))
).pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" })))

const logged: Array<Logs.Logged> = []
const capture = Logs.capture(logged, LogLevel.Info)

/** What was logged but the request log's lines (one per request, the refused ones included). */
const notRequestLog = () => logged.filter((line) => line.fields["duration_ms"] === undefined)

/** A list request from `address` (through the trusted proxy at 127.0.0.1) with `key`. */
const listFrom = (address: string, key: string) =>
  TestMessages.list({}, { key, headers: { "x-forwarded-for": address } })

/**
 * `request`, whose answer the server holds for a second of its clock (a refusal past the limit):
 * sent, then answered once the server sleeps on it and its clock has passed that second.
 */
const held = (request: Effect.Effect<Http.Reply, never, TestServer.TestServer>) =>
  Effect.gen(function*() {
    const sleeping = (yield* TestClock.sleeps()).length
    const answer = yield* Effect.fork(request)
    while ((yield* TestClock.sleeps()).length <= sleeping) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2)))
    }
    yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
    assert.isTrue(Option.isNone(yield* Fiber.poll(answer)), "not answered before the server's clock moves")
    yield* TestClock.adjust("1 second")
    return yield* Fiber.join(answer)
  })

layer(
  TestServer.layer({ authFailuresPerMinute: 3, trustProxy: ["127.0.0.1"], store: countingStores }).pipe(
    Layer.provide(capture)
  )
)(
  "AUTH_FAILURES_PER_MINUTE=3, behind a trusted proxy",
  (it) => {
    it.effect("past the limit an address is refused 429 with Retry-After, without a key lookup, until a failure is due again", () =>
      Effect.gen(function*() {
        const { main } = yield* TestServer.TestServer
        for (let i = 0; i < 3; i++) Replies.assertError(yield* listFrom("203.0.113.1", guess()), 401, "unauthenticated")
        const looked = lookups.length
        const refused = yield* held(listFrom("203.0.113.1", guess()))
        Replies.assertError(refused, 429, "rate_limited")
        assert.strictEqual(refused.headers.get("retry-after"), "20", "3 a minute: one failure is due every 20 s")
        Replies.assertError(yield* held(listFrom("203.0.113.1", main.key)), 429, "rate_limited")
        assert.strictEqual(lookups.length, looked, "no key was looked up once the address was refused")

        yield* TestClock.adjust("20 seconds")
        assert.strictEqual(
          (yield* listFrom("203.0.113.1", main.key)).status,
          200,
          "a valid key passes once a failure is due"
        )
        Replies.assertError(yield* listFrom("203.0.113.1", guess()), 401, "unauthenticated")
        Replies.assertError(yield* held(listFrom("203.0.113.1", guess())), 429, "rate_limited")
      }))

    it.effect("a client with a valid key is not slowed by another address's failures", () =>
      Effect.gen(function*() {
        const { main } = yield* TestServer.TestServer
        for (let i = 0; i < 3; i++) yield* listFrom("203.0.113.2", guess())
        Replies.assertError(yield* held(listFrom("203.0.113.2", guess())), 429, "rate_limited")
        assert.strictEqual((yield* listFrom("198.51.100.2", main.key)).status, 200)
        Replies.assertError(yield* listFrom("198.51.100.2", guess()), 401, "unauthenticated")
      }))

    it.effect("failures are logged in aggregate: one info line a minute after the first, with the count and the top addresses", () =>
      Effect.gen(function*() {
        yield* TestClock.adjust("1 minute")
        logged.length = 0
        for (let i = 0; i < 3; i++) yield* listFrom("203.0.113.3", guess())
        for (let i = 0; i < 2; i++) yield* held(listFrom("203.0.113.3", guess()))
        yield* listFrom("198.51.100.3", guess())
        assert.deepStrictEqual(
          notRequestLog().filter((line) => line.level !== LogLevel.Debug),
          [],
          "nothing per request"
        )
        yield* TestClock.adjust("1 minute")
        const lines = notRequestLog().filter((line) => line.level === LogLevel.Info)
        assert.deepStrictEqual(lines.map((line) => line.text), [
          "4 failed authentications in the last 1m from 2 addresses, 2 more requests refused unchecked; " +
          "most from 203.0.113.3 (3), 198.51.100.3 (1)"
        ])
        yield* TestClock.adjust("1 minute")
        assert.strictEqual(
          notRequestLog().filter((line) => line.level === LogLevel.Info).length,
          1,
          "a quiet minute logs nothing"
        )
        assert.strictEqual(
          Chunk.size(yield* TestClock.sleeps()),
          0,
          "and keeps no timer: an idle server wakes for nothing"
        )
      }))
  }
)

layer(TestServer.layer({ authFailuresPerMinute: 2 }))("AUTH_FAILURES_PER_MINUTE=2, no trusted proxy", (it) => {
  it.effect("X-Forwarded-For is ignored: a client cannot pick the address its failures count against", () =>
    Effect.gen(function*() {
      Replies.assertError(yield* listFrom("203.0.113.4", guess()), 401, "unauthenticated")
      Replies.assertError(yield* listFrom("203.0.113.5", guess()), 401, "unauthenticated")
      Replies.assertError(yield* held(listFrom("203.0.113.6", guess())), 429, "rate_limited")
    }))
})

layer(TestServer.layer({ authFailuresPerMinute: 0 }))("AUTH_FAILURES_PER_MINUTE=0", (it) => {
  it.effect("turns the limit off", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 100; i++) {
        Replies.assertError(yield* TestMessages.list({}, { key: guess() }), 401, "unauthenticated")
      }
    }))
})

describe("ClientAddress", () => {
  const addressOf = (trustProxy: ReadonlyArray<string>, peer: string, forwarded?: string) =>
    ClientAddress.make(trustProxy)(
      HttpServerRequest.fromWeb(
        new Request(
          "http://sendline.test/v1",
          forwarded === undefined ? {} : { headers: { "x-forwarded-for": forwarded } }
        )
      ).modify({ remoteAddress: peer })
    )
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string, string | undefined, string]> = [
    ["the peer, with no trusted proxy", [], "198.51.100.7", "203.0.113.9", "198.51.100.7"],
    ["an IPv4-mapped peer as its IPv4", [], "::ffff:198.51.100.7", undefined, "198.51.100.7"],
    ["the last address before the trusted proxy", ["10.0.0.0/8"], "10.0.0.2", "203.0.113.9", "203.0.113.9"],
    [
      "right to left past every trusted proxy",
      ["10.0.0.0/8", "192.0.2.1"],
      "10.0.0.2",
      "6.6.6.6, 203.0.113.9, 192.0.2.1, 10.1.1.1",
      "203.0.113.9"
    ],
    ["the peer when it is not a trusted proxy", ["10.0.0.0/8"], "198.51.100.7", "203.0.113.9", "198.51.100.7"],
    ["the peer when the header is missing", ["10.0.0.0/8"], "10.0.0.2", undefined, "10.0.0.2"],
    ["the peer when a proxy wrote something that is not an address", ["10.0.0.0/8"], "10.0.0.2", "bogus", "10.0.0.2"],
    ["the first address when every hop is trusted", ["10.0.0.0/8"], "10.0.0.2", "10.0.0.9, 10.0.0.8", "10.0.0.9"],
    ["an IPv6 client behind an IPv6 proxy", ["fd00::/8"], "fd00::1", "2001:db8::7", "2001:db8::7"]
  ]
  for (const [name, trustProxy, peer, forwarded, expected] of cases) {
    it(name, () => assert.strictEqual(addressOf(trustProxy, peer, forwarded), expected))
  }
  it("TRUST_PROXY takes addresses and CIDR ranges, nothing else", () => {
    for (const good of ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "0.0.0.0/0"]) {
      assert.isTrue(ClientAddress.isRange(good), good)
    }
    for (const bad of ["", "localhost", "10.0.0.0/33", "::/129", "10.0.0.0/8/8", "10.0.0.0/", "1.2.3"]) {
      assert.isFalse(ClientAddress.isRange(bad), bad)
    }
  })
})
