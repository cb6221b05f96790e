/**
 * Several carriers (`ROUTES_FILE`, CONTRACT §11) on real `sendline` processes: every problem of a
 * routes file stops `serve` with one line each and a non-zero exit, never a password; `routes
 * check` prints the routes in the order they match and the route and carriers of a message; a
 * server on two simulated carriers sends through both, the simulated carrier's codes reaching the
 * API as `failed`/`undelivered` with `error.carrier_code`; `/ready` names each carrier and answers
 * 503 when a routed market's only carrier (an SMSC) stops; `/metrics` shows the carriers' series.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { TestSmsc } from "@sendline/carrier-smpp/testing"
import { Routes } from "@sendline/core"
import { ConfigProvider, Effect, Either, Exit, Option, Redacted, Scope } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Routing from "../../src/server/Routing.js"
import { messageOnce, sendline, sendMessage, serve, type Server } from "../support/Processes.js"
import { patience } from "../support/Waiting.js"

const dir = mkdtempSync(join(tmpdir(), "sendline-routing-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A routes file of `routes` in the test's directory: its path. */
const routesFile = (name: string, routes: object) => {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify(routes, null, 2))
  return path
}

const password = "pa55%w0rd@secret"

/** The lines `sendline: …` of a run's stderr. */
const lines = (stderr: string) => stderr.trim().split("\n").filter((line) => line.startsWith("sendline:"))

const started = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(() => serve({ WORKER_POLL_MS: "50", ...env })),
    (server) => Effect.promise(() => server.kill())
  )

