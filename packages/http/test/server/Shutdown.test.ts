/**
 * SIGTERM stops the server cleanly: requests in flight get their answer, nothing answers 5xx, the
 * process exits 0, and every message it accepted is there when it starts again.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve, type Server } from "../support/Processes.js"
import { patience } from "../support/Waiting.js"

describe("a server stopped with SIGTERM during a burst of sends", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-shutdown-"))
  const env = { SQLITE_PATH: join(dir, "shutdown.sqlite"), WORKER_POLL_MS: "50" }
  const servers: Array<Server> = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()))
    rmSync(dir, { recursive: true, force: true })
  })

  it("answers what it took in, exits 0 and keeps every accepted message", async () => {
    const first = await serve(env)
    servers.push(first)
    const accepted: Array<string> = []
    const statuses: Array<number> = []
    let exitCode: Promise<number | null> | undefined
    const sender = async (n: number) => {
      for (let i = 0; exitCode === undefined || i < 1000; i++) {
        let response: Response
        try {
          response = await fetch(`${first.origin}/v1/messaging/messages`, {
            method: "POST",
            headers: { authorization: `Bearer ${first.key}`, "content-type": "application/json" },
            body: JSON.stringify({ to: "+61412345678", sender_id: "Sendline", body: `stop ${n}/${i}`, market: "AU" })
          })
        } catch {
          return // refused or closed: the server no longer takes requests
        }
        statuses.push(response.status)
        if (response.status === 201) accepted.push(((await response.json()) as { data: { id: string } }).data.id)
        if (accepted.length >= 100 && exitCode === undefined) exitCode = first.stop()
      }
    }
    await Promise.all(Array.from({ length: 8 }, (_, n) => sender(n)))
    expect(await exitCode).toBe(0)
    expect(first.output()).toContain("Shutting down")
    expect(statuses.filter((s) => s >= 500), "no request failed on the server's side").toEqual([])
    expect(statuses.every((s) => s === 201)).toBe(true)

    const second = await serve(env)
    servers.push(second)
    for (const id of accepted) {
      const response = await fetch(`${second.origin}/v1/messaging/messages/${id}`, {
        headers: { authorization: `Bearer ${second.key}` }
      })
      expect(response.status, `${id} was kept`).toBe(200)
    }
  }, 6 * patience)
})
