/**
 * CONTRACT §6 over HTTP on both stores: `POST /v1/sids` and its refusals, the operators' decisions
 * and every transition of a registration, the Sender ID's status derived from them with its
 * `sid.*` events, resubmission, renewal, and sending with a Sender ID registered this way.
 */
import { assert, layer } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { EventStore, Limits, SenderIdJson } from "@sendline/core"
import { Effect, TestClock } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestMessages from "../support/TestMessages.js"
import * as TestSenderIds from "../support/TestSenderIds.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

const day = 86_400_000
const register = (json: unknown, key: string) => Http.request("POST", "/v1/sids", { key, json })
const getSid = (id: string, key: string) => Http.request("GET", `/v1/sids/${id}`, { key })
const decide = (registrationId: string, key: string, decision: "approve" | "reject" | "request-info", json?: unknown) =>
  Http.request("POST", `/v1/operator-registrations/${registrationId}/${decision}`, {
    key,
    ...(json === undefined ? {} : { json })
  })

/** One operator key per AU network, made once per test file's database. */
const operators = Effect.cached(Effect.all({
  telstra: TestAccounts.newOperator("telstra"),
  optus: TestAccounts.newOperator("optus"),
  vodafone: TestAccounts.newOperator("vodafone")
}))

type Network = "telstra" | "optus" | "vodafone"

/** A provider, its approved brand and a Sender ID registered for it, pending review, with each network's registration id. */
const pendingSid = (senderId?: string) =>
  Effect.gen(function*() {
    const provider = yield* TestAccounts.newCaller()
    const sid = yield* TestSenderIds.registeredSid(provider, senderId)
    const registration = (network: Network) => sid.registrations.find((r) => r.network === network)!.id
    return { provider, sid, registration, keys: yield* yield* operators }
  })

