/**
 * Two real `sendline serve` processes on one PostgreSQL database (a fresh schema of
 * TEST_DATABASE_URL): a burst of sends split across both is accepted exactly once, and one
 * Idempotency-Key sent to both at once creates one message.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { TestDatabase } from "@sendline/store-postgres/testing"
import { Effect, Option } from "effect"
import { sendline, serve, type Server } from "../support/Processes.js"
import { startupPatience } from "../support/Waiting.js"

interface SendResult {
  readonly status: number
  readonly replayed: boolean
  readonly body: { ok: boolean; data?: { id: string; reference: string | null }; error?: { code: string } }
}

const send = async (server: Server, key: string, payload: object, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.origin}/v1/messaging/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(payload)
  })
  return {
    status: response.status,
    replayed: response.headers.get("idempotent-replayed") === "true",
    body: (await response.json()) as SendResult["body"]
  } satisfies SendResult
}

/** Every message of the demo account matching `query`, through `server`, following the cursors. */
const listAll = async (server: Server, query = "") => {
  const items: Array<{ id: string; reference: string | null }> = []
  let cursor: string | null = null
  for (let page = 0; page < 100; page++) {
    const url: string = `${server.origin}/v1/messaging/messages?page_size=100${query}${
      cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
    }`
    const response = await fetch(url, { headers: { authorization: `Bearer ${server.key}` } })
    expect(response.status).toBe(200)
    const body = (await response.json()) as {
      data: Array<{ id: string; reference: string | null }>
      pagination: { has_more: boolean; next_cursor: string | null }
    }
    for (const item of body.data) items.push(item)
    if (!body.pagination.has_more) return items
    cursor = body.pagination.next_cursor
  }
  throw new Error("more than 100 pages")
}

const message = (reference: string) => ({
  to: "+61412345678",
  sender_id: "Sendline",
  body: `Multi-process ${reference}`,
  market: "AU",
  reference
})

// One loud line and a skip without a server, a failure under CI=true.
const database = await Effect.runPromise(TestDatabase.probe)

if (Option.isNone(database)) {
  describe.skip("two sendline serve processes on one PostgreSQL database (no server: see the line above)", () => {
    it("accepts a burst exactly once", () => {})
  })
} else {
  describe("two sendline serve processes on one PostgreSQL database", () => {
    const base = database.value
    let schema = ""
    let env: Record<string, string> = {}
    let a: Server
    let b: Server

    beforeAll(async () => {
      schema = await Effect.runPromise(TestDatabase.createSchema(base))
      env = { DATABASE_URL: TestDatabase.withSchema(base, schema), LOG_LEVEL: "Warning" }
      // Two processes migrating the empty schema at the same moment both succeed.
      const migrations = await Promise.all([sendline(env, "migrate"), sendline(env, "migrate")])
      for (const run of migrations) expect(run, run.stderr).toMatchObject({ code: 0 })
      // The demo data is created by the first server; the second finds it and issues its own key.
      a = await serve(env)
      b = await serve(env)
    }, 4 * startupPatience)

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      if (schema !== "") await Effect.runPromise(TestDatabase.dropSchema(base, schema))
    }, 30_000)

    it("each server's demo key works on the other: keys live in the shared database", async () => {
      expect(a.key).not.toBe(b.key)
      expect((await send(b, a.key, message("key-check-a"))).status).toBe(201)
      expect((await send(a, b.key, message("key-check-b"))).status).toBe(201)
    })

    it("a burst of 200 sends split across both servers is accepted exactly once", async () => {
      const references = Array.from({ length: 200 }, (_, i) => `burst-${i}`)
      const results = await Promise.all(
        references.map((
          reference,
          i
        ) => (i % 2 === 0 ? send(a, b.key, message(reference)) : send(b, a.key, message(reference))))
      )
      expect(results.map((r) => r.status)).toEqual(references.map(() => 201))
      expect(new Set(results.map((r) => r.body.data!.id)).size).toBe(200)

      for (const server of [a, b]) {
        const burst = (await listAll(server)).filter((m) => m.reference?.startsWith("burst-"))
        expect(burst).toHaveLength(200)
        expect(new Set(burst.map((m) => m.reference))).toEqual(new Set(references))
        expect(new Set(burst.map((m) => m.id))).toEqual(new Set(results.map((r) => r.body.data!.id)))
      }
    }, 60_000)

    it("one Idempotency-Key sent 10 times to each server at once creates exactly one message", async () => {
      const payload = message("idempotent-1")
      const headers = { "idempotency-key": `multi-process-${schema}` }
      const results = await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) => i % 2 === 0 ? send(a, a.key, payload, headers) : send(b, b.key, payload, headers)
        )
      )
      for (const result of results) {
        if (result.status === 409) expect(result.body.error?.code).toBe("idempotency_in_progress")
        else expect(result.status).toBe(201)
      }
      const created = results.filter((r) => r.status === 201)
      expect(created.filter((r) => !r.replayed)).toHaveLength(1)
      expect(new Set(created.map((r) => r.body.data!.id)).size).toBe(1)

      const listed = await listAll(b, "&reference=idempotent-1")
      expect(listed).toHaveLength(1)
      expect(listed[0]!.id).toBe(created[0]!.body.data!.id)

      // once the first has finished, a retry on either server replays it
      const replay = await send(a, b.key, payload, headers)
      expect(replay).toMatchObject({ status: 201, replayed: true })
      expect(replay.body.data!.id).toBe(listed[0]!.id)
    }, 60_000)
  })
}
