/**
 * `sendline serve` with LOG_FORMAT=json, as an operator runs it: every line on stderr is one JSON
 * object (Effect's JSON logger); each request leaves one info line with its method, route
 * template, status, duration, request_id and account_id; every line written while a request is
 * handled carries its request_id; the workers' progress lines are at info; no key, body or phone
 * number is ever written. `GET /ready` answers 503 while the SQLite file is replaced by one that
 * is not a database, and 200 once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve, type Server } from "../support/Processes.js"
import { patience, until } from "../support/Waiting.js"

/** A line as Effect's JSON logger writes it. */
interface Line {
  readonly message: unknown
  readonly logLevel: string
  readonly timestamp: string
  readonly annotations: Record<string, unknown>
}

describe("sendline serve with LOG_FORMAT=json", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-logs-"))
  const database = join(dir, "logs.sqlite")
  const phone = "+61412345678"
  let server: Server

  beforeAll(async () => {
    server = await serve({
      SQLITE_PATH: database,
      LOG_FORMAT: "json",
      WORKER_POLL_MS: "50",
      CARRIER_REPORT_DELAY_MS: "0"
    })
  }, 3 * patience)

  afterAll(async () => {
    await server?.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Every line written to stderr so far, each parsed as JSON (one that is not fails the test). */
  const lines = (): ReadonlyArray<Line> =>
    server.stderr().split("\n").filter((text) => text !== "").map((text) => {
      try {
        return JSON.parse(text) as Line
      } catch {
        throw new Error(`not a JSON line: ${text}`)
      }
    })

  /** The lines that carry `requestId`, once its request line is there. */
  const linesOf = (requestId: string) =>
    until(`the line of ${requestId}`, () => {
      const of = lines().filter((line) => line.annotations["request_id"] === requestId)
      return of.some((line) => "duration_ms" in line.annotations) ? of : undefined
    })

  const call = async (method: string, path: string, options: { key?: string; json?: unknown } = {}) => {
    const response = await fetch(`${server.origin}${path}`, {
      method,
      headers: {
        ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
        ...(options.json === undefined ? {} : { "content-type": "application/json" })
      },
      ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) })
    })
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      requestId: response.headers.get("x-request-id")!,
      json: JSON.parse(text),
      text
    }
  }

  it("one JSON line per request with its fields, the request_id on every line of a request, workers at info, no key, body or phone number", async () => {
    const body = "Logged nowhere 4471"
    const sent = await call("POST", "/v1/messaging/messages", {
      key: server.key,
      json: { to: phone, sender_id: "Sendline", body, market: "AU" }
    })
    expect(sent.status, sent.text).toBe(201)
    const wrongKey = `sk_${"x".repeat(40)}`
    const refused = await call("GET", "/v1/messaging/messages", { key: wrongKey })
    const byPhone = await call(
      "GET",
      `/v1/messaging/messages/${encodeURIComponent(phone)}?to=${encodeURIComponent(phone)}`,
      {
        key: server.key
      }
    )
    expect([refused.status, byPhone.status]).toEqual([401, 404])

    const [sentLines, refusedLines, byPhoneLines] = [
      await linesOf(sent.requestId),
      await linesOf(refused.requestId),
      await linesOf(byPhone.requestId)
    ]
    expect(sentLines).toHaveLength(1)
    const [line] = sentLines
    expect(line!.message).toMatch(/^POST \/v1\/messaging\/messages 201 in [\d.]+ ms$/)
    expect(line!.logLevel).toBe("INFO")
    expect(line!.annotations).toEqual({
      request_id: sent.requestId,
      method: "POST",
      route: "/v1/messaging/messages",
      status: 201,
      duration_ms: expect.any(Number),
      account_id: expect.stringMatching(/^acct_[0-9a-z]{26}$/)
    })
    expect(refusedLines.map((l) => [l.message, "account_id" in l.annotations])).toEqual([
      [expect.stringMatching(/^GET \/v1\/messaging\/messages 401 in/), false]
    ])
    expect(byPhoneLines.map((l) => [l.annotations["route"], l.annotations["status"]])).toEqual([[
      "/v1/messaging/messages/:id",
      404
    ]])

    // the workers' progress, at info, outside any request
    const sentByDispatcher = await until(
      "the Dispatcher's progress line",
      () => lines().find((l) => typeof l.message === "string" && l.message.startsWith("Dispatcher:"))
    )
    expect([sentByDispatcher.logLevel, sentByDispatcher.annotations["worker"]]).toEqual(["INFO", "Dispatcher"])

    // A line without a request_id is the start's (before it listens) or a worker's.
    const all = lines()
    const listening = all.findIndex((l) => String(l.message).startsWith("Listening on"))
    expect(listening).toBeGreaterThan(-1)
    const outside = all.slice(listening + 1).filter((l) =>
      !("request_id" in l.annotations) && !("worker" in l.annotations)
    )
    expect(outside).toEqual([])
    const written = server.stderr()
    for (const secret of [server.key, wrongKey, phone.slice(1), body]) expect(written).not.toContain(secret)
  })

  it("GET /ready: 503 unavailable while the SQLite file is not a database, its warning under the request's id; 200 once it is back", async () => {
    const ready = await call("GET", "/ready")
    expect([ready.status, ready.json.data.status]).toEqual([200, "ready"])

    // The server keeps its connection and files open: move them aside and put garbage in their place.
    const files = ["", "-wal", "-shm"].map((suffix) => database + suffix).filter((file) => existsSync(file))
    for (const file of files) renameSync(file, `${file}.aside`)
    writeFileSync(database, "not a database, but long enough to have what would be its header\n".repeat(64))
    try {
      const unready = await until("503", async () => {
        const reply = await call("GET", "/ready")
        return reply.status === 503 ? reply : undefined
      })
      expect(unready.json.error).toEqual({
        code: "unavailable",
        message: "Not ready: The SQLite store cannot be reached or read."
      })
      expect([unready.json.meta.request_id, unready.headers.get("retry-after")]).toEqual([unready.requestId, "1"])
      const of = await linesOf(unready.requestId)
      expect(of.map((l) => [l.logLevel, l.message])).toEqual([
        ["WARN", "Not ready: The SQLite store cannot be reached or read"],
        ["WARN", expect.stringMatching(/^GET \/ready 503 in [\d.]+ ms$/)]
      ])
      expect(unready.text).not.toMatch(/sqlite_|SELECT|not a database|\n\s+at /)
    } finally {
      for (const file of files) renameSync(`${file}.aside`, file)
    }
    const back = await until("200 again", async () => {
      const reply = await call("GET", "/ready")
      return reply.status === 200 ? reply : undefined
    })
    expect(back.json.data.status).toBe("ready")
  })
})
