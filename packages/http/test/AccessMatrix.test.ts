/**
 * Access, endpoint by endpoint, generated from the `HttpApi` definition so that an endpoint added
 * later cannot be left out: every endpoint that needs a permission refuses a key without it (403,
 * naming it); every resource of one account, read or changed with another account's key, is 404, and
 * never listed to it. An endpoint with a path parameter needs a fixture below, or this test fails.
 *
 * An operator registration belongs to its network: the "account" whose resource it is, is the
 * network's operator (telstra), and another network's operator (optus) is the stranger; its list
 * shows every registration of the network, whoever submitted it.
 *
 * Brands are the one resource two accounts share: its provider (an approved relationship) and its
 * Brand Owner (the brand account owning its identifier). The Brand Owner's key reads its brand and
 * decides its relationships, and nothing else of the provider's (INTERFACE.md rule 3): every
 * endpoint on a resource of the provider answers it 404 but those `brandOwnerMay` lists.
 */
import { assert, layer } from "@effect/vitest"
import { Api } from "@sendline/api/Api"
import { RequiredPermission } from "@sendline/api/middleware/Pipeline"
import { type Admin, Permission } from "@sendline/core"
import { Context, Effect, Option } from "effect"
import * as Http from "./support/Http.js"
import * as Replies from "./support/Replies.js"
import * as TestAccounts from "./support/TestAccounts.js"
import * as TestBrands from "./support/TestBrands.js"
import * as TestMessages from "./support/TestMessages.js"
import * as TestSenderIds from "./support/TestSenderIds.js"
import * as TestServer from "./support/TestServer.js"
import * as TestWebhooks from "./support/TestWebhooks.js"

const endpoints = Object.values(Api.groups).flatMap((group) =>
  Object.values<typeof group.endpoints[string]>(group.endpoints).map((endpoint) => ({
    name: `${endpoint.method} ${endpoint.path}`,
    method: endpoint.method,
    path: endpoint.path,
    permission: Option.getOrUndefined(Context.getOption(endpoint.annotations, RequiredPermission))
  }))
)

/** The endpoints anyone may call. */
const open = ["GET /health", "GET /ready", "GET /metrics"]

/** `path` with each parameter set to `id`. */
const withId = (path: string, id: string) => path.replace(/:\w+/g, id)

/** The bodies the endpoints that require fields are called with, so that the body is never what answers. */
const bodies: Record<string, unknown> = {
  "POST /v1/operator-registrations/:id/reject": { reason: "Not the brand's name" },
  "POST /v1/operator-registrations/:id/request-info": { message: "Which brand is this?" },
  "POST /v1/webhooks/:id/redeliver": { since: "2026-01-01" }
}

/** A request to `endpoint` at `path` with `key`: a JSON body (`{}` unless `bodies` has one) when its method takes one. */
const call = (endpoint: { readonly method: string; readonly path: string }, path: string, key: string) =>
  Http.request(endpoint.method, path, {
    key,
    ...(endpoint.method === "GET" ? {} : { json: bodies[`${endpoint.method} ${endpoint.path}`] ?? {} })
  })

/**
 * How to make a resource of `owner` for the endpoints under a path: by the path before its first
 * parameter. A scheduled message, so that every endpoint on it (cancel included) could act on it.
 */
const fixtures: Record<
  string,
  (owner: TestAccounts.Caller) => Effect.Effect<string, never, TestServer.TestServer | Admin.Admin>
