import { assert, layer } from "@effect/vitest"
import { CapturingTransport } from "@sendline/core/testing"
import { Clock, Effect } from "effect"
import * as Http from "./support/Http.js"
import * as Replies from "./support/Replies.js"
import * as TestAccounts from "./support/TestAccounts.js"
import * as TestMessages from "./support/TestMessages.js"
import * as TestServer from "./support/TestServer.js"
import * as TestWebhooks from "./support/TestWebhooks.js"

type JsonSchema = Record<string, any>

/** The problems of `value` against the subset of JSON Schema that the generated document uses. */
const validate = (schema: JsonSchema, value: unknown, defs: Record<string, JsonSchema>, at = "$"): Array<string> => {
  if (schema.$ref !== undefined) {
    const name = String(schema.$ref).replace("#/components/schemas/", "").replace(/~1/g, "/").replace(/~0/g, "~")
    assert.isDefined(defs[name], `schema ${name} is defined`)
    return validate(defs[name]!, value, defs, at)
  }
  if (schema.anyOf !== undefined) {
    const fits = schema.anyOf.some((option: JsonSchema) => validate(option, value, defs, at).length === 0)
    return fits ? [] : [`${at}: ${JSON.stringify(value)} matches none of anyOf`]
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in enum`]
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: not an object`]
      const record = value as Record<string, unknown>
      const problems = (schema.required ?? []).filter((key: string) => !(key in record)).map((key: string) =>
        `${at}.${key}: missing`
      )
      for (const [key, item] of Object.entries(record)) {
        const property = schema.properties?.[key]
        if (property !== undefined) {
          for (const problem of validate(property, item, defs, `${at}.${key}`)) problems.push(problem)
        } else if (schema.additionalProperties === false) problems.push(`${at}.${key}: not documented`)
      }
      return problems
    }
    case "array":
      return Array.isArray(value)
        ? value.flatMap((item, i) => validate(schema.items ?? {}, item, defs, `${at}[${i}]`))
        : [`${at}: not an array`]
    case "string":
      return typeof value === "string" ? [] : [`${at}: not a string`]
    case "integer":
      return Number.isInteger(value) ? [] : [`${at}: not an integer`]
    case "number":
      return typeof value === "number" ? [] : [`${at}: not a number`]
    case "boolean":
      return typeof value === "boolean" ? [] : [`${at}: not a boolean`]
    case "null":
      return value === null ? [] : [`${at}: not null`]
  }
  return []
}

const fetchDocument = Effect.map(Http.request("GET", "/v1/openapi.json", { key: null }), (reply) => reply.json)

/** Asserts that `doc` documents `reply`'s status for `method path`, and that its body validates against it. */
const assertDocumented = (doc: JsonSchema, method: string, path: string, reply: Http.Reply) => {
  const response = doc.paths[path]?.[method]?.responses[String(reply.status)]
  assert.isDefined(response, `${method} ${path} documents ${reply.status}`)
  const problems = validate(response.content["application/json"].schema, reply.json, doc.components.schemas)
  assert.deepStrictEqual(problems, [], `${method} ${path} ${reply.status}: ${reply.text}`)
}

