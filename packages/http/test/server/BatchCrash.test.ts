/**
 * A batch is written all or nothing, a crash too (CONTRACT §13): a real server on SQLite is sent a
 * batch of 1,000 messages and killed with SIGKILL, one round each: once halfway through answering
 * it (its checks), then as its transaction commits: the moment the database's write-ahead log is
 * first written after the request (nothing else writes while the server is idle, and the checks
 * only read), and 2 ms later (three rounds: each kill and restart waits for the server to settle,
 * and more rounds cost minutes of the suite). After a restart on the same database, every valid message of
 * each batch exists with its `message.queued` event, or none does.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve, type Server } from "../support/Processes.js"
import { patience } from "../support/Waiting.js"

const size = 1000

/** A batch of `size` messages (the first invalid) whose valid ones all carry `reference`. */
const batchOf = (reference: string) =>
  JSON.stringify({
    defaults: { sender_id: "Sendline", market: "AU", body: "crash {{i}}", reference },
    messages: Array.from({ length: size }, (_, i) => ({
      to: i === 0 ? "+6112" : `+6141${String(i).padStart(7, "0")}`,
      variables: { i: String(i) }
    }))
  })

/** Sends the batch of `reference` to `server`: its status, or undefined when the server died first. */
const send = async (server: Server, reference: string): Promise<number | undefined> => {
  try {
    const response = await fetch(`${server.origin}/v1/messaging/batches`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
      body: batchOf(reference)
    })
    await response.text()
    return response.status
  } catch {
    return undefined
  }
}

/** Every page of `path` (a list of the API), as `server` answers it. */
const all = async <A>(server: Server, path: string): Promise<Array<A>> => {
  const items: Array<A> = []
  let cursor: string | null = null
  do {
    const separator = path.includes("?") ? "&" : "?"
    const url: string = `${server.origin}${path}${separator}page_size=100${cursor === null ? "" : `&cursor=${cursor}`}`
    const response = await fetch(url, { headers: { authorization: `Bearer ${server.key}` } })
    expect(response.status).toBe(200)
    const page = (await response.json()) as { data: Array<A>; pagination: { next_cursor: string | null } }
    for (const item of page.data) items.push(item)
    cursor = page.pagination.next_cursor
  } while (cursor !== null)
  return items
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** When `path` was last written (0 while it does not exist). */
const writtenAt = (path: string): number => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

/** Resolves once `path` has not been written for `quiet` ms: the server is idle. */
const settled = async (path: string, quiet = 1000) => {
  for (let last = writtenAt(path), since = performance.now(); performance.now() - since < quiet;) {
    await sleep(50)
    const now = writtenAt(path)
    if (now !== last) [last, since] = [now, performance.now()]
  }
}

/** Resolves once `path` is written after `before`, polling as often as the event loop turns (or after `within` ms). */
const writtenAfter = async (path: string, before: number, within = patience) => {
  const since = performance.now()
  while (writtenAt(path) === before && performance.now() - since < within) await new Promise(setImmediate)
}

describe("a server killed while it writes a batch", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-batch-crash-"))
  const env = { SQLITE_PATH: join(dir, "batch.sqlite"), WORKER_POLL_MS: "50", WORKER_LEASE_MS: "5000" }
  const servers: Array<Server> = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()))
    rmSync(dir, { recursive: true, force: true })
  })

  it("leaves every valid message of the batch with its event, or none", async () => {
    let server = await serve(env)
    servers.push(server)
    // a whole batch first, to learn how long one takes to answer
    const started = performance.now()
    expect(await send(server, "whole")).toBe(201)
    const took = performance.now() - started

    // killed halfway through the checks, then as the transaction commits and a few ms later
    const wal = `${env.SQLITE_PATH}-wal`
    const rounds: ReadonlyArray<{ readonly halfway?: boolean; readonly after?: number }> = [
      { halfway: true },
      { after: 0 },
      { after: 2 }
    ]
    for (const [round, { after, halfway }] of rounds.entries()) {
      await settled(wal)
      const before = writtenAt(wal)
      const answered = send(server, `round-${round}`)
      if (halfway === true) await sleep(took / 2)
      else {
        await writtenAfter(wal, before)
        if (after! > 0) await sleep(after!)
      }
      await server.kill()
      await answered
      server = await serve(env)
      servers.push(server)
    }

    const queued = new Set(
      (await all<{ data: { id: string } }>(server, "/v1/events?type=message.queued")).map((event) => event.data.id)
    )
    const found = await Promise.all(
      ["whole", ...rounds.map((_, round) => `round-${round}`)].map((reference) =>
        all<{ id: string }>(server, `/v1/messaging/messages?reference=${reference}`)
      )
    )
    expect(found[0]!.length).toBe(size - 1)
    for (const messages of found) {
      expect([0, size - 1]).toContain(messages.length)
      for (const message of messages) expect(queued.has(message.id), `${message.id} has its event`).toBe(true)
    }
  }, 10 * patience)
})
