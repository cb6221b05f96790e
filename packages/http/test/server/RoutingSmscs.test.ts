/**
 * Routing in a real `sendline serve` (CONTRACT §11): a `ROUTES_FILE` of two SMPP carriers, each
 * bound to an SMSC in the test's process, on SQLite and on PostgreSQL. A receipt's `err` maps
 * through its carrier's `errors` map to the message, its event and its webhook; an SMSC that drops
 * mid-window loses nothing; two processes on one PostgreSQL database share one routes file.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { TestSmsc } from "@sendline/carrier-smpp/testing"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sendline, serve, type Server } from "../support/Processes.js"
import { patience, startupPatience } from "../support/Waiting.js"

interface Sent {
  readonly id: string
  readonly status: string
  readonly error?: { readonly code: string; readonly message: string; readonly carrier_code?: string }
}

const call = async (server: Server, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: (await response.json()) as { data: any } }
}

const send = async (server: Server, to: string) => {
  const answer = await call(server, "POST", "/v1/messaging/messages", {
    to,
    sender_id: "Sendline",
    body: `Routed to ${to}`,
    market: "AU"
  })
  expect(answer.status).toBe(201)
  return answer.body.data.id as string
}

/** The message once its status is one of `statuses`, or as it was when `patience` ran out. */
const settled = async (server: Server, id: string, statuses: ReadonlyArray<string>): Promise<Sent> => {
  const deadline = Date.now() + patience
  for (;;) {
    const message = (await call(server, "GET", `/v1/messaging/messages/${id}`)).body.data as Sent
    if (statuses.includes(message.status) || Date.now() > deadline) return message
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A local webhook receiver keeping each body it is posted. */
const receiver = async () => {
  const bodies: Array<any> = []
  const server = createServer((request, response) => {
    let text = ""
    request.on("data", (chunk) => (text += chunk))
    request.on("end", () => {
      bodies.push(JSON.parse(text))
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    close: () => new Promise<void>((closed) => server.close(() => closed()))
  }
}

/** A routes file of `acme` and `backup` on two SMSCs: `+6141…` by acme, the rest of AU by backup then acme. */
const routesFile = (dir: string, acme: TestSmsc.Smsc, backup: TestSmsc.Smsc) => {
  const file = join(dir, `routes-${acme.port}.json`)
  const url = (smsc: TestSmsc.Smsc) => `smpp://sendline:\${SMSC_PASSWORD}@127.0.0.1:${smsc.port}?window=10`
  writeFileSync(
    file,
    JSON.stringify({
      carriers: {
        acme: { url: url(acme), errors: { "001": "unknown_subscriber" } },
        backup: { url: url(backup) }
      },
      routes: [
        { market: "AU", prefix: "+6141", carriers: ["acme", "backup"] },
        { market: "AU", carriers: ["backup", "acme"] },
        { market: "*", carriers: ["backup"] }
      ]
    })
  )
  return file
}

const database = await Effect.runPromise(TestDatabase.probe)

describe.each([
  { store: "SQLite", postgres: false },
  { store: "PostgreSQL", postgres: true }
])("routing in sendline serve on $store", ({ postgres }) => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-routing-"))
  const schemas: Array<string> = []
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    if (Option.isSome(database)) {
      for (const schema of schemas) await Effect.runPromise(TestDatabase.dropSchema(database.value, schema))
    }
  }, 30_000)

  /** The environment of a server on a store of its own. */
  // (the tests poll each message: no rate limit of a key's requests here)
  const storeEnv = async (name: string): Promise<Record<string, string>> => ({
    RATE_LIMIT_PER_SECOND: "0",
    RATE_LIMIT_PER_ACCOUNT_PER_SECOND: "0",
    ...(await databaseEnv(name))
  })
  const databaseEnv = async (name: string): Promise<Record<string, string>> => {
    if (!postgres) return { SQLITE_PATH: join(dir, `${name}.sqlite`) }
    const schema = await Effect.runPromise(TestDatabase.createSchema(Option.getOrThrow(database)))
    schemas.push(schema)
    return { DATABASE_URL: TestDatabase.withSchema(Option.getOrThrow(database), schema) }
  }
  const skip = postgres && Option.isNone(database)

  it.live.skipIf(skip)(
    "a receipt's err maps through its carrier's errors map, else by its stat: on the message, its event and its webhook",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const undelivered = () => ({ stat: "UNDELIV", err: "001" })
        const [acme, backup] = [
          yield* TestSmsc.start({ receipt: undelivered }),
          yield* TestSmsc.start({ receipt: undelivered })
        ]
        const hooks = yield* Effect.acquireRelease(Effect.promise(receiver), (r) => Effect.promise(r.close))
        const env = {
          ...(yield* Effect.promise(() => storeEnv("receipts"))),
          ROUTES_FILE: routesFile(dir, acme, backup),
          SMSC_PASSWORD: "secret",
          WORKER_POLL_MS: "50",
          WEBHOOK_ALLOW_HTTP: "true",
          WEBHOOK_ALLOW_PRIVATE: "true"
        }
        const server = yield* Effect.acquireRelease(Effect.promise(() => serve(env)), (s) => Effect.promise(s.kill))
        const subscribed = yield* Effect.promise(() =>
          call(server, "POST", "/v1/webhooks", {
            url: hooks.url,
            events: ["message.undelivered"],
            secret: "whsec-routing-test-secret"
          })
        )
        expect(subscribed.status).toBe(201)
        const viaAcme = yield* Effect.promise(() => send(server, "+61412345678"))
        const viaBackup = yield* Effect.promise(() => send(server, "+61422345678"))
        const [a, b] = yield* Effect.promise(() =>
          Promise.all([settled(server, viaAcme, ["undelivered"]), settled(server, viaBackup, ["undelivered"])])
        )
        expect(a.error).toMatchObject({ code: "unknown_subscriber", carrier_code: "UNDELIV:001" })
        expect(b.error).toMatchObject({ code: "carrier_error", carrier_code: "UNDELIV:001" })
        expect([acme.submits.length, backup.submits.length]).toEqual([1, 1])
        const events = yield* Effect.promise(() => call(server, "GET", "/v1/events?type=message.undelivered"))
        const errors = (events.body.data as Array<{ data: { id: string; error: Sent["error"] } }>)
          .map((event) => [event.data.id, event.data.error?.code, event.data.error?.carrier_code])
        expect(errors).toEqual(
          expect.arrayContaining([
            [viaAcme, "unknown_subscriber", "UNDELIV:001"],
            [viaBackup, "carrier_error", "UNDELIV:001"]
          ])
        )
        yield* Effect.promise(async () => {
          const deadline = Date.now() + patience
          while (hooks.bodies.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        })
        expect(hooks.bodies.map((body) => [body.data.id, body.data.error.code, body.data.error.carrier_code]))
          .toEqual(expect.arrayContaining([
            [viaAcme, "unknown_subscriber", "UNDELIV:001"],
            [viaBackup, "carrier_error", "UNDELIV:001"]
          ]))
        expect(server.output()).not.toContain("secret@")
      })),
    4 * startupPatience
  )

  it.live.skipIf(skip)(
    "the first carrier drops with submits in its window: nothing is lost, each goes again through the second",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const [acme, backup] = [yield* TestSmsc.start({ answer: () => "hold" }), yield* TestSmsc.start()]
        const env = {
          ...(yield* Effect.promise(() => storeEnv("drop"))),
          ROUTES_FILE: routesFile(dir, acme, backup),
          SMSC_PASSWORD: "secret",
          WORKER_POLL_MS: "50",
          WORKER_LEASE_MS: "2000"
        }
        const server = yield* Effect.acquireRelease(Effect.promise(() => serve(env)), (s) => Effect.promise(s.kill))
        const ids = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 5 }, (_, i) => send(server, `+6141234567${i}`)))
        )
        yield* acme.until(() => acme.held() === 5)
        acme.drop()
        const messages = yield* Effect.promise(() => Promise.all(ids.map((id) => settled(server, id, ["delivered"]))))
        expect(messages.map((m) => m.status)).toEqual(ids.map(() => "delivered"))
        expect(new Set(backup.submits.map((s) => s.destinationAddr)).size).toBe(5)
      })),
    4 * startupPatience
  )

  it.live.skipIf(!postgres || skip)(
    "two server processes on one database with one routes file: every message delivered, spread over both carriers",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const [acme, backup] = [yield* TestSmsc.start(), yield* TestSmsc.start()]
        const env = {
          ...(yield* Effect.promise(() => storeEnv("two"))),
          ROUTES_FILE: routesFile(dir, acme, backup),
          SMSC_PASSWORD: "secret",
          WORKER_POLL_MS: "50",
          LOG_LEVEL: "Warning"
        }
        const migrated = yield* Effect.promise(() => sendline(env, "migrate"))
        expect(migrated.code, migrated.stderr).toBe(0)
        const servers = [
          yield* Effect.acquireRelease(Effect.promise(() => serve(env)), (s) => Effect.promise(s.kill)),
          yield* Effect.acquireRelease(Effect.promise(() => serve(env)), (s) => Effect.promise(s.kill))
        ]
        const ids = yield* Effect.promise(() =>
          Promise.all(
            Array.from(
              { length: 40 },
              (_, i) => send(servers[i % 2]!, i % 4 < 2 ? `+614123400${10 + i}` : `+614223400${10 + i}`)
            )
          )
        )
        const messages = yield* Effect.promise(() =>
          Promise.all(ids.map((id, i) => settled(servers[(i + 1) % 2]!, id, ["delivered"])))
        )
        expect(messages.map((m) => m.status)).toEqual(ids.map(() => "delivered"))
        expect(acme.submits.length).toBeGreaterThanOrEqual(20)
        expect(backup.submits.length).toBeGreaterThanOrEqual(20)
      })),
    4 * startupPatience
  )
})
