/**
 * No webhook delivery is lost when the server dies: a real server on SQLite is killed with SIGKILL
 * while a receiver holds 16 attempts unanswered (its share of the deliverer's slots) and the rest
 * wait their turn; a new server on the same database delivers every event, and makes again the
 * attempts that were in flight at the kill.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve, type Server } from "../support/Processes.js"
import { patience, untilTrue } from "../support/Waiting.js"

/** What the receiver got: each request's event id and attempt, and whether it answered it. */
interface Received {
  readonly eventId: string
  readonly attempt: string
  readonly answered: boolean
}

/** A local receiver that holds every request unanswered until `answer` is set. */
const receiver = async () => {
  const received: Array<Received> = []
  const held: Array<ServerResponse> = []
  let answering = false
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    request.on("end", () => {
      received.push({
        eventId: String(request.headers["x-service-event-id"]),
        attempt: String(request.headers["x-service-delivery-attempt"]),
        answered: answering
      })
      if (answering) response.writeHead(204).end()
      else held.push(response)
    })
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    /** From now on every request is answered 204; the held ones are dropped with their connections. */
    answer: () => {
      answering = true
      for (const response of held.splice(0)) response.socket?.destroy()
    },
    close: () => new Promise<void>((closed) => server.close(() => closed()))
  }
}

describe("a server killed with webhook deliveries pending and in flight", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-webhook-restart-"))
  const env = {
    SQLITE_PATH: join(dir, "restart.sqlite"),
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WORKER_POLL_MS: "50",
    // The claims of the first server hold while its attempts wait on the receiver: as long as the
    // transport's own timeout (10 s, CONTRACT §7), so that no claim lapses and is made again before
    // the kill however slow the machine; the second server takes them over once they lapse.
    WORKER_LEASE_MS: "10000"
  }
  const servers: Array<Server> = []
  let closeReceiver = async () => {}
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()))
    await closeReceiver()
    rmSync(dir, { recursive: true, force: true })
  })

  it("delivers every event after the restart, the attempts in flight at the kill made again", async () => {
    const hooks = await receiver()
    closeReceiver = hooks.close
    const first = await serve(env)
    servers.push(first)
    const post = (server: Server, path: string, body: unknown) =>
      fetch(`${server.origin}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    const subscribed = await post(first, "/v1/webhooks", {
      url: hooks.url,
      events: ["message.queued"],
      secret: "whsec_restart_test_secret"
    })
    expect(subscribed.status).toBe(201)
    for (let i = 0; i < 24; i++) {
      const sent = await post(first, "/v1/messaging/messages", {
        to: `+6141234${String(5000 + i)}`,
        sender_id: "Sendline",
        body: `restart ${i}`,
        market: "AU"
      })
      expect(sent.status).toBe(201)
    }
    await untilTrue("16 attempts held by the receiver", () => hooks.received.length >= 16)
    await first.kill()
    const inFlight = new Set(hooks.received.map((r) => r.eventId))
    expect(hooks.received.length, "attempts held at the kill: the destination's 16 slots").toBe(16)
    expect(inFlight.size).toBe(16)

    hooks.answer()
    const second = await serve(env)
    servers.push(second)
    const delivered = () => new Set(hooks.received.filter((r) => r.answered).map((r) => r.eventId))
    await untilTrue("all 24 events delivered", () => delivered().size === 24)
    for (const eventId of inFlight) expect(delivered().has(eventId), `${eventId} made again`).toBe(true)
    // the in-flight attempts were never recorded: made again as attempt 0, not as a retry
    expect(hooks.received.filter((r) => inFlight.has(r.eventId)).every((r) => r.attempt === "0")).toBe(true)
  }, 6 * patience)
})
