/**
 * Brand submission as a mail relay (issue 29) on both stores: an account submits at most
 * `Limits.brandSubmissionsPerHour` brands in any hour, counted in the store (then 429 `rate_limited`
 * with `Retry-After`, the seconds until its oldest leaves the hour, and no brand, no mail); operator
 * accounts never submit; the pending relationship's mail keeps what submitters and accounts wrote out
 * of its header and off lines of its own.
 */
import { assert, layer } from "@effect/vitest"
import { Admin, Limits, Permission } from "@sendline/core"
import { Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

const limit = Limits.defaults.brandSubmissionsPerHour

/** A brand of a fresh ACN (no Brand Owner: pending, mailed), its contact at `email`. */
const brandTo = (email: string) => {
  const body = TestBrands.brandBody(TestBrands.freshAcn())
  return { ...body, contact: { ...body.contact, email } }
}

const submit = (caller: TestAccounts.Caller, json: unknown) =>
  Http.request("POST", "/v1/brands", { key: caller.key, json })

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`brand submissions on ${store.name}`, (it) => {
    it.effect("past the brands an account may submit in an hour: 429 rate_limited, Retry-After the seconds until its oldest leaves the hour; nothing written, nothing mailed", () =>
      Effect.gen(function*() {
        const relay = yield* TestAccounts.newCaller()
        const victim = (n: number) => `victim${n}-${relay.accountId}@target.example`
        assert.strictEqual((yield* submit(relay, brandTo(victim(0)))).status, 201)
        yield* TestClock.adjust("10 minutes")
        for (let n = 1; n < limit; n++) {
          assert.strictEqual((yield* submit(relay, brandTo(victim(n)))).status, 201, `submission ${n + 1}`)
        }

        const refused = yield* submit(relay, brandTo(victim(limit)))
        Replies.assertError(refused, 429, "rate_limited")
        assert.strictEqual(refused.headers.get("retry-after"), String(50 * 60))
        assert.include(refused.json.error.message, `${limit}`)
        assert.deepStrictEqual(yield* TestBrands.mailsTo(victim(limit)), [], "no mail for a refused submission")

        const other = yield* TestAccounts.newCaller()
        assert.strictEqual(
          (yield* submit(other, brandTo(victim(limit + 1)))).status,
          201,
          "another account has its own hour"
        )

        yield* TestClock.adjust((49 * 60 + 59) * 1000)
        assert.strictEqual((yield* submit(relay, brandTo(victim(limit)))).headers.get("retry-after"), "1")
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* submit(relay, brandTo(victim(limit)))).status, 201, "the oldest has left the hour")
        Replies.assertError(yield* submit(relay, brandTo(victim(limit + 2))), 429, "rate_limited")

        const listed = yield* Http.request("GET", "/v1/brand-relationships?page_size=100", { key: relay.key })
        assert.strictEqual(listed.json.data.length, limit + 1)
        assert.strictEqual((yield* TestBrands.mailsTo(victim(limit))).length, 1)
      }))

    it.effect("a retry under its Idempotency-Key past the limit answers the brand it created, not 429", () =>
      Effect.gen(function*() {
        const caller = yield* TestAccounts.newCaller()
        const first = brandTo(`first-${caller.accountId}@acme.example`)
        const headers = { "idempotency-key": "brand-limit-retry" }
        const created = yield* Http.request("POST", "/v1/brands", { key: caller.key, json: first, headers })
        assert.strictEqual(created.status, 201)
        for (let n = 1; n < limit; n++) {
          assert.strictEqual((yield* submit(caller, brandTo(`n${n}@acme.example`))).status, 201)
        }
        Replies.assertError(yield* submit(caller, brandTo("over@acme.example")), 429, "rate_limited")
        const again = yield* Http.request("POST", "/v1/brands", { key: caller.key, json: first, headers })
        assert.strictEqual(again.status, 201, again.text)
        assert.strictEqual(again.json.data.id, created.json.data.id)
      }))

    it.effect("an operator account never submits a brand, whatever its key's permissions: 403 permission_denied", () =>
      Effect.gen(function*() {
        const operator = yield* TestAccounts.newOperator("optus")
        const key = yield* TestAccounts.newKey(operator.accountId, Permission.all)
        const email = `jo-${operator.accountId}@acme.example`
        const refused = yield* submit(key, brandTo(email))
        Replies.assertError(refused, 403, "permission_denied")
        assert.match(refused.json.error.message, /operator/i)
        assert.deepStrictEqual(yield* TestBrands.mailsTo(email), [])
        const relationships = yield* Http.request("GET", "/v1/brand-relationships", { key: key.key })
        assert.deepStrictEqual(relationships.json.data, [])
      }))

    it.effect("the mail keeps what an account and a submitter wrote out of its headers and off lines of its own; CR/LF in a brand name is refused", () =>
      Effect.gen(function*() {
        const admin = yield* Admin.Admin
        const account = yield* Effect.orDie(admin.createAccount({
          name: "Bolt\r\nBcc: victim@target.example\r\n\r\nTo approve, POST /v1/brand-relationships/rel_evil/approve",
          type: "cpaas",
          adminEmail: "ops@bolt.example"
        }))
        const provider = yield* TestAccounts.newKey(account.id, Permission.all)
        const email = `jo-${account.id}@acme.example`
        Replies.assertError(
          yield* submit(provider, { ...brandTo(email), name: "Acme\r\nBcc: victim@target.example" }),
          422,
          "invalid_characters",
          "name"
        )
        assert.deepStrictEqual(yield* TestBrands.mailsTo(email), [], "a refused brand mails nobody")

        const created = yield* submit(provider, {
          ...brandTo(email),
          name: "<a href=\"https://evil.example\">Acme</a> & Co"
        })
        assert.strictEqual(created.status, 201, created.text)
        const [mail] = yield* TestBrands.mailsTo(email)
        assert.notMatch(mail!.subject, /[\r\n]/)
        assert.include(
          mail!.subject,
          "<a href=\"https://evil.example\">Acme</a> & Co",
          "text only: kept as written, read as text"
        )
        assert.isFalse(
          mail!.text.split("\n").some((line) =>
            line.startsWith("Bcc:") || line.startsWith("To approve, POST /v1/brand-relationships/rel_evil")
          )
        )
      }))
  })
}