const get = (server: Server, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.origin}${path}`)
    return { status: response.status, text: await response.text() }
  })

/** `GET /ready` until it answers `status`, or its last answer once `patience` has passed. */
const readyOnce = (server: Server, status: number) =>
  Effect.promise(async () => {
    const deadline = Date.now() + patience
    for (;;) {
      const response = await fetch(`${server.origin}/ready`)
      const body = (await response.json()) as { data?: unknown; error?: { code: string; message: string } }
      if (response.status === status || Date.now() > deadline) return { status: response.status, body }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

/** The journal of a simulated carrier: each line's reference and decision. */
const journal = (path: string) =>
  readFileSync(path, "utf8").trim().split("\n").filter((line) => line !== "").map((line) => {
    const { decision, reference } = JSON.parse(line) as { reference: string; decision: string }
    return [reference, decision]
  })

describe("Routing (in process)", () => {
  const defaults: Routing.Defaults = { simulated: { reportDelay: 2000, retain: 600_000 }, leaseMillis: 30_000 }
  const markets = ["AU", "NZ"]

  it.effect("a URL's ${NAME}s come from the ConfigProvider, percent-encoded; the table keeps the file's routes", () =>
    Effect.gen(function*() {
      const text = JSON.stringify({
        carriers: {
          acme: {
            url: "smpp://acme:${ACME_PASSWORD}@127.0.0.1:2775?window=5",
            errors: { "001": "unknown_subscriber" }
          },
          sim: { url: "simulated:?report_delay_ms=0" }
        },
        routes: [{ market: "AU", carriers: ["acme"] }, { market: "*", carriers: ["sim"] }]
      })
      const table = yield* Routing.fromText(text, markets, defaults).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ACME_PASSWORD", password]])))
      )
      const [acme, sim] = table.carriers
      expect(acme!.url.scheme === "smpp" && Redacted.value(acme!.url.account.password)).toBe(password)
      expect(acme!.errors).toEqual({ "001": "unknown_subscriber" })
      expect(Routing.location(acme!.url)).toBe("smpp://acme@127.0.0.1:2775")
      expect(sim!.url).toEqual({ scheme: "simulated", options: { reportDelay: 0, retain: 600_000 } })
      expect(table.routes.map((route) => route.market)).toEqual(["AU", "*"])
    }))

  it.effect("every problem at once, one line each, never the password", () =>
    Effect.gen(function*() {
      const text = JSON.stringify({
        carriers: {
          acme: { url: "smpp://acme:${ACME_PASSWORD}@?window=5" },
          sim: { url: "simulated:?retain_ms=1000" }
        },
        routes: [{ market: "AU", carriers: ["acme", "sim"] }]
      })
      const problems = yield* Effect.flip(Routing.fromText(text, markets, defaults)).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["ACME_PASSWORD", password]])))
      )
      expect(problems).toEqual([
        "carriers.acme.url is not a URL",
        "carriers.sim.url retain_ms must be at least twice WORKER_LEASE_MS (60000 ms)",
        `the market NZ has no route (add one, or a route for "*")`
      ])
    }))

  it("parseUrl names an unknown scheme; precedence puts a Sender ID, then the longest prefix, then a market first", () => {
    expect(Routing.parseUrl(Redacted.make("http://sms.example"), defaults)).toEqual(
      Either.left("has the unknown scheme http: (known: smpp://, smpps://, simulated:)")
    )
    expect(Routing.parseUrl(Redacted.make("acme"), defaults)).toEqual(
      Either.left("has no scheme (known: smpp://, smpps://, simulated:)")
    )
    const routes: ReadonlyArray<Routes.Route> = [
      { market: "*", carriers: [{ carrier: "a" }] },
      { market: "AU", carriers: [{ carrier: "a" }] },
      { market: "AU", prefix: "+614", carriers: [{ carrier: "a" }] },
      { market: "AU", prefix: "+6147", carriers: [{ carrier: "a" }] },
      { market: "AU", senderId: "Acme", carriers: [{ carrier: "a" }] }
    ]
    expect(Routes.inPrecedence(routes).map((route) => routes.indexOf(route))).toEqual([4, 3, 2, 1, 0])
    // the order Routes.select chooses by: the first of the precedence that may take a message
    expect(Routes.select(routes, { market: "AU", to: "+61471234567", senderId: "Other" })).toEqual(
      Option.some(routes[3])
    )
  })
})

describe("sendline serve with ROUTES_FILE: what stops the start", () => {
  it.live("each problem of the file is one line naming it, exit 1, never the password", () =>
    Effect.gen(function*() {
      const file = routesFile("broken", {
        carriers: {
          acme: { url: "smpp://acme:${ACME_PASSWORD}@127.0.0.1:2775?window=0" },
          backup: { url: "smpp://backup:${BACKUP_PASSWORD}@127.0.0.1" },
          web: { url: "https://sms.example/send?key=${ACME_PASSWORD}" },
          sim: { url: "simulated:?rate=5" }
        },
        routes: [
          { market: "AU", carriers: ["acme", "ghost"] },
          { market: "NZ", carriers: ["backup"] },
          { market: "SG", carriers: ["web", "sim"] }
        ]
      })
      const run = yield* Effect.promise(() =>
        sendline({ SQLITE_PATH: join(dir, "broken.sqlite"), ROUTES_FILE: file, ACME_PASSWORD: password }, "serve")
      )
      expect(run.code).toBe(1)
      expect(lines(run.stderr)).toEqual([
        `sendline: ${file}: carriers.acme.url window must be an integer from 1 to 1000`,
        `sendline: ${file}: carriers.backup.url: the environment variable BACKUP_PASSWORD is not set ` +
        "(its ${BACKUP_PASSWORD} is read from it)",
        `sendline: ${file}: carriers.web.url has the unknown scheme https: (known: smpp://, smpps://, simulated:)`,
        `sendline: ${file}: carriers.sim.url has an unknown parameter rate ` +
        "(known: submit_latency_ms, report_delay_ms, max_per_second, retain_ms, journal_path)",
        `sendline: ${file}: routes.0 (AU) names the carrier "ghost", which "carriers" does not configure`,
        `sendline: ${file}: the market GB has no route (add one, or a route for "*")`
      ])
      const said = run.stderr + run.stdout
      expect(said).not.toContain(password)
      expect(said).not.toContain(encodeURIComponent(password))
      expect(said).not.toContain("Listening")
    }))

  it.live("CARRIER_URL beside ROUTES_FILE stops the start, naming both, never the password", () =>
    Effect.gen(function*() {
      const file = routesFile("beside", {
        carriers: { sim: { url: "simulated:" } },
        routes: [{ market: "*", carriers: ["sim"] }]
      })
      const run = yield* Effect.promise(() =>
        sendline({
          SQLITE_PATH: join(dir, "beside.sqlite"),
          ROUTES_FILE: file,
          CARRIER_URL: `smpp://acme:${encodeURIComponent(password)}@127.0.0.1`
        }, "serve")
      )
      expect(run.code).toBe(1)
      expect(lines(run.stderr)).toEqual([
        "sendline: CARRIER_URL is set beside ROUTES_FILE: unset it (the routes file names every carrier)"
      ])
      expect(run.stderr + run.stdout).not.toContain(encodeURIComponent(password))
    }))

  it.live("a file that cannot be read, or is not JSON of the schema, is named", () =>
    Effect.gen(function*() {
      const missing = join(dir, "missing.json")
      const absent = yield* Effect.promise(() =>
        sendline({ SQLITE_PATH: join(dir, "missing.sqlite"), ROUTES_FILE: missing }, "serve")
      )
      expect(absent.code).toBe(1)
      expect(lines(absent.stderr)).toEqual([`sendline: ${missing}: cannot be read (no such file)`])
      const file = routesFile("schema", {
        carriers: { Acme: { url: "simulated:" } },
        routes: [{ market: "Australia" }]
      })
      const wrong = yield* Effect.promise(() => sendline({ ROUTES_FILE: file }, "routes", "check"))
      expect(wrong.code).toBe(1)
      expect(lines(wrong.stderr)).toEqual([
        `sendline: ${file}: carriers.Acme: is unexpected, expected: a carrier's name: 1 to 32 lower-case letters, digits, _ or -`,
        `sendline: ${file}: routes.0.market: market must be "*" or a market code`,
        `sendline: ${file}: routes.0.carriers: is missing`
      ])
    }))
})