> = {
  // a Sender ID pending its operators' review, of an approved brand of the owner's
  "/v1/sids": (owner) => Effect.map(TestSenderIds.registeredSid(owner), (sid) => sid.id),
  // the telstra registration of a Sender ID some provider registered: the resource of telstra's operator
  "/v1/operator-registrations": () =>
    Effect.gen(function*() {
      const provider = yield* TestAccounts.newCaller()
      const sid = yield* TestSenderIds.registeredSid(provider)
      return sid.registrations.find((r) => r.network === "telstra")!.id
    }),
  // a brand whose Brand Owner approved the relationship: its provider reads and changes it
  "/v1/brands": (owner) => Effect.map(TestBrands.approvedBrand(owner), ({ brandId }) => brandId),
  // a pending relationship, which a Brand Owner could approve or reject
  "/v1/brand-relationships": (owner) =>
    Effect.gen(function*() {
      const acn = TestBrands.freshAcn()
      yield* TestBrands.newBrandOwner(acn)
      return (yield* TestBrands.submitBrand(owner, acn)).relationshipId
    }),
  // an opt-out of the owner's, named by its number (URL-encoded), a new one each time
  "/v1/opt-outs": (owner) =>
    Effect.gen(function*() {
      const phone = `+6141200${String(++optOutNumbers).padStart(4, "0")}`
      const added = yield* Http.request("POST", "/v1/opt-outs", { key: owner.key, json: { phone } })
      assert.strictEqual(added.status, 201, added.text)
      return encodeURIComponent(phone)
    }),
  // an active webhook subscription of the owner's
  "/v1/webhooks": (owner) => TestWebhooks.subscribe(owner),
  // the message.queued event of a message the owner sent
  "/v1/events": (owner) =>
    Effect.gen(function*() {
      const sent = yield* TestMessages.send(TestMessages.validSend, { key: owner.key })
      assert.strictEqual(sent.status, 201, sent.text)
      const events = yield* Http.request("GET", "/v1/events?type=message.queued", { key: owner.key })
      const event = (events.json.data as Array<{ id: string; data: { id: string } }>).find((e) =>
        e.data.id === sent.json.data.id
      )
      assert.isDefined(event, events.text)
      return event!.id
    }),
  // a batch of one scheduled message of the owner's
  "/v1/messaging/batches": (owner) =>
    Effect.map(
      Http.request("POST", "/v1/messaging/batches", {
        key: owner.key,
        json: {
          messages: [{
            ...TestMessages.validSend,
            scheduled_at: new Date(TestServer.start + 3_600_000).toISOString()
          }]
        }
      }),
      (reply) => {
        assert.strictEqual(reply.status, 201, reply.text)
        return reply.json.data.id as string
      }
    ),
  "/v1/messaging/messages": (owner) =>
    Effect.map(
      TestMessages.send({
        ...TestMessages.validSend,
        scheduled_at: new Date(TestServer.start + 3_600_000).toISOString()
      }, { key: owner.key }),
      (reply) => {
        assert.strictEqual(reply.status, 201, reply.text)
        return reply.json.data.id as string
      }
    )
}

/** The numbers the opt-out fixtures have listed so far. */
let optOutNumbers = 0

/** The id of a listed resource; an opt-out's, its number as a path names it. */
const idOf = (item: { readonly id?: string; readonly phone?: string }) => item.id ?? encodeURIComponent(item.phone!)

const fixtureOf = (path: string) => fixtures[path.split("/:")[0]!]

/** The account whose resource a fixture makes, and a stranger to it: an operator and another network's for registrations. */
const actorsOf = (path: string) =>
  path.startsWith("/v1/operator-registrations")
    ? Effect.all({ owner: TestAccounts.newOperator("telstra"), stranger: TestAccounts.newOperator("optus") })
    : path.startsWith("/v1/sids")
    // no imported Sender ID, so that each lists its fixture's alone
    ? Effect.all({ owner: TestAccounts.newCaller(), stranger: TestAccounts.newCaller() })
    : Effect.all({
      owner: TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] }),
      stranger: TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
    })

/**
 * What the Brand Owner of the provider's brand may do on it, by endpoint (its relationship already
 * approved: a decision again is 409); every other endpoint on a resource of the provider is 404.
 * PATCH is 404 too: the owner reads the brand, and CONTRACT §5 gives "none" (no relationship of
 * its own) 404.
 */
const brandOwnerMay: Record<string, number> = {
  "GET /v1/brands/:id": 200,
  "GET /v1/brand-relationships/:id": 200,
  "POST /v1/brand-relationships/:id/approve": 409,
  "POST /v1/brand-relationships/:id/reject": 409
}

