/**
 * `receiver.ts` run as it is run by hand (its own process, `WEBHOOK_SECRET` and `PORT` from the
 * environment) against a real Sendline in this process: the API on a port of its own over SQLite
 * :memory:, its workers running on the live clock and posting through the Node transport (http and
 * private hosts allowed, the receiver being on 127.0.0.1). A sent message's events arrive verified,
 * one line each; an event delivered twice is printed once; a forged delivery is refused 401.
 */
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { CarrierMock } from "@sendline/carrier-mock"
import {
  Admin,
  BrandVerifier,
  Ids,
  Mailer,
  Markets,
  MessagingConfig,
  Services,
  Signature,
  UrlPolicy,
  Workers
} from "@sendline/core"
import { Server } from "@sendline/http"
import { SqliteStore } from "@sendline/store-sqlite"
import { NodeWebhookTransport } from "@sendline/webhooks-node"
import { Effect, Layer, Schedule } from "effect"
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { resolve } from "node:path"

const open = { allowHttp: true, allowPrivate: true }
const secret = "whsec-receiver-example-0123"

// Sendline with its workers, webhooks allowed to http on 127.0.0.1, messages delivered 100 ms after they are sent.
const Sendline = Layer.mergeAll(
  Server.layerServe({ rateLimitPerSecond: 0 }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  ),
  Workers.layer().pipe(
    Layer.provide(
      Layer.mergeAll(
        CarrierMock.layer({ reportDelay: "100 millis" }),
        Mailer.layerLog,
        NodeWebhookTransport.layer({ policy: open })
      )
    )
  )
).pipe(
  Layer.provideMerge(Services.layerWithoutDefaults),
  Layer.provideMerge(
    Layer.mergeAll(Markets.layer, Ids.layer, MessagingConfig.layer(), UrlPolicy.layer(open), BrandVerifier.layer)
  ),
  Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" }))
)

/** `receiver.ts` in a process of its own, as `npm run receiver -w examples` starts it, listening within 20 s; stopped with the scope. */
const startReceiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly lines: () => ReadonlyArray<string>; readonly stop: () => void }, Error>(
    (resume) => {
      const child = spawn(
        process.execPath,
        ["--conditions=@sendline/source", "--import", "tsx", resolve(import.meta.dirname, "receiver.ts")],
        { cwd: resolve(import.meta.dirname, "../.."), env: { ...process.env, WEBHOOK_SECRET: secret, PORT: "0" } }
      )
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => {
        stderr += chunk
        const listening = /Receiving Sendline webhooks on (http:\/\/\S+)/.exec(stderr)
        if (listening !== null) {
          resume(Effect.succeed({
            url: listening[1]!,
            lines: () => stdout.split("\n").filter((line) => line !== ""),
            stop: () => child.kill()
          }))
        }
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`receiver exited ${code}: ${stderr}`))))
      return Effect.sync(() => child.kill())
    }
  ).pipe(
    // on the live clock (scopedLive): far longer than a loaded machine needs to start it
    Effect.timeoutFail({
      duration: "20 seconds",
      onTimeout: () => new Error("the receiver did not listen within 20 s")
    })
  ),
  (receiver) => Effect.sync(receiver.stop)
)

/** A JSON request to Sendline's API with `key`. */
const api = (origin: string, key: string, method: string, path: string, json?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(origin + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(json === undefined ? {} : { "content-type": "application/json" })
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) })
    })
    return { status: response.status, json: await response.json() as any }
  })

/** Waits (real time, up to 20 s) until `check` holds. */
const eventually = (check: Effect.Effect<boolean>, what: string) =>
  check.pipe(
    Effect.filterOrFail((done) => done, () => new Error(`still waiting: ${what}`)),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("20 seconds"))),
    Effect.orDie
  )

it.scopedLive(
  "a sent message's events arrive verified and are printed once each; a forged delivery is refused",
  () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver
      const origin = yield* HttpServer.addressFormattedWith((url) => Effect.succeed(url))
      const admin = yield* Admin.Admin
      const account = yield* admin.createAccount({ name: "Acme", type: "cpaas", adminEmail: "ops@acme.example" })
      yield* admin.importSenderId({
        accountId: account.id,
        senderId: "Acme",
        market: "AU",
        identifier: { identifierType: "ABN", identifierValue: "51824753556" },
        brandName: "Acme Pty Ltd"
      })
      const { secret: key } = yield* admin.createKey({
        accountId: account.id,
        permissions: ["messaging:send", "webhooks:manage"]
      })

      const events = ["message.queued", "message.sent", "message.delivered"]
      const subscribed = yield* api(origin, key, "POST", "/v1/webhooks", { url: receiver.url, events, secret })
      assert.strictEqual(subscribed.status, 201, JSON.stringify(subscribed.json))
      const sent = yield* api(origin, key, "POST", "/v1/messaging/messages", {
        to: "+61412345678",
        sender_id: "Acme",
        body: "Hi",
        market: "AU"
      })
      assert.strictEqual(sent.status, 201, JSON.stringify(sent.json))

      // one line per event: "<created_at> <type> <event id> <data>"
      yield* eventually(Effect.sync(() => receiver.lines().length === events.length), "three events printed")
      const printed = receiver.lines().map((line) => line.split(" "))
      assert.sameMembers(printed.map(([, type]) => type!), events)
      for (const [, , , data] of printed) assert.strictEqual(JSON.parse(data!).id, sent.json.data.id)

      // delivered again: answered 200, not printed again
      const queued = printed.find(([, type]) => type === "message.queued")![2]!
      const again = yield* api(origin, key, "POST", `/v1/events/${queued}/redeliver`)
      assert.strictEqual(again.status, 200, JSON.stringify(again.json))
      const log = `/v1/webhooks/${subscribed.json.data.id}/deliveries?event_type=message.queued&state=succeeded`
      yield* eventually(
        Effect.map(api(origin, key, "GET", log), (r) => r.json.data.length === 2),
        "the redelivery answered"
      )
      assert.strictEqual(receiver.lines().length, events.length)

      // forged: signed with another secret, or a genuine X-Service-Signature beside a forged webhook-signature
      const body = JSON.stringify({
        id: "evt_forged",
        type: "message.delivered",
        created_at: "2026-11-25T00:00:00.000+00:00",
        data: {}
      })
      const at = Date.now()
      const attempt = { eventId: "evt_forged", eventType: "message.delivered", attempt: 0, body, at }
      const genuine = Signature.headers({ secret }, attempt)
      const forgeries = [
        Signature.headers({ secret: "not-the-secret-0123456789" }, attempt),
        {
          ...genuine,
          "webhook-signature": Signature.headers({ secret: "not-the-secret-0123456789" }, attempt)["webhook-signature"]!
        }
      ]
      for (const headers of forgeries) {
        const refused = yield* Effect.promise(() => fetch(receiver.url, { method: "POST", headers, body }))
        assert.strictEqual(refused.status, 401)
      }
      // the genuine one passes, so the refusals above were the signatures'
      assert.strictEqual(
        (yield* Effect.promise(() => fetch(receiver.url, { method: "POST", headers: genuine, body }))).status,
        200
      )
      assert.deepStrictEqual(receiver.lines().map((line) => line.split(" ")[2]).filter((id) => id === "evt_forged"), [
        "evt_forged"
      ])
      assert.strictEqual(receiver.lines().length, events.length + 1)
    }).pipe(Effect.provide(Sendline)),
  60_000
)