describe("sendline routes check", () => {
  const file = routesFile("check", {
    carriers: {
      acme: { url: "smpp://acme_sms:${ACME_PASSWORD}@smpp.acme.example:2775?window=10&rate=50" },
      backup: { url: "smpps://backup:${ACME_PASSWORD}@smpp.backup.example" },
      sim: { url: "simulated:" }
    },
    routes: [
      { market: "AU", carriers: ["acme", "backup"] },
      { market: "AU", prefix: "+6147", carriers: ["backup", "acme"] },
      { market: "AU", sender_id: "Acme", carriers: ["sim"] },
      { market: "NZ", carriers: [{ carrier: "acme", weight: 3 }, { carrier: "backup", weight: 1 }] },
      { market: "*", carriers: ["sim"] }
    ]
  })
  const check = (...args: Array<string>) =>
    Effect.promise(() => sendline({ ACME_PASSWORD: password }, "routes", "check", file, ...args))

  it.live("prints the carriers without passwords and the routes most specific first; a prefix beats the market", () =>
    Effect.gen(function*() {
      const run = yield* check("--to", "+61471234567", "--market", "AU")
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(
        [
          "Carriers:",
          "  acme    smpp://acme_sms@smpp.acme.example:2775  sessions 1",
          "  backup  smpps://backup@smpp.backup.example:3550  sessions 1",
          "  sim     simulated:",
          "Routes, in the order they match (most specific first):",
          "  routes.2 (AU sender Acme) → sim",
          "  routes.1 (AU +6147) → backup, acme",
          "  routes.0 (AU) → acme, backup",
          "  routes.3 (NZ) → acme (weight 3), backup (weight 1)",
          "  routes.4 (*) → sim",
          "A message to +61471234567 in AU takes routes.1 (AU +6147) → backup, acme",
          "  tries, in order: backup, acme",
          ""
        ].join("\n")
      )
      expect(run.stdout + run.stderr).not.toContain(encodeURIComponent(password))
    }))

  it.live("a sender_id route beats the prefix and the market; another number takes the market's; weights are shown", () =>
    Effect.gen(function*() {
      const taken = (stdout: string) => stdout.split("\n").slice(-3, -1)
      const sender = yield* check("--to", "+61471234567", "--sender-id", "Acme", "--market", "AU")
      expect(taken(sender.stdout)).toEqual([
        "A message to +61471234567 from Acme in AU takes routes.2 (AU sender Acme) → sim",
        "  tries, in order: sim"
      ])
      const market = yield* check("--to", "+61412345678", "--sender-id", "Other", "--market", "AU")
      expect(taken(market.stdout)).toEqual([
        "A message to +61412345678 from Other in AU takes routes.0 (AU) → acme, backup",
        "  tries, in order: acme, backup"
      ])
      const weighted = yield* check("--to", "+64211234567", "--market", "NZ")
      expect(taken(weighted.stdout)).toEqual([
        "A message to +64211234567 in NZ takes routes.3 (NZ) → acme (weight 3), backup (weight 1)",
        "  tries first one picked by weight (acme 3 in 4, backup 1 in 4), then the others in order: acme, backup"
      ])
      const half = yield* check("--to", "+61412345678")
      expect(half.code).toBe(1)
      expect(lines(half.stderr)).toEqual([
        "sendline: --to and --market name the message to route (--sender-id too, when it matters)"
      ])
    }))
})