/** The types of the `sid.*` events of `sidId`, oldest first. */
const eventTypes = (accountId: string, sidId: string) =>
  Effect.map(
    Effect.flatMap(EventStore.EventStore, (events) => events.listBySubject(accountId, sidId)),
    (events) => events.map((e) => e.type)
  )

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`Sender IDs on ${store.name}`, (it) => {
    it.effect("POST /v1/sids → 201 with CONTRACT §6's fields: pending, one registration per AU network, each pending_operator_review", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(provider)
        const reply = yield* register(TestSenderIds.sidBody(brandId, "Acme Alerts"), provider.key)
        assert.strictEqual(reply.status, 201, reply.text)
        Replies.assertMeta(reply)
        const { data } = Replies.decode(Envelope.Envelope(SenderIdJson.SenderIdJson), reply.json)
        assert.match(data.id, /^sid_[0-9a-hjkmnp-tv-z]{26}$/)
        assert.deepStrictEqual({ ...data, id: "", registrations: [] }, {
          id: "",
          sender_id: "Acme Alerts",
          brand_id: brandId,
          market: "AU",
          status: "pending",
          use_case: "Appointment reminders",
          match_type: "business_name",
          match_value: "Acme Pty Ltd",
          registrations: [],
          created_at: new Date(TestServer.start).toISOString().replace("Z", "+00:00"),
          registered_at: null,
          expires_at: null
        })
        assert.deepStrictEqual(data.registrations.map((r) => [r.network, r.status]).sort(), [
          ["optus", "pending_operator_review"],
          ["telstra", "pending_operator_review"],
          ["vodafone", "pending_operator_review"]
        ])
        for (const r of data.registrations) assert.match(r.id, /^opreg_[0-9a-hjkmnp-tv-z]{26}$/)
        assert.deepStrictEqual((yield* getSid(data.id, provider.key)).json.data, reply.json.data)
      }))

    it.effect("the operator reads its network's registration with INTERFACE.md's fields, submitted_by the caller's type and name", () =>
      Effect.gen(function*() {
        const { keys, registration, sid } = yield* pendingSid()
        const reply = yield* Http.request("GET", `/v1/operator-registrations/${registration("telstra")}`, {
          key: keys.telstra.key
        })
        assert.strictEqual(reply.status, 200, reply.text)
        const { data } = Replies.decode(Envelope.Envelope(SenderIdJson.RegistrationJson), reply.json)
        assert.strictEqual(data.sender_id, sid.sender_id)
        assert.strictEqual(data.network, "telstra")
        assert.strictEqual(data.status, "pending_operator_review")
        assert.deepStrictEqual(data.submitted_by, { type: "cpaas", name: "Test Org" })
        assert.deepStrictEqual({ ...data.brand, id: "" }, {
          id: "",
          name: "Acme Pty Ltd",
          identifier_type: "ACN",
          identifier_value: data.brand.identifier_value
        })
        Replies.assertError(
          yield* Http.request("GET", `/v1/operator-registrations/${registration("telstra")}`, { key: keys.optus.key }),
          404,
          "not_found"
        )
      }))

    it.effect("all three networks approve → registered, expires_at 365 days on, sid.status_changed and sid.registered; it sends", () =>
      Effect.gen(function*() {
        const { keys, provider, registration, sid } = yield* pendingSid()
        const send = { ...TestMessages.validSend, sender_id: sid.sender_id }
        Replies.assertError(yield* TestMessages.send(send, { key: provider.key }), 422, "sender_id_not_registered")
        for (const network of ["telstra", "optus"] as const) {
          const approved = yield* decide(registration(network), keys[network].key, "approve")
          assert.strictEqual(approved.status, 200, approved.text)
          assert.strictEqual(approved.json.data.status, "approved")
        }
        assert.strictEqual(
          (yield* getSid(sid.id, provider.key)).json.data.status,
          "pending",
          "two of three is not enough"
        )
        assert.strictEqual((yield* decide(registration("vodafone"), keys.vodafone.key, "approve")).status, 200)
        const { data } = Replies.decode(
          Envelope.Envelope(SenderIdJson.SenderIdJson),
          (yield* getSid(sid.id, provider.key)).json
        )
        assert.strictEqual(data.status, "registered")
        assert.strictEqual(Date.parse(data.expires_at!) - Date.parse(data.registered_at!), 365 * day)
        assert.deepStrictEqual(yield* eventTypes(provider.accountId, sid.id), ["sid.status_changed", "sid.registered"])
        const sent = yield* TestMessages.send(send, { key: provider.key })
        assert.strictEqual(sent.status, 201, sent.text)
      }))

    it.effect("one network rejects with a reason → rejected with sid.rejected; the Sender ID is free for another brand", () =>
      Effect.gen(function*() {
        const { keys, provider, registration, sid } = yield* pendingSid()
        Replies.assertError(yield* decide(registration("optus"), keys.optus.key, "reject", {}), 400, "invalid_request")
        Replies.assertError(
          yield* decide(registration("optus"), keys.optus.key, "reject", { reason: "  " }),
          400,
          "invalid_parameter",
          "reason"
        )
        const rejected = yield* decide(registration("optus"), keys.optus.key, "reject", {
          reason: "Not the brand's name"
        })
        assert.strictEqual(rejected.status, 200, rejected.text)
        assert.strictEqual(rejected.json.data.reason, "Not the brand's name")
        assert.strictEqual((yield* getSid(sid.id, provider.key)).json.data.status, "rejected")
        assert.deepStrictEqual(yield* eventTypes(provider.accountId, sid.id), ["sid.status_changed", "sid.rejected"])
        const events = yield* (yield* EventStore.EventStore).listBySubject(provider.accountId, sid.id)
        assert.deepStrictEqual([events[0]!.data.previous_status, events[0]!.data.status], ["pending", "rejected"])
        const other = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(other)
        const reply = yield* register(
          { ...TestSenderIds.sidBody(brandId, sid.sender_id), match_value: "Other" },
          other.key
        )
        assert.strictEqual(reply.status, 201, reply.text)
      }))

    it.effect("request-info → info_requested; the submitter resubmits with a new use_case → resubmitted, pending; then approvable", () =>
      Effect.gen(function*() {
        const { keys, provider, registration, sid } = yield* pendingSid()
        Replies.assertError(
          yield* Http.request("POST", `/v1/sids/${sid.id}/resubmit`, { key: provider.key, json: {} }),
          409,
          "invalid_state_transition"
        )
        const asked = yield* decide(registration("telstra"), keys.telstra.key, "request-info", {
          message: "Which appointments?"
        })
        assert.strictEqual(asked.status, 200, asked.text)
        assert.strictEqual(asked.json.data.message, "Which appointments?")
        assert.strictEqual((yield* getSid(sid.id, provider.key)).json.data.status, "info_requested")
        Replies.assertError(
          yield* decide(registration("telstra"), keys.telstra.key, "approve"),
          409,
          "invalid_state_transition"
        )
        const resubmitted = yield* Http.request("POST", `/v1/sids/${sid.id}/resubmit`, {
          key: provider.key,
          json: { use_case: "Dental appointment reminders" }
        })
        assert.strictEqual(resubmitted.status, 200, resubmitted.text)
        assert.strictEqual(resubmitted.json.data.status, "pending")
        assert.strictEqual(resubmitted.json.data.use_case, "Dental appointment reminders")
        const seen = yield* Http.request("GET", `/v1/operator-registrations/${registration("telstra")}`, {
          key: keys.telstra.key
        })
        assert.deepStrictEqual([seen.json.data.status, seen.json.data.use_case, seen.json.data.message], [
          "resubmitted",
          "Dental appointment reminders",
          null
        ])
        assert.strictEqual((yield* decide(registration("telstra"), keys.telstra.key, "approve")).status, 200)
        assert.deepStrictEqual(yield* eventTypes(provider.accountId, sid.id), [
          "sid.status_changed",
          "sid.status_changed"
        ])
      }))

    it.effect("a decided registration cannot be decided again: every other move → 409 invalid_state_transition", () =>
      Effect.gen(function*() {
        const { keys, registration } = yield* pendingSid()
        assert.strictEqual((yield* decide(registration("telstra"), keys.telstra.key, "approve")).status, 200)
        assert.strictEqual(
          (yield* decide(registration("optus"), keys.optus.key, "reject", { reason: "No" })).status,
          200
        )
        for (
          const [network, decision, json] of [
            ["telstra", "approve", undefined],
            ["telstra", "reject", { reason: "Changed my mind" }],
            ["telstra", "request-info", { message: "?" }],
            ["optus", "approve", undefined],
            ["optus", "reject", { reason: "Again" }]
          ] as const
        ) {
          Replies.assertError(
            yield* decide(registration(network), keys[network].key, decision, json),
            409,
            "invalid_state_transition"
          )
        }
      }))

    it.effect("renew: a pending Sender ID → 409; a registered one too, until the last 60 days before it expires", () =>
      Effect.gen(function*() {
        const { keys, provider, registration, sid } = yield* pendingSid()
        Replies.assertError(
          yield* Http.request("POST", `/v1/sids/${sid.id}/renew`, { key: provider.key }),
          409,
          "invalid_state_transition"
        )
        for (const network of ["telstra", "optus", "vodafone"] as const) {
          yield* decide(registration(network), keys[network].key, "approve")
        }
        assert.strictEqual((yield* getSid(sid.id, provider.key)).json.data.status, "registered")
        const early = yield* Http.request("POST", `/v1/sids/${sid.id}/renew`, { key: provider.key })
        Replies.assertError(early, 409, "invalid_state_transition")
        assert.include(early.json.error.message, "in the last 60 days before it expires")
      }))

    it.effect("refusals of POST /v1/sids, in CONTRACT order: brand, market, Sender ID rules, fields, domain match", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(provider)
        const body = TestSenderIds.sidBody(brandId)
        const acn = TestBrands.freshAcn()
        yield* TestBrands.newBrandOwner(acn)
        const pending = yield* TestBrands.submitBrand(provider, acn)
        Replies.assertError(
          yield* register({ ...body, brand_id: pending.brandId }, provider.key),
          403,
          "brand_relationship_pending"
        )
        Replies.assertError(
          yield* register({ ...body, brand_id: "brand_00000000000000000000000000" }, provider.key),
          404,
          "not_found"
        )
        Replies.assertError(yield* register({ ...body, market: "UK" }, provider.key), 422, "invalid_market", "market")
        Replies.assertError(
          yield* register({ ...body, market: "FR" }, provider.key),
          422,
          "unsupported_market",
          "market"
        )
        for (const senderId of ["A", "Unverified", "BANK", "Alert Bank", "12345", "Acme!"]) {
          Replies.assertError(
            yield* register({ ...body, sender_id: senderId }, provider.key),
            422,
            "invalid_sender_id",
            "sender_id"
          )
        }
        Replies.assertError(
          yield* register({ ...body, use_case: " " }, provider.key),
          400,
          "invalid_parameter",
          "use_case"
        )
        Replies.assertError(yield* register({ ...body, match_type: "nickname" }, provider.key), 400, "invalid_request")
        const { brand_id: _, ...withoutBrand } = body
        Replies.assertError(yield* register(withoutBrand, provider.key), 400, "invalid_request")
        // the brand's website is https://acme.example: its registrable domain's label is "acme"
        const domain = { ...body, match_type: "domain", match_value: "acme.example" }
        Replies.assertError(
          yield* register({ ...domain, sender_id: "Zeta" }, provider.key),
          422,
          "sender_id_domain_mismatch",
          "sender_id"
        )
        const matched = yield* register({ ...domain, sender_id: "ACM" }, provider.key)
        assert.strictEqual(matched.status, 201, matched.text)
        const operator = yield* TestAccounts.newOperator("optus")
        const withAll = yield* TestAccounts.newKey(operator.accountId, ["sids:write"])
        Replies.assertError(yield* register(body, withAll.key), 403, "permission_denied")
      }))

    it.effect("a Sender ID held by another brand → 409 sender_id_taken, in any case; the same brand may register it again", () =>
      Effect.gen(function*() {
        const { provider, sid } = yield* pendingSid()
        const rival = yield* TestAccounts.newCaller()
        const acn = TestBrands.freshAcn()
        const owner = yield* TestBrands.newBrandOwner(acn)
        const created = yield* Http.request("POST", "/v1/brands", {
          key: rival.key,
          json: { ...TestBrands.brandBody(acn), name: "Rival Pty Ltd" }
        })
        const relationships = yield* Http.request("GET", "/v1/brand-relationships", { key: owner.key })
        const relationship = relationships.json.data.find((r: { brand: { id: string } }) =>
          r.brand.id === created.json.data.id
        )
        yield* Http.request("POST", `/v1/brand-relationships/${relationship.id}/approve`, { key: owner.key })
        const taken = yield* register(
          TestSenderIds.sidBody(created.json.data.id, sid.sender_id.toUpperCase()),
          rival.key
        )
        Replies.assertError(taken, 409, "sender_id_taken")
        const brands = yield* Http.request("GET", "/v1/brands", { key: provider.key })
        const again = yield* register(TestSenderIds.sidBody(brands.json.data[0].id, sid.sender_id), provider.key)
        assert.strictEqual(again.status, 201, again.text)
      }))

    it.effect("two POST /v1/sids of one Sender ID for two brands at once: exactly one 201 and one 409 sender_id_taken", () =>
      Effect.gen(function*() {
        const senderId = TestSenderIds.freshSenderId()
        const contenders = yield* Effect.forEach(["One Pty Ltd", "Two Pty Ltd"], (name) =>
          Effect.gen(function*() {
            const provider = yield* TestAccounts.newCaller()
            const acn = TestBrands.freshAcn()
            const owner = yield* TestBrands.newBrandOwner(acn)
            const created = yield* Http.request("POST", "/v1/brands", {
              key: provider.key,
              json: { ...TestBrands.brandBody(acn), name }
            })
            const relationships = yield* Http.request("GET", "/v1/brand-relationships", { key: owner.key })
            yield* Http.request("POST", `/v1/brand-relationships/${relationships.json.data[0].id}/approve`, {
              key: owner.key
            })
            return { provider, brandId: created.json.data.id as string }
          }))
        const replies = yield* Effect.forEach(
          contenders,
          ({ brandId, provider }) => register(TestSenderIds.sidBody(brandId, senderId), provider.key),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(replies.map((r) => r.status).sort(), [201, 409], replies.map((r) => r.text).join("\n"))
        Replies.assertError(replies.find((r) => r.status === 409)!, 409, "sender_id_taken")
      }))

    it.effect("GET /v1/operator-registrations: each filter of CONTRACT §6, newest first, a cursor bound to its filters, the caller's network only", () =>
      Effect.gen(function*() {
        const keys = yield* yield* operators
        const provider = yield* TestAccounts.newCaller()
        const acn = TestBrands.freshAcn()
        const owner = yield* TestBrands.newBrandOwner(acn)
        const unique = String(Date.now() % 1_000_000)
        const name = `Zq_%${unique} Pty Ltd`
        const created = yield* Http.request("POST", "/v1/brands", {
          key: provider.key,
          json: { ...TestBrands.brandBody(acn), name }
        })
        const relationships = yield* Http.request("GET", "/v1/brand-relationships", { key: owner.key })
        yield* Http.request("POST", `/v1/brand-relationships/${relationships.json.data[0].id}/approve`, {
          key: owner.key
        })
        const brandId = created.json.data.id as string
        const first = yield* register(TestSenderIds.sidBody(brandId), provider.key)
        yield* TestClock.adjust("1 hour")
        const second = yield* register(TestSenderIds.sidBody(brandId), provider.key)
        const telstraOf = (reply: Http.Reply) =>
          reply.json.data.registrations.find((r: { network: string }) => r.network === "telstra").id as string
        const [one, two] = [telstraOf(first), telstraOf(second)]
        const list = (query: string, key = keys.telstra.key) =>
          Http.request("GET", `/v1/operator-registrations?${query}`, { key })
        const ids = (reply: Http.Reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.data.map((r: { id: string }) => r.id)
        }
        const byBrand = `brand_name=${encodeURIComponent(`zq_%${unique}`)}`
        assert.deepStrictEqual(ids(yield* list(byBrand)), [two, one], "newest first, case-insensitive")
        assert.deepStrictEqual(
          ids(yield* list(`brand_name=${encodeURIComponent(`zq%${unique}`)}`)),
          [],
          "% is a character, not a wildcard"
        )
        assert.deepStrictEqual(
          ids(yield* list(`brand_name=${encodeURIComponent(`q__${unique}`)}`)),
          [],
          "_ is a character, not a wildcard"
        )
        assert.deepStrictEqual(ids(yield* list(`sender_id=${first.json.data.sender_id.toLowerCase()}`)), [one])
        const at = (reply: Http.Reply) => encodeURIComponent(reply.json.data.created_at)
        assert.deepStrictEqual(
          ids(yield* list(`${byBrand}&submitted_after=${at(second)}`)),
          [two],
          "after is inclusive"
        )
        assert.deepStrictEqual(
          ids(yield* list(`${byBrand}&submitted_before=${at(second)}`)),
          [one],
          "before is exclusive"
        )
        const day = (reply: Http.Reply, days = 0) =>
          new Date(Date.parse(reply.json.data.created_at) + days * 86_400_000).toISOString().slice(0, 10)
        assert.deepStrictEqual(
          ids(yield* list(`${byBrand}&submitted_before=${day(second)}`)),
          [two, one],
          "a plain date: the end of that day"
        )
        assert.deepStrictEqual(
          ids(yield* list(`${byBrand}&submitted_before=${day(first, -1)}`)),
          [],
          "the day before: nothing of this day"
        )
        assert.deepStrictEqual(
          ids(yield* list(`${byBrand}&submitted_after=${day(second, 1)}`)),
          [],
          "after: the start of that day"
        )
        yield* decide(one, keys.telstra.key, "approve")
        assert.deepStrictEqual(ids(yield* list(`${byBrand}&status=approved`)), [one])
        assert.deepStrictEqual(ids(yield* list(`${byBrand}&status=pending_operator_review`)), [two])
        assert.deepStrictEqual(ids(yield* list(`${byBrand}&submitter_type=cpaas`)), [two, one])
        assert.deepStrictEqual(ids(yield* list(`${byBrand}&submitter_type=aggregator`)), [])
        assert.deepStrictEqual(ids(yield* list(`${byBrand}&market=NZ`)), [])
        assert.notIncludeMembers(
          ids(yield* list(byBrand, keys.optus.key)),
          [one, two],
          "optus sees its own registrations"
        )
        assert.strictEqual((yield* list(byBrand, keys.optus.key)).json.data.length, 2)
        const paged = yield* list(`${byBrand}&page_size=1`)
        assert.deepStrictEqual(ids(paged), [two])
        assert.deepStrictEqual(ids(yield* list(`${byBrand}&page_size=1&cursor=${paged.json.pagination.next_cursor}`)), [
          one
        ])
        Replies.assertError(
          yield* list(`${byBrand}&status=approved&cursor=${paged.json.pagination.next_cursor}`),
          400,
          "invalid_cursor"
        )
        assert.strictEqual((yield* list(`${byBrand}&page_size=1000`)).json.pagination.page_size, 100)
        const refused = yield* list("status=live")
        Replies.assertError(refused, 400, "invalid_parameter", "status")
        assert.include(
          refused.json.error.message,
          "pending_operator_review, approved, info_requested, resubmitted, rejected"
        )
        Replies.assertError(yield* list(byBrand, provider.key), 403, "permission_denied")
      }))

    it.effect("a brand renamed to another's name takes nothing: each of two Brand Owners renames its brand to the other's and is refused the other's Sender ID (409, the holder unnamed); each still registers its own", () =>
      Effect.gen(function*() {
        const org = (name: string) =>
          Effect.gen(function*() {
            const acn = TestBrands.freshAcn()
            const owner = yield* TestBrands.newBrandOwner(acn)
            const created = yield* Http.request("POST", "/v1/brands", {
              key: owner.key,
              json: { ...TestBrands.brandBody(acn), name }
            })
            assert.strictEqual(created.status, 201, created.text)
            const brandId = created.json.data.id as string
            const senderId = TestSenderIds.freshSenderId()
            const registered = yield* register(TestSenderIds.sidBody(brandId, senderId), owner.key)
            assert.strictEqual(registered.status, 201, registered.text)
            return { owner, name, brandId, senderId }
          })
        const [a, b] = [yield* org("Sendline Demo Pty Ltd"), yield* org("Rival Messaging Pty Ltd")]
        for (const [taker, holder] of [[b, a], [a, b]] as const) {
          const renamed = yield* Http.request("PATCH", `/v1/brands/${taker.brandId}`, {
            key: taker.owner.key,
            json: { name: holder.name }
          })
          assert.strictEqual(renamed.status, 200, renamed.text)
          assert.strictEqual(renamed.json.data.name, holder.name)
          const taken = yield* register(TestSenderIds.sidBody(taker.brandId, holder.senderId), taker.owner.key)
          Replies.assertError(taken, 409, "sender_id_taken")
          assert.notInclude(taken.text, holder.name, "the holder is not named")
          const own = yield* register(TestSenderIds.sidBody(taker.brandId, taker.senderId), taker.owner.key)
          assert.strictEqual(own.status, 201, own.text)
        }
      }))

    it.effect("look-alikes of a held Sender ID → 409 sender_id_taken (case, spaces, I/l/1, O/0, S/5, B/8); distinct strings → 201", () =>
      Effect.gen(function*() {
        // the demo organisation holds Sendline in AU (the test server's demo data); another provider's brand tries its look-alikes
        const provider = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(provider)
        for (
          const senderId of ["SENDLINE", "Send line", "SendIine", "Sendl1ne", "5endline", "SEND L1NE", "5END 1INE"]
        ) {
          Replies.assertError(
            yield* register(TestSenderIds.sidBody(brandId, senderId), provider.key),
            409,
            "sender_id_taken"
          )
        }
        const base = TestSenderIds.freshSenderId().slice(3) // digits only, unique within this run
        const held = `Bo ${base.slice(0, 7)}`
        assert.strictEqual((yield* register(TestSenderIds.sidBody(brandId, held), provider.key)).status, 201)
        const rival = yield* TestAccounts.newCaller()
        const rivalBrand = yield* TestBrands.approvedBrand(rival)
        for (const senderId of [held.replace("B", "8"), held.replace("o", "0"), held.replace(" ", "")]) {
          Replies.assertError(
            yield* register(TestSenderIds.sidBody(rivalBrand.brandId, senderId), rival.key),
            409,
            "sender_id_taken"
          )
        }
        for (const senderId of ["Sendlane", "Sendlines", held.replace("Bo", "Be")]) {
          const distinct = yield* register(TestSenderIds.sidBody(rivalBrand.brandId, senderId), rival.key)
          assert.strictEqual(distinct.status, 201, `${senderId}: ${distinct.text}`)
        }
      }))

    it.effect(`an account with ${Limits.defaults.pendingSenderIds} Sender IDs pending or info_requested → 422 pending_sender_id_limit_reached; room again once an operator decides one`, () =>
      Effect.gen(function*() {
        const keys = yield* yield* operators
        const provider = yield* TestAccounts.newCaller()
        const { brandId } = yield* TestBrands.approvedBrand(provider)
        const limit = Limits.defaults.pendingSenderIds
        const first = yield* register(TestSenderIds.sidBody(brandId), provider.key)
        const telstra = first.json.data.registrations.find((r: { network: string }) => r.network === "telstra")
          .id as string
        assert.strictEqual(
          (yield* decide(telstra, keys.telstra.key, "request-info", { message: "Which?" })).status,
          200
        )
        for (let i = 1; i < limit; i++) {
          assert.strictEqual((yield* register(TestSenderIds.sidBody(brandId), provider.key)).status, 201)
        }
        const refused = yield* register(TestSenderIds.sidBody(brandId), provider.key)
        Replies.assertError(refused, 422, "pending_sender_id_limit_reached", "sender_id")
        assert.include(refused.json.error.message, String(limit))
        // another account's Sender IDs are counted apart
        const other = yield* TestAccounts.newCaller()
        const otherBrand = yield* TestBrands.approvedBrand(other)
        assert.strictEqual((yield* register(TestSenderIds.sidBody(otherBrand.brandId), other.key)).status, 201)
        assert.strictEqual(
          (yield* decide(telstra, keys.telstra.key, "reject", { reason: "No" })).status,
          409,
          "asked: only resubmission moves it"
        )
        const optus = first.json.data.registrations.find((r: { network: string }) => r.network === "optus").id as string
        assert.strictEqual((yield* decide(optus, keys.optus.key, "reject", { reason: "Not the brand's" })).status, 200)
        const again = yield* register(TestSenderIds.sidBody(brandId), provider.key)
        assert.strictEqual(again.status, 201, again.text)
      }))

    it.effect("GET /v1/sids lists the caller's Sender IDs newest first, with status and market filters", () =>
      Effect.gen(function*() {
        const { keys, provider, registration, sid } = yield* pendingSid()
        const second = yield* TestSenderIds.registeredSid(provider)
        yield* decide(registration("optus"), keys.optus.key, "reject", { reason: "No" })
        const all = yield* Http.request("GET", "/v1/sids", { key: provider.key })
        assert.deepStrictEqual(all.json.data.map((s: { id: string }) => s.id), [second.id, sid.id])
        const rejected = yield* Http.request("GET", "/v1/sids?status=rejected", { key: provider.key })
        assert.deepStrictEqual(rejected.json.data.map((s: { id: string }) => s.id), [sid.id])
        const nz = yield* Http.request("GET", "/v1/sids?market=NZ", { key: provider.key })
        assert.deepStrictEqual(nz.json.data, [])
        const paged = yield* Http.request("GET", "/v1/sids?page_size=1", { key: provider.key })
        assert.strictEqual(paged.json.pagination.has_more, true)
        Replies.assertError(
          yield* Http.request("GET", `/v1/sids?status=rejected&cursor=${paged.json.pagination.next_cursor}`, {
            key: provider.key
          }),
          400,
          "invalid_cursor"
        )
      }))

    // last: it moves the server's clock by most of a year
    it.effect("renew in the last 60 days before expires_at → 365 more days; again in that term → 409 invalid_state_transition", () =>
      Effect.gen(function*() {
        const { keys, provider, registration, sid } = yield* pendingSid()
        for (const network of ["telstra", "optus", "vodafone"] as const) {
          yield* decide(registration(network), keys[network].key, "approve")
        }
        const before = (yield* getSid(sid.id, provider.key)).json.data
        const renew = Http.request("POST", `/v1/sids/${sid.id}/renew`, { key: provider.key })
        const opens = Date.parse(before.expires_at) - 60 * day
        yield* TestClock.setTime(opens - 1)
        Replies.assertError(yield* renew, 409, "invalid_state_transition")
        yield* TestClock.setTime(opens)
        const renewed = yield* renew
        assert.strictEqual(renewed.status, 200, renewed.text)
        assert.strictEqual(Date.parse(renewed.json.data.expires_at) - Date.parse(before.expires_at), 365 * day)
        assert.strictEqual(renewed.json.data.status, "registered")
        for (const again of [opens, Date.parse(before.expires_at) - 1]) {
          yield* TestClock.setTime(again)
          Replies.assertError(yield* renew, 409, "invalid_state_transition")
        }
        assert.strictEqual(
          (yield* getSid(sid.id, provider.key)).json.data.expires_at,
          renewed.json.data.expires_at,
          "one term added, once"
        )
      }))
  })
}
