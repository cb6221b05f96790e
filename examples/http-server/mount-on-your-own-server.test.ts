/**
 * Mounting Sendline's `/v1` API on the `node:http` server your service already runs: your server
 * keeps its listener and its own routes, and hands Sendline the requests under `/v1`. Live clock,
 * real port, no sleeps.
 */
import { assert, it } from "@effect/vitest"
import { Admin, Services } from "@sendline/core"
import { Server } from "@sendline/http"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer } from "effect"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

const Sendline = Services.layer.pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" })))

/** Your service's own route, answering a moment later as real handlers do. */
const yourRoute = (response: ServerResponse) =>
  setImmediate(() => response.writeHead(200, { "content-type": "text/plain" }).end("your service"))

it.live("your server answers its own routes, Sendline answers /v1, and stopping Sendline leaves your server running", () =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({ name: "Acme", type: "cpaas", adminEmail: "ops@acme.example" })
    yield* admin.importSenderId({
      accountId: account.id,
      senderId: "Acme",
      market: "AU",
      identifier: { identifierType: "ABN", identifierValue: "51824753556" },
      brandName: "Acme Pty Ltd"
    })
    const { secret } = yield* admin.createKey({ accountId: account.id, permissions: ["messaging:send"] })

    // Your server, as it is, with its own routes; it hands the paths under /v1 to Sendline's handler
    // while it has one.
    let sendlineHandler: Server.NodeHandler | undefined
    const yours = createServer((request, response) =>
      sendlineHandler !== undefined && request.url?.startsWith("/v1/")
        ? sendlineHandler(request, response)
        : yourRoute(response)
    )
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void yours.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () => Effect.sync(() => yours.close())
    )
    const origin = `http://127.0.0.1:${(yours.address() as AddressInfo).port}`

    const sendline = yield* Effect.scoped(Effect.gen(function*() {
      sendlineHandler = yield* Server.nodeHandler({ rateLimitPerSecond: 100 })
      yield* Effect.addFinalizer(() => Effect.sync(() => (sendlineHandler = undefined)))

      const own = yield* Effect.promise(() => fetch(`${origin}/app`))
      assert.strictEqual(own.status, 200)
      assert.strictEqual(yield* Effect.promise(() => own.text()), "your service")

      const sent = yield* Effect.promise(() =>
        fetch(`${origin}/v1/messaging/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({ to: "+61412345678", sender_id: "Acme", body: "Your code is 123456", market: "AU" })
        })
      )
      assert.strictEqual(sent.status, 201)

      // Sendline's rules hold as when it listens itself: paths match as written, errors in its envelope.
      const miscased = yield* Effect.promise(() =>
        fetch(`${origin}/v1/Messaging/messages`, { headers: { authorization: `Bearer ${secret}` } })
      )
      assert.strictEqual(miscased.status, 404)
      assert.strictEqual(
        ((yield* Effect.promise(() => miscased.json())) as { error: { code: string } }).error.code,
        "not_found"
      )
      return (yield* Effect.promise(() => sent.json())) as { data: { status: string } }
    }))
    assert.strictEqual(sendline.data.status, "queued")

    // Sendline's scope is closed; your server still listens and answers.
    assert.isTrue(yours.listening)
    const after = yield* Effect.promise(() => fetch(`${origin}/app`))
    assert.strictEqual(yield* Effect.promise(() => after.text()), "your service")
  }).pipe(Effect.scoped, Effect.provide(Sendline)))
