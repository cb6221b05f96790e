/**
 * The README's routing example, run: two SMSCs on 127.0.0.1 (`smsc.ts`, as `npm run smsc` starts
 * them), `sendline serve` with `routes.json` (its ports moved to the SMSCs'), messages to AU split
 * 3:1 between the carriers; one SMSC stopped, every message still delivered through the other.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type DemoServer, serveDemo } from "../support/DemoServer.js"
import * as Smsc from "./smsc.js"

const bin = resolve(import.meta.dirname, "../../packages/http/dist/src/bin.js")

const send = async (server: DemoServer, to: string) => {
  const response = await fetch(`${server.url}/v1/messaging/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
    body: JSON.stringify({ to, sender_id: "Sendline", body: "Routed by market", market: "AU" })
  })
  assert.strictEqual(response.status, 201)
  return ((await response.json()) as { data: { id: string } }).data.id
}

/** Waits until every message of `ids` is delivered (30 s at most, one list a poll); answers their statuses. */
const delivered = async (server: DemoServer, ids: ReadonlyArray<string>) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const response = await fetch(`${server.url}/v1/messaging/messages?page_size=100`, {
      headers: { authorization: `Bearer ${server.key}` }
    })
    const listed = ((await response.json()) as { data: Array<{ id: string; status: string }> }).data
    const statuses = ids.map((id) => listed.find((m) => m.id === id)?.status ?? "missing")
    if (statuses.every((status) => status === "delivered") || Date.now() > deadline) return statuses
    await new Promise((r) => setTimeout(r, 100))
  }
}

const numbers = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `+614123${String(from + i).padStart(5, "0")}`)

describe("routing between two carriers (README, Reaching phones)", () => {
  it.live(
    "messages split between the SMSCs; with one stopped, every message is delivered through the other",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "sendline-routing-example-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const acmeScope = yield* Scope.make()
        const acme = yield* Scope.extend(
          Smsc.start({ port: 0, systemId: "acme_sms", password: "acme-secret" }),
          acmeScope
        )
        const backup = yield* Smsc.start({ port: 0, systemId: "backup_sms", password: "backup-secret" })
        const routes = readFileSync(join(import.meta.dirname, "routes.json"), "utf8")
          .replace(":2775", `:${acme.smsc.port}`)
          .replace(":2776", `:${backup.smsc.port}`)
        writeFileSync(join(dir, "routes.json"), routes)
        const server = yield* Effect.acquireRelease(
          Effect.promise(() =>
            serveDemo(process.execPath, {
              ...process.env,
              ROUTES_FILE: join(dir, "routes.json"),
              ACME_PASSWORD: "acme-secret",
              BACKUP_PASSWORD: "backup-secret",
              SQLITE_PATH: join(dir, "sendline.sqlite"),
              WORKER_POLL_MS: "50"
            }, [bin])
          ),
          (server) => Effect.promise(server.stop)
        )

        const split = yield* Effect.promise(() => Promise.all(numbers(0, 40).map((to) => send(server, to))))
        assert.deepStrictEqual(yield* Effect.promise(() => delivered(server, split)), split.map(() => "delivered"))
        const [viaAcme, viaBackup] = [acme.smsc.submits.length, backup.smsc.submits.length]
        assert.strictEqual(viaAcme + viaBackup, 40)
        assert.isTrue(viaAcme > viaBackup && viaBackup > 0, `acme took ${viaAcme}, backup ${viaBackup} (3:1)`)

        yield* Scope.close(acmeScope, Exit.void)
        const after = yield* Effect.promise(() => Promise.all(numbers(100, 20).map((to) => send(server, to))))
        assert.deepStrictEqual(yield* Effect.promise(() => delivered(server, after)), after.map(() => "delivered"))
        assert.include(server.output(), "Routing: carrier acme cannot take messages now")
        assert.strictEqual(backup.smsc.submits.length, viaBackup + 20)
        assert.notInclude(server.output(), "acme-secret")
      }).pipe(Effect.scoped),
    120_000
  )
})
