/**
 * The HTTP test harness: the real `/v1` server on an ephemeral port, over the core use cases and a
 * SQLite `:memory:` database (or a store of the test's), with raw `fetch` helpers that keep status,
 * headers and bytes.
 *
 * Meant for `@effect/vitest`'s `layer(Harness.layer())`: its `TestClock` is then the server's clock
 * too, so tests move the server's time with `TestClock.adjust` (no sleeps). The clock starts at
 * `Harness.start`. The workers are there too, not started: a test runs their passes itself
 * (`Workers.runOnce`, or one worker's `runOnce`, `deliver` for the WebhookDeliverer).
 *
 * Every reply `request` reads is checked against the OpenAPI document (`ResponseValidator`): an
 * undocumented status or a body off its schema fails the test that made the request.
 */
import { assert } from "@effect/vitest"
import { HttpServer } from "@effect/platform"
import { CarrierMock } from "@sendline/carrier-mock"
import {
  Admin,
  BrandVerifier,
  Demo,
  IdempotencyStore,
  Ids,
  Mailer,
  Markets,
  MessagingConfig,
  Permission,
  Services,
  type Stores,
  WebhookDeliverer,
  type WebhookTransport,
  Workers
} from "@sendline/core"
import { CapturingTransport, Fixtures } from "@sendline/core/testing"
import { SqliteStore } from "@sendline/store-sqlite"
import { Clock, Context, Effect, Layer, Option, Schema, TestClock } from "effect"
import * as Envelope from "../../src/envelope/Envelope.js"
import * as Listener from "../../src/server/Listener.js"
import * as Server from "../../src/server/Server.js"
import * as ResponseValidator from "./ResponseValidator.js"

/** The server's clock at start: 2026-11-22T07:00:00.000Z. */
export const start = Date.UTC(2026, 10, 22, 7, 0, 0)

/** A caller: an account and one of its API keys. */
export interface Caller {
  readonly accountId: string
  readonly keyId: string
  readonly key: string
}

/** What came back: status, headers, the raw body and its JSON (undefined when not JSON). */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

/** How to send a request. */
export interface RequestOptions {
  /** The API key; defaults to the main caller's; `null` sends no `Authorization` header. */
  readonly key?: string | null | undefined
  /** A value sent as JSON with `Content-Type: application/json`. */
  readonly json?: unknown
  /** A raw body, text or bytes (no content type unless given in `headers`). */
  readonly body?: string | Uint8Array
  readonly headers?: Record<string, string>
}

/** The running server. */
export class Harness extends Context.Tag("@sendline/http/test/Harness")<Harness, {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** An account with every permission and Sender ID `Acme` registered in every market. */
  readonly main: Caller
  /** The demo organisation (`Demo.ensure`): another account, with Sender ID `Sendline` everywhere. */
  readonly demo: Caller
}>() {}

/** Sends one request to the server and reads the whole reply. */
export const request = (method: string, path: string, options: RequestOptions = {}): Effect.Effect<Reply, never, Harness> =>
  Effect.flatMap(Harness, (harness) =>
    Effect.promise(async () => {
      const headers: Record<string, string> = {}
      const key = options.key === undefined ? harness.main.key : options.key
      if (key !== null) headers.authorization = `Bearer ${key}`
      let body: string | Uint8Array | undefined = options.body
      if (options.json !== undefined) {
        headers["content-type"] = "application/json"
        body = JSON.stringify(options.json)
      }
      const response = await fetch(harness.url + path, {
        method,
        headers: { ...headers, ...options.headers },
        ...(body === undefined ? {} : { body })
      })
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      const reply = { status: response.status, headers: response.headers, text, json }
      assertDocumented(method, path, reply)
      return reply
    }))

/**
 * Fails the test unless `reply` is documented: its status listed for the operation answering
 * `method path` and its JSON body matching that status's schema (a path the document does not
 * describe, such as `/docs`, is not checked).
 */
const assertDocumented = (method: string, path: string, reply: Reply): void => {
  const validator = ResponseValidator.served()
  const problems = validator.check(method, path, reply)
  if (problems === undefined) return
  ResponseValidator.record(`${problems.length === 0 ? "ok" : "mismatch"} ${validator.operationOf(method, path)!.name} ${reply.status}`)
  assert.deepStrictEqual(problems, [], `${method} ${path} answered ${reply.status}, not as the OpenAPI document says: ${reply.text.slice(0, 500)}`)
}

