/**
 * The server on an SMPP account: `sendline serve` with `CARRIER_URL` pointing at an SMSC in the
 * test's process. A send through HTTP reaches `delivered` from the SMSC's receipt, also when the
 * receipt comes after a restart; bad credentials stop the start with one line.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { TestSmsc } from "@sendline/carrier-smpp/testing"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { messageOnce, sendline, sendMessage, serve, type Server } from "../support/Processes.js"

const send = (server: Server, body: string) =>
  Effect.promise(() => sendMessage(server, { to: "+61412345678", body })).pipe(Effect.map((message) => message.id))

const statusOf = (server: Server, id: string, status: string) => Effect.promise(() => messageOnce(server, id, status))

const started = (env: Record<string, string>) =>
  Effect.acquireRelease(Effect.promise(() => serve(env)), (server) => Effect.promise(() => server.kill()))

describe("the server on an SMPP account (CARRIER_URL)", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-smpp-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const env = (file: string) => ({ SQLITE_PATH: join(dir, file), WORKER_POLL_MS: "50" })

  it.live(
    "a send through HTTP reaches delivered from the SMSC's receipt; the password is never logged",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const smsc = yield* TestSmsc.start()
        const server = yield* started({ ...env("e2e.sqlite"), CARRIER_URL: smsc.url("window=10") })
        const id = yield* send(server, "Hello from Sendline over SMPP")
        const message = yield* statusOf(server, id, "delivered")
        expect(message.status).toBe("delivered")
        expect(message.delivered_at).toBeDefined()
        expect(smsc.submits.map((s) => [s.sourceAddr, s.destinationAddr, s.shortMessage.toString("latin1")])).toEqual([
          ["Sendline", "61412345678", "Hello from Sendline over SMPP"]
        ])
        expect(server.output()).toContain(`Carrier default: SMPP at smpp://sendline@127.0.0.1:${smsc.port}`)
        expect(server.output()).not.toContain("secret")
      })),
    90_000
  )

  it.live(
    "a receipt that arrives after a restart finds its message by the carrier's id stored with it",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const smsc = yield* TestSmsc.start({ receipt: () => undefined })
        const first = yield* started({ ...env("restart.sqlite"), CARRIER_URL: smsc.url() })
        const id = yield* send(first, "Receipt after a restart")
        expect((yield* statusOf(first, id, "sent")).status).toBe("sent")
        yield* Effect.promise(() => first.stop())
        const second = yield* started({ ...env("restart.sqlite"), CARRIER_URL: smsc.url() })
        yield* smsc.until(() => smsc.boundSessions() === 1)
        smsc.sendReceipt(smsc.messageIds.get(0)!, { stat: "EXPIRED", err: "027", tlvs: false })
        const message = yield* statusOf(second, id, "undelivered")
        expect(message).toMatchObject({
          status: "undelivered",
          error: { code: "expired", message: "The network reported the message EXPIRED (err 027)." }
        })
      })),
    90_000
  )

  it.live(
    "bad credentials stop the start with one line naming the SMSC's status, not the password",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const smsc = yield* TestSmsc.start({ users: { sendline: "another" } })
        const run = yield* Effect.promise(() =>
          sendline({ ...env("refused.sqlite"), CARRIER_URL: smsc.url() }, "serve")
        )
        expect(run.code).toBe(1)
        const lines = run.stderr.trim().split("\n").filter((line) => line.startsWith("sendline:"))
        expect(lines).toEqual([
          `sendline: The SMSC at smpp://sendline@127.0.0.1:${smsc.port} refused to bind: ESME_RINVPASWD ` +
          "(check the system_id, password and system_type of CARRIER_URL)"
        ])
        expect(run.stderr + run.stdout).not.toContain("secret")
      })),
    90_000
  )
})
