/**
 * The `sendline` executable as a user runs it: a real process on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../../..")
const bin = ["--conditions=@sendline/source", "--import", "tsx", "packages/http/src/bin.ts"]

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const sendline = (env: Record<string, string>, ...args: Array<string>) =>
  new Promise<Run>((done) => {
    execFile(process.execPath, [...bin, ...args], { cwd: root, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
  })

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => done(port))
    })
  })

describe("sendline CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-cli-"))
  const env = { SQLITE_PATH: join(dir, "cli.sqlite"), LOG_LEVEL: "Warning" }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("creates an account, a key and a Sender ID, each printed as one JSON object", async () => {
    const account = await sendline(env, "accounts", "create", "--name", "Acme", "--type", "cpaas", "--admin-email", "ops@acme.test")
    expect(account.code).toBe(0)
    const acct = JSON.parse(account.stdout)
    expect(acct).toMatchObject({ name: "Acme", type: "cpaas", admin_email: "ops@acme.test" })
    expect(acct.id).toMatch(/^acct_[0-9a-z]{26}$/)

    const key = await sendline(env, "keys", "create", "--account", acct.id, "--permissions", "messaging:send,messaging:read")
    expect(key.code).toBe(0)
    const created = JSON.parse(key.stdout)
    expect(created.key).toMatch(/^sk_[0-9A-Za-z]{40}$/)
    expect(created.permissions).toEqual(["messaging:send", "messaging:read"])

    const sid = await sendline(env, "sids", "import", "--account", acct.id, "--sender-id", "Acme", "--market", "AU", "--brand-name", "Acme Pty")
    expect(sid.code).toBe(0)
    expect(JSON.parse(sid.stdout)).toMatchObject({ sender_id: "Acme", market: "AU", status: "registered" })

    const revoked = await sendline(env, "keys", "revoke", created.id)
    expect(revoked.code).toBe(0)
    expect(JSON.parse(revoked.stdout)).toEqual({ id: created.id, revoked: true })
  }, 60_000)

  it("reports errors on stderr with a non-zero exit and nothing on stdout", async () => {
    const unknownPermission = await sendline(env, "keys", "create", "--account", "acct_x", "--permissions", "everything")
    expect(unknownPermission.code).not.toBe(0)
    expect(unknownPermission.stdout).toBe("")
    expect(unknownPermission.stderr).toContain("Unknown permission everything")

    const missingAccount = await sendline(env, "keys", "revoke", "key_00000000000000000000000000")
    expect(missingAccount.code).not.toBe(0)
    expect(missingAccount.stderr).toContain("No active key")
  }, 60_000)

  describe("serve --demo", () => {
    let server: ChildProcess
    let output = ""
    let port = 0

    beforeAll(async () => {
      port = await freePort()
      server = spawn(process.execPath, [...bin, "serve", "--demo"], {
        cwd: root,
        env: { ...process.env, ...env, SQLITE_PATH: join(dir, "demo.sqlite"), PORT: String(port), LOG_LEVEL: "Info" }
      })
      server.stdout!.on("data", (chunk) => (output += chunk))
      server.stderr!.on("data", (chunk) => (output += chunk))
      await new Promise<void>((ready, fail) => {
        server.on("exit", (code) => fail(new Error(`serve exited ${code}: ${output}`)))
        const poll = setInterval(() => {
          if (output.includes("Listening on")) {
            clearInterval(poll)
            ready()
          }
        }, 50)
      })
    }, 60_000)

    afterAll(() => {
      server.kill("SIGTERM")
    })

    it("prints a demo key that sends the README's message: 201 queued", async () => {
      const key = /Demo API key \(all permissions\): (sk_[0-9A-Za-z]{40})/.exec(output)?.[1]
      expect(key).toBeDefined()
      const response = await fetch(`http://127.0.0.1:${port}/v1/messaging/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ to: "+61412345678", sender_id: "Sendline", body: "Hello from Sendline", market: "AU" })
      })
      expect(response.status).toBe(201)
      const body = (await response.json()) as { ok: boolean; data: { status: string }; meta: { request_id: string } }
      expect(body.ok).toBe(true)
      expect(body.data.status).toBe("queued")
      expect(response.headers.get("x-request-id")).toBe(body.meta.request_id)
    })
  })
})
