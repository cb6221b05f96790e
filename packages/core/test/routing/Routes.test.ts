import { assert, describe, it } from "@effect/vitest"
import { Routes } from "@sendline/core"
import { Either, Option } from "effect"

/** CONTRACT §11's example file. */
const example = `{ "carriers": {
    "acme":   { "url": "smpp://acme_sms:\${ACME_PASSWORD}@smpp.acme.example:2775?window=10&rate=50&sessions=2" },
    "backup": { "url": "smpps://b:\${BACKUP_PASSWORD}@smpp.backup.example", "errors": { "001": "unknown_subscriber" } },
    "sim":    { "url": "simulated:" } },
  "routes": [
    { "market": "AU", "carriers": ["acme", "backup"] },
    { "market": "AU", "prefix": "+6147", "carriers": ["backup"] },
    { "market": "NZ", "carriers": [{ "carrier": "acme", "weight": 3 }, { "carrier": "backup", "weight": 1 }] },
    { "market": "*", "carriers": ["sim"] } ] }`

const problems = (file: unknown) => Either.getLeft(Routes.decode(JSON.stringify(file))).pipe(Option.getOrThrow)

const route = (fields: Partial<Routes.Route> & Pick<Routes.Route, "market">): Routes.Route => ({
  carriers: [{ carrier: "acme" }],
  ...fields
})

/** The index in `routes` of the route `message` takes, or -1 for none. */
const selected = (routes: ReadonlyArray<Routes.Route>, message: Routes.Routed) =>
  Option.match(Routes.select(routes, message), { onNone: () => -1, onSome: (r) => routes.indexOf(r) })

const au = { market: "AU", to: "+61471234567", senderId: "Acme" }

describe("Routes.decode", () => {
  it("reads CONTRACT §11's example: names alone and weighted carriers, errors maps, sender_id as senderId", () => {
    const file = Either.getOrThrow(Routes.decode(example))
    assert.deepStrictEqual(Object.keys(file.carriers), ["acme", "backup", "sim"])
    assert.deepStrictEqual(file.carriers.backup, {
      url: "smpps://b:${BACKUP_PASSWORD}@smpp.backup.example",
      errors: { "001": "unknown_subscriber" }
    })
    assert.deepStrictEqual(file.routes, [
      { market: "AU", carriers: [{ carrier: "acme" }, { carrier: "backup" }] },
      { market: "AU", prefix: "+6147", carriers: [{ carrier: "backup" }] },
      { market: "NZ", carriers: [{ carrier: "acme", weight: 3 }, { carrier: "backup", weight: 1 }] },
      { market: "*", carriers: [{ carrier: "sim" }] }
    ])
    const withSender = Routes.decode(JSON.stringify({
      carriers: { acme: { url: "simulated:" } },
      routes: [{ market: "AU", sender_id: "Acme", carriers: ["acme"] }]
    }))
    assert.deepStrictEqual(Either.getOrThrow(withSender).routes, [
      { market: "AU", senderId: "Acme", carriers: [{ carrier: "acme" }] }
    ])
  })

  it("bad JSON: one line", () => {
    const lines = Either.getLeft(Routes.decode(`{ "carriers": `)).pipe(Option.getOrThrow)
    assert.strictEqual(lines.length, 1)
    assert.match(lines[0]!, /JSON/)
  })

  it("every problem at once, one line each with its path in the file", () => {
    assert.deepStrictEqual(
      problems({
        carriers: {
          Acme: { url: "simulated:" },
          ok: { url: " ", errors: { "001": "unknown_subscriber", "002": "gone" }, password: "x" }
        },
        routes: [
          { market: "au", carriers: ["ok"] },
          { market: "AU", prefix: "6147", carriers: [{ carrier: "ok", weight: 0 }] },
          { market: "NZ", senderId: "Acme", carriers: [{ carrier: "ok", weight: 1.5 }, 3] },
          { market: "SG", carriers: ["ok"], note: "" },
          { market: "GB", sender_id: "Acme Holdings", carriers: ["ok"] }
        ],
        version: 2
      }),
      [
        `version: is unexpected, expected: "carriers" | "routes"`,
        "carriers.Acme: is unexpected, expected: a carrier's name: 1 to 32 lower-case letters, digits, _ or -",
        `carriers.ok.password: is unexpected, expected: "url" | "errors"`,
        `carriers.ok.url: Expected a string with no leading or trailing whitespace, actual " "`,
        "carriers.ok.errors.002: must be a normalised code (invalid_destination, unknown_subscriber, " +
        "absent_subscriber, barred, blocked_content, sender_not_allowed, expired, rejected_by_carrier, " +
        "carrier_error, no_route)",
        `routes.0.market: market must be "*" or a market code`,
        "routes.1.prefix: prefix must be + and 1 to 14 digits",
        "routes.1.carriers.0.weight: Expected a number between 1 and 1000, actual 0",
        `routes.2.senderId: is unexpected, expected: "market" | "prefix" | "sender_id" | "carriers"`,
        "routes.2.carriers.0.weight: Expected an integer, actual 1.5",
        `routes.2.carriers.1: a route's carrier is its name or { "carrier": name, "weight": 1 to 1000 }`,
        `routes.3.note: is unexpected, expected: "market" | "prefix" | "sender_id" | "carriers"`,
        "routes.4.sender_id: sender_id must be 1–11 letters, digits or spaces, with at least one letter and no " +
        "leading or trailing space."
      ]
    )
  })

  it("a route with no carrier, an empty Sender ID, a carrier without its URL: each named by its path", () => {
    assert.deepStrictEqual(
      problems({
        carriers: { acme: {} },
        routes: [{ market: "AU", sender_id: "", carriers: [] }, { market: "*", carriers: [{ weight: 2 }] }]
      }),
      [
        "carriers.acme.url: is missing",
        "routes.0.sender_id: sender_id must be 1–11 letters, digits or spaces, with at least one letter and no " +
        "leading or trailing space.",
        "routes.0.carriers.0: is missing",
        "routes.1.carriers.0.carrier: is missing"
      ]
    )
  })
})