/** A valid send request for the main caller; override fields as needed. */
export const validSend = { to: "+61412345678", sender_id: "Acme", body: "Hello from Acme", market: "AU" }

/**
 * 21,000 distinct CJK characters: a 63 KB body (just under the 64 KiB request limit) whose preview
 * answers ~126 KB, each character being one that forces UCS-2.
 */
export const cjkBody = Array.from({ length: 21_000 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("")

/** `POST /v1/messaging/messages` with `json` (the main caller's key unless given). */
export const send = (json: unknown, options: Omit<RequestOptions, "json"> = {}) =>
  request("POST", "/v1/messaging/messages", { ...options, json })

/** `POST /v1/messaging/preview` with `json`. */
export const preview = (json: unknown, options: Omit<RequestOptions, "json"> = {}) =>
  request("POST", "/v1/messaging/preview", { ...options, json })

/** `GET /v1/messaging/messages` with `query`. */
export const list = (query: Record<string, string> = {}, options: RequestOptions = {}) =>
  request("GET", "/v1/messaging/messages?" + new URLSearchParams(query).toString(), options)

/** A valid `POST /v1/webhooks` body (https, a public host): the main caller's, unless overridden. */
export const webhookBody = {
  url: "https://hooks.acme.example/sendline",
  events: ["message.queued"] as ReadonlyArray<string>,
  secret: "whsec-0123456789abcdef"
}

/** A new subscription of `caller` to `webhookBody` with `overrides` (201 asserted): its id. */
export const subscribe = (caller: Caller, overrides: Partial<typeof webhookBody> = {}) =>
  Effect.map(request("POST", "/v1/webhooks", { key: caller.key, json: { ...webhookBody, ...overrides } }), (reply) => {
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.json.data.id as string
  })

/** The fields of a delivery's JSON while it is pending, not attempted: all but its times are unknown. */
export const unattempted = {
  state: "pending",
  url: null,
  status_code: null,
  error: null,
  duration_ms: null,
  response_body: null,
  attempted_at: null,
  next_attempt_at: null
} as const

/** One pass of the WebhookDeliverer, its attempts awaited: how many it made. */
export const deliver = Effect.flatMap(WebhookDeliverer.WebhookDeliverer, (deliverer) => Effect.orDie(deliverer.runOnce))

/** A new account with `senderIds` registered (each `[senderId, market]`) and a key with `permissions`. */
export const newCaller = (options: {
  readonly senderIds?: ReadonlyArray<readonly [string, string]>
  readonly permissions?: ReadonlyArray<Permission.Permission>
} = {}): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: "Test Org", type: "cpaas", adminEmail: "admin@test.example" })
    for (const [senderId, market] of options.senderIds ?? []) {
      yield* admin.importSenderId({ accountId: account.id, senderId, market, identifier: Fixtures.exampleIdentifiers[market]!, brandName: "Test Brand" })
    }
    return yield* newKey(account.id, options.permissions ?? Permission.all)
  }).pipe(Effect.orDie)

let acns = 0
const acnBase = Math.floor(Math.random() * 90_000) * 1_000

/** A new valid ACN (9 digits, ASIC's check digit), unique within this run: an identifier no Brand Owner owns yet. */
export const freshAcn = (): string => {
  const digits = String(acnBase + ++acns).padStart(8, "0")
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * (8 - i), 0)
  return digits + String((10 - sum % 10) % 10)
}

/** A valid `POST /v1/brands` body for an AU brand of the ACN `acn`; override fields as needed. */
export const brandBody = (acn: string) => ({
  name: "Acme Pty Ltd",
  identifier_type: "ACN",
  identifier_value: acn,
  market: "AU",
  contact: { name: "Jo Citizen", email: "jo@acme.example", phone: "+61412345678" },
  website: "https://acme.example"
})

/** A new Brand Owner: a `brand` account owning the ACN `acn`, with a key holding every permission. */
export const newBrandOwner = (acn: string): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({
      name: "Acme Pty Ltd",
      type: "brand",
      adminEmail: "legal@acme.example",
      identifiers: [{ identifierType: "ACN", identifierValue: acn }]
    })
    return yield* newKey(account.id, Permission.all)
  }).pipe(Effect.orDie)