layer(TestServer.layer())("access matrix", (it) => {
  it("every endpoint needs a permission, but the open ones", () => {
    assert.deepStrictEqual(endpoints.filter((e) => e.permission === undefined).map((e) => e.name), open)
  })

  for (const endpoint of endpoints.filter((e) => e.permission !== undefined)) {
    it.effect(`${endpoint.name} without ${endpoint.permission}: 403 permission_denied, naming it`, () =>
      Effect.gen(function*() {
        const { main } = yield* TestServer.TestServer
        const lacking = yield* TestAccounts.newKey(
          main.accountId,
          Permission.all.filter((p) => p !== endpoint.permission)
        )
        const reply = yield* call(endpoint, withId(endpoint.path, "msg_00000000000000000000000000"), lacking.key)
        Replies.assertError(reply, 403, "permission_denied")
        assert.include(reply.json.error.message, endpoint.permission!)
      }))
  }

  for (const endpoint of endpoints.filter((e) => e.path.includes("/:"))) {
    it.effect(`${endpoint.name} on another account's resource: 404 not_found, and the resource unchanged`, () =>
      Effect.gen(function*() {
        const fixture = fixtureOf(endpoint.path)
        assert.isDefined(fixture, `${endpoint.name}: add a fixture for ${endpoint.path.split("/:")[0]} to this test`)
        const { owner, stranger } = yield* actorsOf(endpoint.path)
        const id = yield* fixture!(owner)
        const before = yield* Http.request("GET", withId(endpoint.path.split("/:")[0] + "/:id", id), { key: owner.key })
        Replies.assertError(yield* call(endpoint, withId(endpoint.path, id), stranger.key), 404, "not_found")
        const after = yield* Http.request("GET", withId(endpoint.path.split("/:")[0] + "/:id", id), { key: owner.key })
        assert.deepStrictEqual(after.json.data, before.json.data)
      }))
  }

  for (
    const endpoint of endpoints.filter((e) =>
      e.method === "GET" && fixtureOf(e.path) !== undefined && !e.path.includes("/:")
    )
  ) {
    it.effect(`${endpoint.name} never lists another account's resources`, () =>
      Effect.gen(function*() {
        const { owner, stranger } = yield* actorsOf(endpoint.path)
        const id = yield* fixtureOf(endpoint.path)!(owner)
        yield* fixtureOf(endpoint.path)!(stranger)
        const everything = "?page_size=100"
        const mine = yield* call(endpoint, endpoint.path + everything, owner.key)
        const theirs = yield* call(endpoint, endpoint.path + everything, stranger.key)
        assert.include(mine.json.data.map(idOf), id)
        assert.notInclude(theirs.json.data.map(idOf), id)
        // a network's list holds every registration submitted to it, the stranger's fixture's among them
        if (!endpoint.path.startsWith("/v1/operator-registrations")) assert.strictEqual(theirs.json.data.length, 1)
      }))
  }

  for (const endpoint of endpoints.filter((e) => e.path.includes("/:"))) {
    const expected = brandOwnerMay[endpoint.name] ?? 404
    it.effect(`${endpoint.name} with the key of the Brand Owner of the provider's brand: ${expected}`, () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
        const { brandId, owner, relationshipId } = yield* TestBrands.approvedBrand(provider)
        const prefix = endpoint.path.split("/:")[0]!
        const id = prefix === "/v1/brands"
          ? brandId
          : prefix === "/v1/brand-relationships"
          ? relationshipId
          : yield* fixtureOf(endpoint.path)!(provider)
        const reply = yield* call(endpoint, withId(endpoint.path, id), owner.key)
        assert.strictEqual(reply.status, expected, reply.text)
      }))
  }

  it.effect("the Brand Owner lists the provider's brand, and none of the provider's messages", () =>
    Effect.gen(function*() {
      const provider = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      const { brandId, owner } = yield* TestBrands.approvedBrand(provider)
      const message = yield* fixtureOf("/v1/messaging/messages")!(provider)
      const brands = yield* Http.request("GET", "/v1/brands", { key: owner.key })
      assert.deepStrictEqual(brands.json.data.map((b: { id: string }) => b.id), [brandId])
      const messages = yield* Http.request("GET", "/v1/messaging/messages", { key: owner.key })
      assert.notInclude(messages.json.data.map((m: { id: string }) => m.id), message)
      assert.deepStrictEqual(messages.json.data, [])
    }))
})
