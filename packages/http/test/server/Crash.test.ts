/**
 * Nothing is lost, and nothing is sent twice, when the server dies: a real server on SQLite is
 * killed with SIGKILL in the middle of a burst of sends, a new one starts on the same database and
 * carrier journal, and every message that got a 201 ends in a final state, accepted by the carrier
 * exactly once.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import type { CarrierMock } from "@sendline/carrier-mock"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve, type Server } from "../support/Processes.js"
import { patience, until } from "../support/Waiting.js"

const final = new Set(["delivered", "undelivered", "failed"])

describe("a server killed during a burst of sends", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-crash-"))
  const journalPath = join(dir, "carrier.jsonl")
  const env = {
    SQLITE_PATH: join(dir, "crash.sqlite"),
    CARRIER_JOURNAL_PATH: journalPath,
    CARRIER_REPORT_DELAY_MS: "100",
    WORKER_POLL_MS: "50",
    // short, so that the second server takes over the first's claims soon, yet long enough that
    // none lapses while a loaded machine is still working on it
    WORKER_LEASE_MS: "5000"
  }
  const servers: Array<Server> = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()))
    rmSync(dir, { recursive: true, force: true })
  })

  it("loses no accepted message and sends none twice", async () => {
    const first = await serve(env)
    servers.push(first)
    const accepted: Array<string> = []
    const refused: Array<string> = []
    let stopped = false
    // 8 senders; the server is killed once 150 sends have been answered, while others are in flight
    const sender = async (n: number) => {
      for (let i = 0; !stopped; i++) {
        // every tenth recipient is one the carrier reports undelivered; the others end in 1 (delivered)
        const to = i % 10 === 0 ? "+61412340000" : `+614${10_000_000 + n * 100_000 + i * 10 + 1}`
        let response: Response
        try {
          response = await fetch(`${first.origin}/v1/messaging/messages`, {
            method: "POST",
            headers: { authorization: `Bearer ${first.key}`, "content-type": "application/json" },
            body: JSON.stringify({ to, sender_id: "Sendline", body: `burst ${n}/${i}`, market: "AU" })
          })
        } catch {
          return // the connection died with the server
        }
        const text = await response.text().catch(() => undefined)
        if (text === undefined) return // the server died while answering
        if (response.status === 201) accepted.push((JSON.parse(text) as { data: { id: string } }).data.id)
        else refused.push(`${response.status}: ${text}`)
        if (accepted.length >= 150 && !stopped) {
          stopped = true
          await first.kill()
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, (_, n) => sender(n)))
    expect(refused).toEqual([])
    expect(accepted.length).toBeGreaterThanOrEqual(150)

    const second = await serve(env)
    servers.push(second)
    const statuses = new Map<string, string>()
    await until("every accepted message in a final state", async () => {
      for (const id of accepted) {
        if (statuses.has(id)) continue
        const response = await fetch(`${second.origin}/v1/messaging/messages/${id}`, {
          headers: { authorization: `Bearer ${second.key}` }
        })
        expect(response.status).toBe(200)
        const { data } = (await response.json()) as { data: { status: string } }
        if (final.has(data.status)) statuses.set(id, data.status)
      }
      return statuses.size === accepted.length ? true : undefined
    })

    const journal = readFileSync(journalPath, "utf8").trim().split("\n").map((line) =>
      JSON.parse(line) as CarrierMock.JournalEntry
    )
    for (const id of accepted) {
      const charged = journal.filter((entry) => entry.reference === id && entry.decision === "accepted")
      expect(charged.length, `${id} accepted by the carrier exactly once`).toBe(1)
    }
    const delivered = [...statuses.values()].filter((s) => s === "delivered").length
    const undelivered = [...statuses.values()].filter((s) => s === "undelivered").length
    expect(delivered + undelivered).toBe(accepted.length)
    expect(undelivered).toBeGreaterThan(0)
  }, 6 * patience)
})