/** A brand of the ACN `acn` submitted with `provider`'s key, and its relationship's id (201 asserted). */
export const submitBrand = (provider: Caller, acn: string) =>
  Effect.gen(function*() {
    const created = yield* request("POST", "/v1/brands", { key: provider.key, json: brandBody(acn) })
    assert.strictEqual(created.status, 201, created.text)
    const brandId = created.json.data.id as string
    const listed = yield* request("GET", "/v1/brand-relationships?page_size=100", { key: provider.key })
    const relationship = (listed.json.data as Array<{ id: string; brand: { id: string } }>).find((r) => r.brand.id === brandId)
    assert.isDefined(relationship, listed.text)
    return { brandId, relationshipId: relationship!.id }
  })

/** A brand `provider` submitted and a new Brand Owner approved: the provider reads and changes it. */
export const approvedBrand = (provider: Caller) =>
  Effect.gen(function*() {
    const acn = freshAcn()
    const owner = yield* newBrandOwner(acn)
    const { brandId, relationshipId } = yield* submitBrand(provider, acn)
    const approved = yield* request("POST", `/v1/brand-relationships/${relationshipId}/approve`, { key: owner.key })
    assert.strictEqual(approved.status, 200, approved.text)
    return { brandId, relationshipId, owner }
  })

/** A new operator account of `network` in `market` (AU's telstra unless given), with a key to review its registrations. */
export const newOperator = (network = "telstra", market = "AU"): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: `${network} (${market})`, type: "operator", adminEmail: `ops@${network}.example`, network, market })
    return yield* newKey(account.id, ["operator:read", "operator:write"])
  }).pipe(Effect.orDie)

let senderIds = 0

/** A new Sender ID string, unique within this run (for registrations that must not collide). */
export const freshSenderId = (): string => `Sid${String(Date.now() % 100_000).padStart(5, "0")}${String(++senderIds).padStart(3, "0")}`.slice(0, 11)

/** A valid `POST /v1/sids` body for `brandId` in AU; override fields as needed. */
export const sidBody = (brandId: string, senderId: string = freshSenderId()) => ({
  sender_id: senderId,
  brand_id: brandId,
  market: "AU",
  use_case: "Appointment reminders",
  match_type: "business_name",
  match_value: "Acme Pty Ltd"
})

/** A Sender ID `provider` registered for a new approved brand of its own (201 asserted): its JSON. */
export const registeredSid = (provider: Caller, senderId?: string) =>
  Effect.gen(function*() {
    const { brandId } = yield* approvedBrand(provider)
    const created = yield* request("POST", "/v1/sids", { key: provider.key, json: sidBody(brandId, senderId) })
    assert.strictEqual(created.status, 201, created.text)
    return created.json.data as {
      readonly id: string
      readonly sender_id: string
      readonly status: string
      readonly registrations: ReadonlyArray<{ readonly id: string; readonly network: string; readonly status: string }>
    }
  })

/** A new key of `accountId`. */
export const newKey = (
  accountId: string,
  permissions: ReadonlyArray<Permission.Permission>,
  expiresAt?: number
): Effect.Effect<Caller, never, Admin.Admin> =>
  Effect.flatMap(Admin.Admin, (admin) => admin.createKey({ accountId, permissions, expiresAt })).pipe(
    Effect.map(({ apiKey, secret }) => ({ accountId, keyId: apiKey.id, key: secret })),
    Effect.orDie
  )

/** `req_` + 26 lowercase Crockford base32 characters. */
export const requestIdPattern = /^req_[0-9a-hjkmnp-tv-z]{26}$/

/** RFC 3339, UTC as `+00:00`, with milliseconds. */
export const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/

/** Decodes `value` with a documented schema, refusing any field the schema does not document. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown): A =>
  Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(value)

/** Asserts the envelope's `meta` and the `X-Request-Id` header agree and are well formed. */
export const assertMeta = (reply: Reply): void => {
  const requestId = reply.headers.get("x-request-id")
  assert.match(requestId ?? "", requestIdPattern)
  assert.strictEqual(reply.json?.meta?.request_id, requestId)
  assert.match(reply.json.meta.timestamp, timestampPattern)
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
}