layer(TestServer.layer())("OpenAPI document and health", (it) => {
  it.effect("GET /v1/openapi.json: 200 JSON, without a key, describing the messaging endpoints", () =>
    Effect.gen(function*() {
      const reply = yield* Http.request("GET", "/v1/openapi.json", { key: null })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
      assert.match(reply.headers.get("x-request-id") ?? "", Replies.requestIdPattern)
      const doc = reply.json
      assert.match(doc.openapi, /^3\./)
      const messages = doc.paths["/v1/messaging/messages"]
      assert.containsAllKeys(messages, ["get", "post"])
      assert.containsAllKeys(doc.paths["/v1/messaging/preview"], ["post"])
      assert.containsAllKeys(doc.paths["/v1/messaging/messages/{id}"], ["get"])
      assert.containsAllKeys(doc.paths["/v1/messaging/messages/{id}/cancel"], ["post"])
      assert.containsAllKeys(messages.post.responses, ["201", "400", "401", "403", "422", "429", "503"])
      assert.deepStrictEqual(messages.post.security, [{ bearer: [] }])
      assert.strictEqual(doc.components.securitySchemes.bearer.scheme, "bearer")
      const query = messages.get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)
      assert.includeMembers(query, [
        "query:market",
        "query:status",
        "query:sender_id",
        "query:reference",
        "query:from",
        "query:to",
        "query:cursor",
        "query:page_size"
      ])
      assert.containsAllKeys(doc.components.schemas, ["Message", "MessageListItem", "Preview", "SendMessage", "Error"])
    }))

  it.effect("every error response is documented as the error envelope; no internal schema names leak", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDocument
      for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
        for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
          assert.property(operation.responses, "500", `${method} ${path}: a defect answers 500 internal_error`)
          for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
            if (Number(status) < 400) continue
            assert.deepStrictEqual(
              response.content["application/json"].schema,
              { $ref: "#/components/schemas/Error" },
              `${method} ${path} ${status}`
            )
            assert.notInclude(response.description, "@sendline")
          }
        }
      }
      for (const name of Object.keys(doc.components.schemas)) assert.notMatch(name, /@sendline|HttpApi|Defect/)
    }))

  it.effect("POSTs document Idempotency-Key, 413 and 415; request bodies allow unknown fields; /health no key errors", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDocument
      for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
        const post = operations["post"]
        if (post === undefined) continue
        assert.deepInclude(post.parameters.map((p: { name: string; in: string }) => [p.in, p.name]), [
          "header",
          "Idempotency-Key"
        ], path)
        if (post.requestBody === undefined) continue
        assert.containsAllKeys(post.responses, ["413", "415"], path)
        // the opt-outs import takes text/csv, not JSON
        if (post.requestBody.content["application/json"] === undefined) {
          assert.deepStrictEqual(Object.keys(post.requestBody.content), ["text/csv"], path)
          continue
        }
        const schema = doc.components.schemas[post.requestBody.content["application/json"].schema.$ref.split("/").pop()]
        assert.notStrictEqual(schema.additionalProperties, false, `${path}: CONTRACT §1 ignores unknown body fields`)
      }
      assert.deepStrictEqual(Object.keys(doc.paths["/health"].get.responses).sort(), ["200", "400", "500"])
      assert.deepStrictEqual(Object.keys(doc.paths["/ready"].get.responses).sort(), ["200", "400", "500", "503"])
    }))

  it.effect("every path {id} is documented with its resource's id pattern", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDocument
      const prefixes: Record<string, string> = {}
      for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
        for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
          for (const parameter of operation.parameters ?? []) {
            if (parameter.in !== "path") continue
            // an opt-out is named by its number, not an id (CONTRACT §12)
            if (path.startsWith("/v1/opt-outs/")) {
              assert.strictEqual(parameter.name, "phone", path)
              continue
            }
            prefixes[`${method} ${path}`] =
              /^\^([a-z]+)_\[0-9a-hjkmnp-tv-z\]\{26\}\$$/.exec(parameter.schema.pattern)?.[1] ??
                `no id pattern: ${JSON.stringify(parameter.schema)}`
          }
        }
      }
      const resource = (path: string) => path.split("/")[path.startsWith("/v1/messaging/") ? 3 : 2]
      const expected: Record<string, string> = {
        messages: "msg",
        batches: "bat",
        brands: "brand",
        "brand-relationships": "rel",
        sids: "sid",
        "operator-registrations": "opreg",
        webhooks: "wh",
        events: "evt"
      }
      assert.strictEqual(Object.keys(prefixes).length, 22)
      for (const [operation, prefix] of Object.entries(prefixes)) {
        assert.strictEqual(prefix, expected[resource(operation.split(" ")[1]!)!], operation)
      }
    }))

  it.effect("every /v1 operation names the permission it needs", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDocument
      const needs: Record<string, string> = {}
      for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
        if (!path.startsWith("/v1/messaging/")) continue
        for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
          needs[`${method} ${path}`] = operation.description
        }
      }
      assert.deepStrictEqual(needs, {
        "post /v1/messaging/messages": "Needs the messaging:send permission.",
        "get /v1/messaging/messages": "Needs the messaging:read permission.",
        "post /v1/messaging/preview": "Needs the messaging:send permission.",
        "get /v1/messaging/messages/{id}": "Needs the messaging:read permission.",
        "post /v1/messaging/messages/{id}/cancel": "Needs the messaging:send permission.",
        "post /v1/messaging/batches": "Needs the messaging:send permission.",
        "get /v1/messaging/batches/{id}": "Needs the messaging:read permission."
      })
    }))

  it.effect("real responses, successes and errors, validate against the document's schemas", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDocument
      const defs = doc.components.schemas
      const now = yield* Clock.currentTimeMillis
      const reader = yield* TestAccounts.newKey((yield* TestServer.TestServer).main.accountId, ["messaging:read"])
      const sent = yield* TestMessages.send({ ...TestMessages.validSend, reference: "r-1" })
      const scheduled = yield* TestMessages.send({
        ...TestMessages.validSend,
        scheduled_at: new Date(now + 3_600_000).toISOString()
      })
      const cases: ReadonlyArray<readonly [string, string, Http.Reply]> = [
        ["post", "/v1/messaging/messages", sent],
        ["post", "/v1/messaging/messages", scheduled],
        ["post", "/v1/messaging/messages", yield* TestMessages.send({ ...TestMessages.validSend, market: "US" })],
        ["post", "/v1/messaging/messages", yield* TestMessages.send({ to: 1 })],
        ["post", "/v1/messaging/messages", yield* TestMessages.send(TestMessages.validSend, { key: null })],
        ["post", "/v1/messaging/messages", yield* TestMessages.send(TestMessages.validSend, { key: reader.key })],
        ["post", "/v1/messaging/preview", yield* TestMessages.preview({ body: "It’s 😀", market: "AU" })],
        ["post", "/v1/messaging/preview", yield* TestMessages.preview({ body: "Hi" })],
        ["get", "/v1/messaging/messages", yield* TestMessages.list({ page_size: "1" })],
        ["get", "/v1/messaging/messages", yield* TestMessages.list({ page_size: "0" })],
        ["get", "/v1/messaging/messages", yield* TestMessages.list({ cursor: "cur_x" })],
        [
          "get",
          "/v1/messaging/messages/{id}",
          yield* Http.request("GET", `/v1/messaging/messages/${sent.json.data.id}`)
        ],
        ["get", "/v1/messaging/messages/{id}", yield* Http.request("GET", "/v1/messaging/messages/msg_unknown")],
        [
          "post",
          "/v1/messaging/messages/{id}/cancel",
          yield* Http.request("POST", `/v1/messaging/messages/${scheduled.json.data.id}/cancel`)
        ],
        [
          "post",
          "/v1/messaging/messages/{id}/cancel",
          yield* Http.request("POST", `/v1/messaging/messages/${sent.json.data.id}/cancel`)
        ],
        ["get", "/health", yield* Http.request("GET", "/health", { key: null })],
        ["get", "/ready", yield* Http.request("GET", "/ready", { key: null })]
      ]
      assert.deepStrictEqual(
        cases.map(([, , reply]) => reply.status),
        [201, 201, 422, 400, 401, 403, 200, 200, 200, 400, 400, 200, 404, 200, 409, 200, 200]
      )
      for (const [method, path, reply] of cases) assertDocumented(doc, method, path, reply)

      // the checker itself refuses what the document does not describe
      const created = doc.paths["/v1/messaging/messages"].post.responses["201"].content["application/json"].schema
      assert.isNotEmpty(validate(created, { ...sent.json, data: { ...sent.json.data, extra: 1 } }, defs))
      assert.isNotEmpty(validate(created, { ...sent.json, data: { ...sent.json.data, segments: "1" } }, defs))
      assert.isNotEmpty(validate(created, { ...sent.json, data: { ...sent.json.data, status: "lost" } }, defs))
      assert.isNotEmpty(validate(created, { ...sent.json, meta: {} }, defs))
    }))

  it.effect("the webhook delivery log and the event log: documented with their filters, each needing webhooks:manage; real responses validate", () =>
    Effect.gen(function*() {
      const doc = yield* fetchDocument
      const operations = [
        ["get", "/v1/webhooks/{id}/deliveries"],
        ["post", "/v1/webhooks/{id}/redeliver"],
        ["get", "/v1/events"],
        ["get", "/v1/events/{id}"],
        ["post", "/v1/events/{id}/redeliver"]
      ] as const
      for (const [method, path] of operations) {
        assert.strictEqual(
          doc.paths[path]?.[method]?.description,
          "Needs the webhooks:manage permission.",
          `${method} ${path}`
        )
      }
      const query = (path: string) =>
        doc.paths[path].get.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) =>
          p.name
        )
      assert.sameMembers(query("/v1/webhooks/{id}/deliveries"), ["event_type", "state", "cursor", "page_size"])
      assert.sameMembers(query("/v1/events"), ["type", "created_after", "cursor", "page_size"])
      assert.containsAllKeys(doc.paths["/v1/events/{id}/redeliver"].post.responses, ["200", "404", "422"])
      assert.containsAllKeys(doc.paths["/v1/webhooks/{id}/redeliver"].post.responses, ["200", "400", "404", "409"])
      assert.containsAllKeys(doc.components.schemas, [
        "Delivery",
        "Event",
        "EventRedelivered",
        "RedeliverWebhook",
        "WebhookRedelivered"
      ])

      // a caller of its own: the main caller's earlier events would be delivered to the subscription too
      const caller = yield* TestAccounts.newCaller({ senderIds: [["Acme", "AU"]] })
      const key = caller.key
      const webhook = yield* TestWebhooks.subscribe(caller, { url: "https://hooks.acme.example/openapi" })
      yield* Effect.flatMap(
        CapturingTransport.CapturingTransport,
        (t) => t.answerWith(CapturingTransport.status(500, "down"))
      )
      const sent = yield* TestMessages.send(TestMessages.validSend, { key })
      yield* TestWebhooks.deliver
      const listed = yield* Http.request("GET", "/v1/events?type=message.queued", { key })
      const event = listed.json.data.find((e: { data: { id: string } }) => e.data.id === sent.json.data.id).id as string
      const cases: ReadonlyArray<readonly [string, string, Http.Reply]> = [
        [
          "get",
          "/v1/webhooks/{id}/deliveries",
          yield* Http.request("GET", `/v1/webhooks/${webhook}/deliveries`, { key })
        ],
        [
          "get",
          "/v1/webhooks/{id}/deliveries",
          yield* Http.request("GET", `/v1/webhooks/${webhook}/deliveries?state=lost`, { key })
        ],
        [
          "post",
          "/v1/webhooks/{id}/redeliver",
          yield* Http.request("POST", `/v1/webhooks/${webhook}/redeliver`, { key, json: { since: "2026-11-22" } })
        ],
        [
          "post",
          "/v1/webhooks/{id}/redeliver",
          yield* Http.request("POST", `/v1/webhooks/${webhook}/redeliver`, { key, json: {} })
        ],
        ["get", "/v1/events", listed],
        ["get", "/v1/events", yield* Http.request("GET", "/v1/events?created_after=soon", { key })],
        ["get", "/v1/events/{id}", yield* Http.request("GET", `/v1/events/${event}`, { key })],
        ["get", "/v1/events/{id}", yield* Http.request("GET", "/v1/events/evt_unknown", { key })],
        ["post", "/v1/events/{id}/redeliver", yield* Http.request("POST", `/v1/events/${event}/redeliver`, { key })]
      ]
      assert.deepStrictEqual(cases.map(([, , reply]) => reply.status), [200, 400, 200, 400, 200, 400, 200, 404, 200])
      assert.deepStrictEqual(cases[0]![2].json.data.map((d: { state: string }) => d.state), ["pending", "failed"])
      for (const [method, path, reply] of cases) assertDocumented(doc, method, path, reply)
    }))

  it.effect("GET /health: 200 without a key, in the success envelope", () =>
    Effect.gen(function*() {
      const reply = yield* Http.request("GET", "/health", { key: null })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.json.ok, true)
      assert.deepStrictEqual(reply.json.data, { status: "ok" })
      assert.strictEqual(reply.json.meta.request_id, reply.headers.get("x-request-id"))
      assert.match(reply.headers.get("x-request-id") ?? "", Replies.requestIdPattern)
    }))

  it.effect("GET /docs: the API reference page, without a key, generated from the same document", () =>
    Effect.gen(function*() {
      const reply = yield* Http.request("GET", "/docs", { key: null })
      assert.strictEqual(reply.status, 200)
      assert.match(reply.headers.get("content-type") ?? "", /text\/html/)
      const embedded = /<script id="api-reference" type="application\/json">([\s\S]*?)<\/script>/.exec(reply.text)
      assert.isNotNull(embedded, "the page embeds its document")
      assert.deepStrictEqual(JSON.parse(embedded![1]!), yield* fetchDocument)
    }))
})