describe("Routes.select", () => {
  const routes = [
    route({ market: "*" }),
    route({ market: "AU" }),
    route({ market: "AU", prefix: "+614" }),
    route({ market: "AU", prefix: "+6147" }),
    route({ market: "AU", senderId: "Acme" }),
    route({ market: "NZ" })
  ]

  it("the Sender ID beats the longest prefix, which beats a shorter one, the market and *", () => {
    assert.strictEqual(selected(routes, au), 4)
    assert.strictEqual(selected(routes, { ...au, senderId: "Other" }), 3)
    assert.strictEqual(selected(routes, { ...au, senderId: "Other", to: "+61412345678" }), 2)
    assert.strictEqual(selected(routes, { ...au, senderId: "Other", to: "+61212345678" }), 1)
    assert.strictEqual(selected(routes, { market: "NZ", to: "+64211234567", senderId: "Acme" }), 5)
    assert.strictEqual(selected(routes, { market: "SG", to: "+6581234567", senderId: "Acme" }), 0)
  })

  it("a Sender ID matches exactly; a prefix of * beats a market without one", () => {
    assert.strictEqual(selected(routes, { ...au, senderId: "acme" }), 3, "case matters")
    const starPrefix = [route({ market: "AU" }), route({ market: "*", prefix: "+6147" })]
    assert.strictEqual(selected(starPrefix, au), 1)
    assert.strictEqual(selected(starPrefix, { ...au, to: "+61412345678" }), 0)
  })

  it("among equals, the first in the file", () => {
    const equals = [
      route({ market: "AU", carriers: [{ carrier: "first" }] }),
      route({ market: "AU", carriers: [{ carrier: "second" }] }),
      route({ market: "AU", prefix: "+6147", carriers: [{ carrier: "third" }] }),
      route({ market: "AU", prefix: "+6147", carriers: [{ carrier: "fourth" }] })
    ]
    assert.strictEqual(selected(equals, { ...au, to: "+61212345678" }), 0)
    assert.strictEqual(selected(equals, au), 2)
  })

  it("no route when the market's routes all need a prefix or a Sender ID the message lacks", () => {
    const narrow = [
      route({ market: "AU", prefix: "+6147" }),
      route({ market: "AU", senderId: "Acme" }),
      route({ market: "NZ" })
    ]
    assert.strictEqual(selected(narrow, { ...au, to: "+61412345678", senderId: "Other" }), -1)
    assert.strictEqual(selected(narrow, { market: "SG", to: "+6581234567", senderId: "Acme" }), -1, "no route of SG")
    assert.strictEqual(
      selected([...narrow, route({ market: "*" })], { ...au, senderId: "Other", to: "+61412345678" }),
      3
    )
  })
})

describe("Routes.check", () => {
  const markets = ["AU", "NZ", "SG", "GB"]

  it("a sound file has no problem; * covers every served market", () => {
    const file = Either.getOrThrow(Routes.decode(example))
    assert.deepStrictEqual(Routes.check(Object.keys(file.carriers), file.routes, markets), [])
  })

  it("an unknown carrier, an unserved market and a served market with no route, one line each", () => {
    const routes = [
      route({ market: "AU", carriers: [{ carrier: "acme" }, { carrier: "ghost" }] }),
      route({ market: "NZ" }),
      route({ market: "US" }),
      route({ market: "GB", prefix: "+447" })
    ]
    assert.deepStrictEqual(Routes.check(["acme"], routes, markets), [
      `routes.0 (AU) names the carrier "ghost", which "carriers" does not configure`,
      "routes.2 is for the market US, which is not served (served: AU, NZ, SG, GB)",
      `the market SG has no route (add one, or a route for "*")`
    ])
    assert.deepStrictEqual(
      Routes.check(["acme"], [...routes, route({ market: "*" })], markets),
      [
        `routes.0 (AU) names the carrier "ghost", which "carriers" does not configure`,
        "routes.2 is for the market US, which is not served (served: AU, NZ, SG, GB)"
      ],
      "* covers SG"
    )
  })
})

describe("Routes.interpolate", () => {
  it("inserts each ${NAME} percent-encoded, so any password fits", () => {
    assert.deepStrictEqual(
      Routes.interpolate("smpp://acme_sms:${ACME_PASSWORD}@smpp.acme.example:2775?system_type=${TYPE}", {
        ACME_PASSWORD: "p@ss:w/rd",
        TYPE: "a b&c"
      }),
      Either.right("smpp://acme_sms:p%40ss%3Aw%2Frd@smpp.acme.example:2775?system_type=a%20b%26c")
    )
    assert.deepStrictEqual(Routes.interpolate("simulated:", {}), Either.right("simulated:"))
  })

  it("names every missing variable once", () => {
    assert.deepStrictEqual(
      Routes.interpolate("smpp://${USER}:${PASSWORD}@${HOST}/${USER}", { HOST: "smsc.example" }),
      Either.left(["USER", "PASSWORD"])
    )
  })
})
