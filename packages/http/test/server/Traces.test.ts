/**
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set, a real `sendline serve` exports its spans over OTLP/HTTP
 * (JSON) to a collector: here a `node:http` receiver on 127.0.0.1. A send is one trace: the
 * request's server span, the `Messaging.send` use case under it, and SQL statements (`sql.execute`)
 * under those, the batched ones included. SIGTERM flushes what the exporter still holds.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server as HttpServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve } from "../support/Processes.js"

/** A span as OTLP's JSON encoding carries it (ids in hex). */
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

interface TraceRequest {
  readonly resourceSpans: ReadonlyArray<{ readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }> }>
}

/** A collector that keeps every span posted to `/v1/traces` as JSON, and answers 200. */
const collector = async () => {
  const spans: Array<Span> = []
  const requests: Array<string> = []
  const server: HttpServer = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      requests.push(`${request.method} ${request.url} ${request.headers["content-type"]}`)
      if (request.method === "POST" && request.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as TraceRequest
        for (const resource of body.resourceSpans) {
          for (const scope of resource.scopeSpans) for (const span of scope.spans) spans.push(span)
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  const { port } = server.address() as { port: number }
  return {
    origin: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((closed) => server.close(() => closed()))
  }
}

describe("a server with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-traces-"))
  const cleanup: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    await Promise.all(cleanup.map((f) => f()))
    rmSync(dir, { recursive: true, force: true })
  })

  it("exports a send as one trace: the request span, Messaging.send under it, SQL statements under them", async () => {
    const receiver = await collector()
    cleanup.push(receiver.close)
    const server = await serve({
      SQLITE_PATH: join(dir, "traces.sqlite"),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
      OTEL_BSP_SCHEDULE_DELAY: "100"
    })
    cleanup.push(server.kill)
    const sent = await fetch(`${server.origin}/v1/messaging/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
      body: JSON.stringify({ to: "+61412345678", sender_id: "Sendline", body: "Traced", market: "AU" })
    })
    expect(sent.status).toBe(201)
    expect(await server.stop(), "SIGTERM: a clean exit, the exporter flushed").toBe(0)
    expect(server.output()).toContain("Traces: exported over OTLP/HTTP to")
    expect(
      receiver.requests.every((r) => r.startsWith("POST /v1/traces application/json")),
      receiver.requests.join("; ")
    )
      .toBe(true)

    const { spans } = receiver
    const requestSpan = spans.find((s) => s.name === "POST /v1/messaging/messages")
    expect(requestSpan, spans.map((s) => s.name).join(", ")).toBeDefined()
    expect(requestSpan!.kind, "a server span").toBe(2)
    const inTrace = spans.filter((s) => s.traceId === requestSpan!.traceId)
    const byId = new Map(inTrace.map((s) => [s.spanId, s]))
    /** The names of a span's ancestors in the trace, nearest first. */
    const ancestors = (span: Span): Array<string> => {
      const names: Array<string> = []
      for (
        let parent = byId.get(span.parentSpanId ?? "");
        parent !== undefined;
        parent = byId.get(parent.parentSpanId ?? "")
      ) {
        names.push(parent.name)
      }
      return names
    }

    const send = inTrace.find((s) => s.name === "Messaging.send")
    expect(send, inTrace.map((s) => s.name).join(", ")).toBeDefined()
    expect(ancestors(send!)).toContain("POST /v1/messaging/messages")
    const statements = inTrace.filter((s) => s.name === "sql.execute")
    expect(statements.length, inTrace.map((s) => s.name).join(", ")).toBeGreaterThan(0)
    for (const statement of statements) expect(ancestors(statement).at(-1)).toBe("POST /v1/messaging/messages")
    expect(statements.some((s) => ancestors(s).includes("Messaging.send")), "the message's insert, under the use case")
      .toBe(true)
    // the request span names its route, never its path's ids, query or headers
    const attributes = Object.fromEntries(
      (requestSpan!.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])
    )
    expect(attributes["http.route"]).toBe("/v1/messaging/messages")
    expect(Number(attributes["http.response.status_code"])).toBe(201)
    expect(JSON.stringify(requestSpan)).not.toContain(server.key)
  }, 60_000)
})