describe("sendline serve on two simulated carriers", () => {
  const a = join(dir, "sim_a.jsonl")
  const b = join(dir, "sim_b.jsonl")
  const file = routesFile("two", {
    carriers: {
      sim_a: { url: `simulated:?report_delay_ms=0&journal_path=${encodeURIComponent(a)}` },
      sim_b: { url: `simulated:?report_delay_ms=0&journal_path=${encodeURIComponent(b)}` }
    },
    routes: [
      { market: "AU", carriers: ["sim_a", "sim_b"] },
      { market: "AU", prefix: "+61413", carriers: ["sim_b"] },
      { market: "*", carriers: ["sim_a"] }
    ]
  })

  it.live(
    "messages go by their routes to delivered through both; the simulated codes reach the API; /ready and /metrics name both",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* started({ SQLITE_PATH: join(dir, "two.sqlite"), ROUTES_FILE: file })
        expect(server.output()).toContain("Carrier sim_a: simulated (@sendline/carrier-mock)")
        expect(server.output()).toContain(
          "Routes, most specific first: routes.1 (AU +61413) → sim_b; routes.0 (AU) → sim_a, sim_b; routes.2 (*) → sim_a"
        )
        const send = (to: string) => Effect.promise(() => sendMessage(server, { to, body: `Hello ${to}` }))
        const settled = (id: string, status: string) => Effect.promise(() => messageOnce(server, id, status))
        const viaA = yield* send("+61412345678")
        const viaB = yield* send("+61413345678")
        expect((yield* settled(viaA.id, "delivered")).status).toBe("delivered")
        expect((yield* settled(viaB.id, "delivered")).status).toBe("delivered")
        expect(journal(a)).toEqual([[viaA.id, "accepted"]])
        expect(journal(b)).toEqual([[viaB.id, "accepted"]])

        // refused about the recipient: failed at the first carrier, the second never tried
        const barred = yield* send("+61412342222")
        expect((yield* settled(barred.id, "failed")).error).toEqual({
          code: "barred",
          message: "The destination is barred from receiving messages.",
          carrier_code: "sim:barred"
        })
        // refused about the route: tried on the next carrier, then failed with the last refusal
        const sender = yield* send("+61412344444")
        expect((yield* settled(sender.id, "failed")).error).toMatchObject({
          code: "sender_not_allowed",
          carrier_code: "sim:sender_not_allowed"
        })
        expect(journal(a).filter(([ref]) => ref === barred.id || ref === sender.id)).toEqual([
          [barred.id, "refused"],
          [sender.id, "refused"]
        ])
        expect(journal(b).filter(([ref]) => ref === sender.id)).toEqual([[sender.id, "refused"]])
        for (
          const [to, status, code] of [
            ["+61412349999", "failed", "invalid_destination"],
            ["+61412343333", "failed", "blocked_content"],
            ["+61412348888", "failed", "rejected_by_carrier"],
            ["+61412340000", "undelivered", "absent_subscriber"],
            ["+61412341111", "undelivered", "unknown_subscriber"],
            ["+61412346666", "undelivered", "expired"],
            ["+61412340500", "undelivered", "carrier_error"]
          ] as const
        ) {
          const message = yield* settled((yield* send(to)).id, status)
          expect([message.status, message.error?.code, message.error?.carrier_code], to).toEqual([
            status,
            code,
            `sim:${code}`
          ])
        }

        const ready = yield* readyOnce(server, 200)
        expect(ready.body.data).toMatchObject({
          status: "ready",
          carriers: [{ name: "sim_a", state: "bound" }, { name: "sim_b", state: "bound" }]
        })
        const metrics = (yield* get(server, "/metrics")).text
        for (
          const series of [
            `sendline_carrier_submits_total{carrier="sim_a",outcome="accepted"}`,
            `sendline_carrier_submits_total{carrier="sim_a",outcome="refused"}`,
            `sendline_carrier_submits_total{carrier="sim_b",outcome="accepted"}`,
            `sendline_carrier_submit_duration_seconds_count{carrier="sim_b"}`,
            `sendline_carrier_state{carrier="sim_a",state="bound"} 1`,
            `sendline_carrier_state{carrier="sim_b",state="throttled"} 0`
          ]
        ) expect(metrics, series).toContain(series)
      })),
    120_000
  )
})

