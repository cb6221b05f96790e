/**
 * Embedding Sendline's core in an existing Node service: give it a store, get the use cases.
 * This is the README's embedding snippet, run for real on SQLite `:memory:`.
 */
import { assert, it } from "@effect/vitest"
import { Admin, Auth, Messaging, Services } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Effect, Layer } from "effect"

// In your service: one layer, built once, with your database file instead of :memory:.
const Sendline = Services.layer.pipe(Layer.provideMerge(SqliteStore.layerSqlite({ filename: ":memory:" })))

it.effect("an embedding service sends a message with a key issued by Admin", () =>
  Effect.gen(function*() {
    // Once, at setup (or with the CLI): an account, a registered Sender ID and a key.
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

    // Per request: authenticate the caller's key, then send.
    const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${secret}`)
    const message = yield* (yield* Messaging.Messaging).send(principal, {
      to: "+61412345678",
      senderId: "Acme",
      body: "Your code is 123456",
      market: "AU"
    })
    assert.strictEqual(message.status, "queued")
    assert.strictEqual(message.encoding, "GSM-7")
  }).pipe(Effect.provide(Sendline)))
