/**
 * `GET /docs` in headless Chromium: the page lists every operation of the OpenAPI document as soon
 * as it has loaded, each group open; every request it makes goes to the server that sent it (no web
 * fonts, no CDN, no telemetry; its icon inline); and a screenshot is saved for a person to look at.
 *
 * Chromium is Debian's (`/usr/bin/chromium`), driven by `playwright-core`; `npm test` installs it
 * where it may (`scripts/test-browser.sh`). Without it the test is skipped with one loud line, and
 * fails under CI=true.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { chromium } from "playwright-core"
import * as Http from "../support/Http.js"
import * as TestServer from "../support/TestServer.js"

const executablePath = "/usr/bin/chromium"
const installed = existsSync(executablePath)
const screenshot = join(tmpdir(), "sendline-docs.png")

/** What the checks run in the page read of its DOM (this project compiles without the DOM's types). */
declare const document: {
  readonly body: { readonly innerText: string }
  readonly querySelectorAll: (selector: string) => Iterable<{ readonly type: string; readonly href: string }>
}

/**
 * How long the test waits for the page to list every operation once its HTML is parsed: ~0.5 s on
 * a loaded 2-core VM (parsing the 3.3 MB page itself took 4–8 s there). The bound is generous: what
 * the test proves is that the operations are listed without a click, not how fast a machine is.
 */
const listedWithin = 30_000

/** Every operation's summary in the document the page shows. */
const summaries = Effect.map(
  Http.request("GET", "/v1/openapi.json", { key: null }),
  (reply) =>
    Object.values(reply.json.paths as Record<string, Record<string, { readonly summary: string }>>).flatMap(
      (operations) => Object.values(operations).map((operation) => operation.summary)
    )
)

/** Headless Chromium on a fresh profile of its own (a temporary one), closed with the scope. */
const browser = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  ),
  (launched) => Effect.promise(() => launched.close())
)

if (!installed && process.env.CI !== "true") {
  // eslint-disable-next-line no-console -- the one loud line that says the test was skipped
  console.error(
    `\n!!!!! DOCS PAGE TEST SKIPPED: no Chromium at ${executablePath}. Install it: apt-get install chromium !!!!!\n`
  )
  describe.skip("GET /docs in Chromium (no Chromium: see the line above)", () => {
    it("lists every operation on load and requests nothing from another host", () => {})
  })
} else {
  layer(TestServer.layer())("GET /docs in Chromium", (it) => {
    it.effect(
      "lists every operation on load and requests nothing from another host; its icon is inline",
      () =>
        Effect.gen(function*() {
          assert.isTrue(
            installed,
            `CI=true and no Chromium at ${executablePath} (npm test installs it where it may: apt-get install chromium)`
          )
          const { url } = yield* TestServer.TestServer
          const expected = yield* summaries
          assert.isAbove(expected.length, 20, "the document's operations")
          const page = yield* Effect.flatMap(
            browser,
            (launched) => Effect.promise(() => launched.newPage({ viewport: { width: 1280, height: 900 } }))
          )
          const requested: Array<string> = []
          page.on("request", (request) => requested.push(request.url()))

          const started = performance.now()
          yield* Effect.promise(() => page.goto(`${url}/docs`, { waitUntil: "domcontentloaded" }))
          const parsedAfter = performance.now() - started
          // Every summary in the page's rendered text (where Scalar breaks long words with zero-width
          // spaces): the sidebar lists them all, each group open, without a click.
          const listed = yield* Effect.promise(() =>
            page.waitForFunction(
              (names) => {
                const shown = document.body.innerText.replaceAll("\u200b", "")
                return names.every((name) => shown.includes(name))
              },
              expected,
              { timeout: listedWithin, polling: 250 }
            ).then(() => true, () => false)
          )
          const listedAfter = performance.now() - started
          const missing = listed ? [] : yield* Effect.promise(() =>
            page.evaluate((names) => {
              const shown = document.body.innerText.replaceAll("\u200b", "")
              return names.filter((name) => !shown.includes(name))
            }, expected)
          )
          assert.deepStrictEqual(
            missing,
            [],
            `operations not listed within ${listedWithin} ms of the page being parsed`
          )

          // Whatever the page asks for once loaded (fonts, icons, telemetry) is asked for by now; a
          // request that never settles (a host that does not answer) is listed below all the same.
          yield* Effect.promise(() => page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined))
          const elsewhere = requested.filter((address) =>
            !/^(data|blob):/.test(address) && !address.startsWith(`${url}/`)
          )
          assert.deepStrictEqual(elsewhere, [], "requests to another host")
          assert.deepStrictEqual(requested.filter((address) => address.startsWith(`${url}/`)), [`${url}/docs`])

          // A page that names no icon has the browser ask for /favicon.ico itself, a request that
          // `page.on("request")` never sees: the page names one, inline.
          const icons = yield* Effect.promise(() =>
            page.evaluate(() =>
              Array.from(document.querySelectorAll("link[rel~='icon']"), (link) => ({
                type: link.type,
                inline: link.href.startsWith("data:image/svg+xml,")
              }))
            )
          )
          assert.deepStrictEqual(icons, [{ type: "image/svg+xml", inline: true }])

          // for a person to look at, not a check: a loaded machine that cannot paint it in time says so
          const saved = yield* Effect.promise(() =>
            page.screenshot({ path: screenshot }).then(() => screenshot, (error: Error) =>
              `not saved (${error.message.split("\n")[0]})`)
          )
          // eslint-disable-next-line no-console -- the page's timings, reported with each run
          console.log(
            `docs page: parsed in ${Math.round(parsedAfter)} ms, ${expected.length} operations listed ` +
              `${Math.round(listedAfter)} ms after navigation, ` +
              `${requested.length} request(s), all to ${url}; screenshot: ${saved}`
          )
        }).pipe(Effect.scoped),
      120_000
    )
  })
}