/** Asserts an error envelope with `status` and `code` (and `field` when given; `null`: no field). */
export const assertError = (reply: Reply, status: number, code: string, field?: string | null): void => {
  assert.strictEqual(reply.status, status, `expected ${status} ${code}, got ${reply.status}: ${reply.text}`)
  decode(Envelope.ErrorEnvelope, reply.json)
  assert.strictEqual(reply.json.ok, false)
  assert.strictEqual(reply.json.error.code, code, reply.text)
  if (field !== undefined) assert.strictEqual(reply.json.error.field, field ?? undefined, reply.text)
  assertMeta(reply)
}

/**
 * The server, on its own listener, over a fresh SQLite `:memory:` database (or over `store`, which
 * may wrap one, and whose other services the tests get too), with the main caller and the demo
 * data. The limits (`rateLimitPerSecond`, `authFailuresPerMinute`) default to 0 (off), since the
 * test clock only moves when told to; `messaging` overrides the default messaging settings. The
 * workers' services, not started, run over the simulated carrier, the mailer that logs and
 * `transport` (by default the capturing one): the tests get what it provides too.
 */
export const layer = <S = Stores.Stores, T = CapturingTransport.CapturingTransport>(
  options: Partial<Server.Options> & {
    /** Every storage port, and whatever else the tests need of it (its `SqlClient`). */
    readonly store?: Layer.Layer<S, unknown>
    readonly messaging?: Partial<MessagingConfig.Settings>
    /** The brand verifier; the default one (verified at once) unless given. */
    readonly verifier?: Layer.Layer<BrandVerifier.BrandVerifier>
    /** What the WebhookDeliverer posts through: `CapturingTransport.layer` unless given. */
    readonly transport?: Layer.Layer<T | WebhookTransport.WebhookTransport, unknown>
  } = {}
) => {
  const {
    messaging,
    store: given,
    transport = CapturingTransport.layer as Layer.Layer<T | WebhookTransport.WebhookTransport>,
    verifier = BrandVerifier.layer,
    ...serving
  } = options
  const store = (given ?? SqliteStore.layerSqlite({ filename: ":memory:" })) as Layer.Layer<S | Stores.Stores, unknown>
  const defaults = Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer(messaging), verifier)
  const core = Workers.layerServices().pipe(
    Layer.provideMerge(Layer.mergeAll(transport, CarrierMock.layer(), Mailer.layerLog)),
    Layer.provideMerge(Services.layerWithoutDefaults.pipe(Layer.provideMerge(defaults), Layer.provideMerge(store)))
  )
  const harness = Layer.effect(
    Harness,
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      if (server.address._tag !== "TcpAddress") return yield* Effect.die("expected a TCP address")
      const main = yield* newCaller({ senderIds: [["Acme", "AU"], ["Acme", "NZ"], ["Acme", "SG"], ["Acme", "GB"]] })
      const issued = yield* Effect.orDie(Demo.ensure)
      const demo = { accountId: issued.apiKey.accountId, keyId: issued.apiKey.id, key: issued.secret }
      return { url: `http://127.0.0.1:${server.address.port}`, main, demo }
    })
  )
  // The server's own listener (`Listener`), as `sendline serve` runs it.
  const server = Listener.layer(
    Layer.merge(Server.layerServe({ rateLimitPerSecond: 0, authFailuresPerMinute: 0, ...serving }), harness),
    { port: 0, host: "127.0.0.1" }
  )
  return server.pipe(
    Layer.provideMerge(core),
    Layer.provideMerge(Layer.effectDiscard(TestClock.setTime(start)))
  )
}

/**
 * What a crash before the answer to `key` of `accountId` was kept leaves behind: the key in
 * progress, reserved now (the reservation's fingerprint is read back from the store, then held afresh).
 */
export const crashBeforeKept = (accountId: string, key: string) =>
  Effect.gen(function*() {
    const store = yield* IdempotencyStore.IdempotencyStore
    const now = yield* Clock.currentTimeMillis
    const probe = { accountId, key, fingerprint: "probe", createdAt: now, response: Option.none() }
    const held = Option.getOrThrow(yield* store.reserve(probe, { expired: 0, abandoned: 0 }))
    yield* store.release(held)
    yield* store.reserve({ ...held, createdAt: now, response: Option.none() }, { expired: 0, abandoned: 0 })
  })
