/**
 * `GET /metrics` on a real `sendline serve`, after a send: the Prometheus text format, read by a
 * parser of that format, with the send's request counter and latency histogram by route template
 * and status, the messages entering `queued`, every worker queue's gauges, and no label that
 * carries an id, a key or a phone number.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import parsePrometheusTextFormat, { type Family } from "parse-prometheus-text-format"
import { serve, type Server } from "../support/Processes.js"

const phone = "+61412345678"

describe("GET /metrics on a real server", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-metrics-"))
  const servers: Array<Server> = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()))
    rmSync(dir, { recursive: true, force: true })
  })

  it(
    "counts a send by route template and status, times it, counts its message queued, shows every queue, and names no id, key or phone number",
    async () => {
      const server = await serve({ SQLITE_PATH: join(dir, "metrics.sqlite"), WORKER_POLL_MS: "50" })
      servers.push(server)
      const sent = await fetch(`${server.origin}/v1/messaging/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
        body: JSON.stringify({ to: phone, sender_id: "Sendline", body: "Metrics", market: "AU" })
      })
      expect(sent.status).toBe(201)
      const message = ((await sent.json()) as { data: { id: string; account_id: string } }).data

      const scrape = async () => {
        const scraped = await fetch(`${server.origin}/metrics`)
        expect(scraped.status).toBe(200)
        expect(scraped.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
        return parsePrometheusTextFormat(await scraped.text())
      }
      // The send is the only request before the first scrape: the latency histogram has its series only
      // (the parser merges a histogram's labelled series into one, dropping their labels, sum and count).
      const families = await scrape()
      const family = (name: string, type: Family["type"], of = families): Family => {
        const found = of.find((f) => f.name === name)
        expect(found, name).toBeDefined()
        expect(found!.type, name).toBe(type)
        return found!
      }
      const series = (of: Family, labels: Record<string, string>) =>
        of.metrics.filter((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value))

      const send = { method: "POST", route: "/v1/messaging/messages", status: "201" }
      expect(series(family("sendline_http_requests_total", "COUNTER"), send).map((m) => m.value)).toEqual(["1"])
      const [latency] = family("sendline_http_request_duration_seconds", "HISTOGRAM").metrics
      // one request: in the +Inf bucket (the count), and in every bucket from its time on
      const buckets = Object.entries(latency?.buckets ?? {})
        .map(([le, n]) => [le === "+Inf" ? Infinity : Number(le), Number(n)] as const)
        .sort(([a], [b]) => a - b)
      expect(buckets.map(([le]) => le)).toEqual([
        0.001,
        0.0025,
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.25,
        0.5,
        1,
        2.5,
        5,
        10,
        Infinity
      ])
      expect(buckets.at(-1)).toEqual([Infinity, 1])
      expect(buckets.map(([, n]) => n)).toEqual([...buckets.map(([, n]) => n)].sort((a, b) => a - b))

      const queued = series(family("sendline_messages_entered_total", "COUNTER"), { status: "queued" })
      expect(Number(queued[0]?.value)).toBeGreaterThanOrEqual(1)

      const queues = ["dispatch", "scheduled", "mail", "webhook_deliveries", "expiry", "delivery_reports"]
      for (const name of ["sendline_queue_depth", "sendline_queue_oldest_due_age_seconds"]) {
        const gauges = family(name, "GAUGE").metrics
        expect(gauges.map((m) => m.labels?.queue).sort(), name).toEqual([...queues].sort())
        for (const gauge of gauges) {
          expect(Number(gauge.value), `${name} ${gauge.labels?.queue}`).toBeGreaterThanOrEqual(0)
        }
      }
      family("sendline_webhook_attempts_total", "COUNTER")
      family("sendline_store_errors_total", "COUNTER")

      // a request is labelled by its route's template, never its path: the 404 of an unknown message
      const missing = await fetch(`${server.origin}/v1/messaging/messages/msg_nothere`, {
        headers: { authorization: `Bearer ${server.key}` }
      })
      expect(missing.status).toBe(404)
      const again = await scrape()
      const requests = family("sendline_http_requests_total", "COUNTER", again)
      expect(
        series(requests, { method: "GET", route: "/v1/messaging/messages/:id", status: "404" }).map((m) => m.value)
      )
        .toEqual(["1"])
      expect(series(requests, { method: "GET", route: "/metrics", status: "200" }).map((m) => m.value)).toEqual(["1"])

      const values = [...families, ...again].flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})))
      expect(values.length).toBeGreaterThan(0)
      for (const value of values) {
        expect(value).not.toContain(message.id)
        expect(value).not.toContain(message.account_id)
        expect(value).not.toContain(server.key)
        expect(value).not.toContain(phone.slice(1))
        expect(value, "no id of any kind").not.toMatch(/\b(msg|acct|key|sk|req|evt)_[0-9A-Za-z]/)
      }
    },
    60_000
  )
})