describe("sendline serve with an SMSC among its carriers", () => {
  it.live(
    "/ready names each carrier with its sessions; the SMSC stopped, 503 naming the market it was the only carrier of",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const smscScope = yield* Scope.make()
        const smsc = yield* TestSmsc.start().pipe(Scope.extend(smscScope))
        const file = routesFile("smsc", {
          carriers: { smsc: { url: smsc.url("window=10") }, sim: { url: "simulated:" } },
          routes: [
            { market: "AU", carriers: ["smsc"] },
            { market: "NZ", carriers: ["sim"] },
            { market: "SG", carriers: ["sim"] },
            { market: "GB", carriers: ["sim", "smsc"] }
          ]
        })
        const server = yield* started({ SQLITE_PATH: join(dir, "smsc.sqlite"), ROUTES_FILE: file })
        expect(server.output()).toContain(`Carrier smsc: SMPP at smpp://sendline@127.0.0.1:${smsc.port} (sessions 1)`)
        expect(server.output()).not.toContain("secret")
        const ready = yield* readyOnce(server, 200)
        expect(ready.body.data).toMatchObject({
          status: "ready",
          carriers: [
            { name: "smsc", state: "bound", sessions: { bound: 1, configured: 1 } },
            { name: "sim", state: "bound" }
          ]
        })
        const metrics = (yield* get(server, "/metrics")).text
        for (
          const series of [
            `sendline_carrier_sessions{carrier="smsc",state="bound"} 1`,
            `sendline_carrier_sessions{carrier="smsc",state="connecting"} 0`,
            `sendline_carrier_window_in_use{carrier="smsc"} 0`,
            `sendline_carrier_window_size{carrier="smsc"} 10`
          ]
        ) expect(metrics, series).toContain(series)

        yield* Scope.close(smscScope, Exit.void)
        const down = yield* readyOnce(server, 503)
        expect(down.status).toBe(503)
        expect(down.body.error).toEqual({
          code: "unavailable",
          message: "Not ready: no carrier can take messages for AU (smsc connecting)."
        })
        const after = (yield* get(server, "/metrics")).text
        expect(after).toContain(`sendline_carrier_sessions{carrier="smsc",state="connecting"} 1`)
        expect(after).toContain(`sendline_carrier_state{carrier="smsc",state="connecting"} 1`)
      })),
    120_000
  )
})
