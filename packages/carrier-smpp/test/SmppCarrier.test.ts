import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Carrier } from "@sendline/core"
import { Segments } from "@sendline/core"
import { Cause, Effect, Either, Exit, Fiber, Logger, Option, Redacted, TestClock } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import smpp from "smpp"
import * as Receipts from "../src/Receipts.js"
import * as SmppCarrier from "../src/SmppCarrier.js"
import * as SmppUrl from "../src/SmppUrl.js"
import * as Submits from "../src/Submits.js"
import { TestSmsc } from "../src/testing/index.js"

let counter = 0
const outbound = (body: string, over: Partial<Carrier.Outbound> = {}): Carrier.Outbound => ({
  reference: `msg_${++counter}`,
  accountId: "acct_1",
  to: "+61412345678",
  senderId: "Sendline",
  body,
  encoding: Segments.count(body).encoding,
  segments: Segments.segmentsOf(body),
  market: "AU",
  ...over
})

/** The carrier bound to `smsc`, for the test's scope. */
const carrierOn = (smsc: TestSmsc.Smsc, query?: string, options: Partial<SmppCarrier.Options> = {}) =>
  SmppCarrier.make({ url: Redacted.make(smsc.url(query)), ...options })

/** The lines logged while `effect` runs (its forks too), in `lines`. */
const capturingLogs = (lines: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
    })
  )

/** Waits, in real time, until `condition` holds: for what the carrier does on events of its own. */
const eventually = (condition: Effect.Effect<boolean>): Effect.Effect<void> =>
  Effect.flatMap(
    condition,
    (holds) =>
      holds
        ? Effect.void
        : Effect.zipRight(Effect.promise(() => new Promise((r) => setTimeout(r, 5))), eventually(condition))
  )

/** Waits until the SMSC holds one bound session and the carrier knows itself bound on it (its bind answered). */
const bindsAgain = (smsc: TestSmsc.Smsc, view: SmppCarrier.SmppCarrier["Type"]) =>
  Effect.zipRight(
    smsc.until(() => smsc.boundSessions() === 1),
    eventually(Effect.map(view.state, (state) => state === "bound"))
  )

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const bytes = (...chunks: ReadonlyArray<ReadonlyArray<number> | Buffer>) =>
  Buffer.concat(chunks.map((chunk) => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))))
const repeat = (byte: ReadonlyArray<number>, times: number) => Array.from({ length: times }, () => byte).flat()

describe("SmppUrl", () => {
  it("reads the account, the query's settings and the defaults", () => {
    const account = Either.getOrThrow(
      SmppUrl.parse(
        Redacted.make("smpp://my%20id:p%40ss@smsc.example.com?system_type=SMPP&window=4&rate=50&enquire_link=15")
      )
    )
    assert.deepStrictEqual({ ...account, password: Redacted.value(account.password) }, {
      host: "smsc.example.com",
      port: 2775,
      tls: false,
      systemId: "my id",
      password: "p@ss",
      systemType: "SMPP",
      window: 4,
      maxPerSecond: 50,
      enquireLinkSeconds: 15,
      sessions: 1,
      validityMinutes: 2880
    })
    const tls = Either.getOrThrow(SmppUrl.parse(Redacted.make("smpps://id:pw@[::1]")))
    assert.deepStrictEqual([tls.host, tls.port, tls.tls, tls.window, tls.maxPerSecond], [
      "::1",
      3550,
      true,
      10,
      undefined
    ])
    assert.strictEqual(SmppUrl.location(tls), "smpps://id@[::1]:3550")
  })

  it("refuses what it cannot use, naming the problem and never the password", () => {
    const problems = [
      "http://id:hunter2@host",
      "smpp://:hunter2@host",
      "smpp://id:hunter2@host?window=0",
      "smpp://id:hunter2@host?rate=-1",
      "smpp://id:hunter2@host?colour=blue",
      "smpp://id:hunter2@host?sessions=0",
      "smpp://id:hunter2@host?sessions=33",
      "smpp://id:hunter2@host?validity=0",
      "smpp://id:hunter2@host?validity=10081",
      "not a url hunter2"
    ].map((url) => Either.getLeft(SmppUrl.parse(Redacted.make(url))))
    assert.deepStrictEqual(problems.map((p) => p._tag === "Some"), problems.map(() => true))
    for (const problem of problems) assert.notInclude(problem._tag === "Some" ? problem.value : "", "hunter2")
  })

  it("reads sessions (1 to 32) and validity in minutes (up to 7 days)", () => {
    const account = Either.getOrThrow(SmppUrl.parse(Redacted.make("smpp://id:pw@host?sessions=32&validity=90")))
    assert.deepStrictEqual([account.sessions, account.validityMinutes], [32, 90])
  })
})

describe("SmppCarrier: the session", () => {
  it.scoped("binds as a transceiver with the URL's system_id and system_type", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { view } = yield* carrierOn(smsc, "system_type=OTA")
      assert.deepStrictEqual(smsc.binds, [{ systemId: "sendline", systemType: "OTA", accepted: true }])
      assert.strictEqual(yield* view.state, "bound")
      assert.strictEqual(view.location, `smpp://sendline@127.0.0.1:${smsc.port}`)
    }))

  it.scoped("bad credentials fail the start with one line naming the status, never the password", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ users: { sendline: "the-right-one" } })
      const exit = yield* Effect.exit(Effect.scoped(carrierOn(smsc)))
      assert.isTrue(Exit.isFailure(exit))
      const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
      assert.strictEqual(failure?._tag, "SmppBindRefused")
      assert.strictEqual(
        failure?.message,
        `The SMSC at smpp://sendline@127.0.0.1:${smsc.port} refused to bind: ESME_RINVPASWD ` +
          "(check the system_id, password and system_type of CARRIER_URL)"
      )
      assert.notInclude(failure?.message ?? "", "secret")
      assert.strictEqual(smsc.binds.length, 1, "no second try at start")
    }))

  // On the live clock: each bind attempt has a timeout, which TestClock would fire while the attempt waits for its socket.
  it.live("an SMSC that cannot be reached does not stop the start; the carrier binds once it listens", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(TestSmsc.start(), (smsc) => smsc.port))
      const lines: Array<string> = []
      const { carrier, view } = yield* SmppCarrier.make({
        url: Redacted.make(`smpp://sendline:secret@127.0.0.1:${port}`),
        // a bind answered later than this on a loaded machine is tried again, the state unchanged
        // (no line of its own); the submit below, with no session bound, answers at once
        responseTimeout: "2 seconds",
        reconnectMin: "20 millis",
        reconnectMax: "50 millis"
      }).pipe(Effect.provide(capturingLogs(lines)))
      assert.strictEqual(yield* view.state, "unreachable")
      const refused = yield* Effect.either(carrier.submit(outbound("Hello")))
      assert.isTrue(
        Either.isLeft(refused) && refused.left._tag === "CarrierUnavailable",
        "not bound: left to the lease, at once"
      )
      const smsc = yield* TestSmsc.start({ port })
      yield* smsc.until(() => smsc.boundSessions() === 1)
      yield* eventually(Effect.map(view.state, (state) => state === "bound"))
      // several tries failed meanwhile: one line for the state each entered
      assert.deepStrictEqual(lines, [
        `WARN SMPP: cannot reach smpp://sendline@127.0.0.1:${port} (ECONNREFUSED); trying again, less often while it fails`,
        `INFO SMPP: bound to smpp://sendline@127.0.0.1:${port} as a transceiver (window 10)`
      ])
    })))

  it.scoped("sends enquire_link after each quiet interval of the Clock", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      yield* carrierOn(smsc, "enquire_link=20")
      assert.strictEqual(smsc.enquireLinks(), 0)
      yield* TestClock.adjust("20 seconds")
      yield* smsc.until(() => smsc.enquireLinks() === 1)
      yield* TestClock.adjust("20 seconds")
      yield* smsc.until(() => smsc.enquireLinks() === 2)
    }))

  it.scoped("binds again after the backoff when the SMSC drops the connection or unbinds", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier, view } = yield* carrierOn(smsc)
      smsc.drop()
      yield* eventually(Effect.map(view.state, (state) => state === "lost"))
      assert.strictEqual(smsc.binds.length, 1, "waits the backoff first")
      yield* TestClock.adjust("1 second")
      yield* bindsAgain(smsc, view)
      assert.strictEqual(smsc.binds.length, 2)

      smsc.unbind()
      yield* eventually(Effect.map(view.state, (state) => state === "lost"))
      yield* TestClock.adjust("1 second")
      yield* bindsAgain(smsc, view)
      assert.strictEqual(smsc.binds.length, 3)
      const receipt = yield* carrier.submit(outbound("after the rebind"))
      assert.strictEqual(receipt.carrierMessageId, smsc.messageIds.get(0))
    }))
})

describe("SmppCarrier: smpps://", () => {
  // a self-signed certificate for 127.0.0.1, made for this run
  const dir = mkdtempSync(join(tmpdir(), "sendline-smpps-"))
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem")
  ], { stdio: "ignore" })
  const tls = { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it.scoped("binds and submits over TLS, the SMSC's certificate checked against the CA given", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ tls })
      const { carrier, view } = yield* SmppCarrier.make({ url: Redacted.make(smsc.url()), tls: { ca: tls.cert } })
      assert.strictEqual(view.location, `smpps://sendline@127.0.0.1:${smsc.port}`)
      const receipt = yield* carrier.submit(outbound("over TLS"))
      assert.strictEqual(receipt.carrierMessageId, smsc.messageIds.get(0))
      assert.strictEqual(smsc.submits[0]!.shortMessage.toString("latin1"), "over TLS")
    }))

  it.scoped("a certificate no CA vouches for is refused: the SMSC is unreachable, never bound", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ tls })
      const { view } = yield* SmppCarrier.make({ url: Redacted.make(smsc.url()) })
      assert.strictEqual(yield* view.state, "unreachable")
      assert.deepStrictEqual(smsc.binds, [])
    }))
})

describe("SmppCarrier: submit_sm PDUs", () => {
  const udh = (ref: number, total: number, seq: number) => [0x05, 0x00, 0x03, ref, total, seq]

  it.scoped("a GSM-7 body: Sender ID TON 5 NPI 0, E.164 TON 1 NPI 1, data_coding 0, unpacked septets", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc)
      const receipt = yield* carrier.submit(outbound("Hello {world} €5", { senderId: "Brand 1" }))
      assert.strictEqual(receipt.carrierMessageId, smsc.messageIds.get(0))
      assert.isFalse(receipt.duplicate)
      const [submit] = smsc.submits
      assert.deepStrictEqual({ ...submit!, shortMessage: hex(submit!.shortMessage) }, {
        systemId: "sendline",
        session: 1,
        sequenceNumber: submit!.sequenceNumber,
        sourceAddrTon: 5,
        sourceAddrNpi: 0,
        sourceAddr: "Brand 1",
        destAddrTon: 1,
        destAddrNpi: 1,
        destinationAddr: "61412345678",
        esmClass: 0,
        registeredDelivery: 1,
        dataCoding: 0,
        validityPeriod: "000002000000000R",
        shortMessage: hex(bytes(
          [
            0x48,
            0x65,
            0x6c,
            0x6c,
            0x6f,
            0x20,
            0x1b,
            0x28,
            0x77,
            0x6f,
            0x72,
            0x6c,
            0x64,
            0x1b,
            0x29,
            0x20,
            0x1b,
            0x65,
            0x35
          ]
        ))
      })
    }))

  it.scoped("a UCS-2 body: data_coding 8, UTF-16BE with the emoji's surrogate pair", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc)
      yield* carrier.submit(outbound("Привет 👋"))
      const [submit] = smsc.submits
      assert.deepStrictEqual([submit!.dataCoding, submit!.esmClass, submit!.sourceAddrTon, submit!.destAddrTon], [
        8,
        0,
        5,
        1
      ])
      assert.strictEqual(
        hex(submit!.shortMessage),
        hex(
          bytes([
            0x04,
            0x1f,
            0x04,
            0x40,
            0x04,
            0x38,
            0x04,
            0x32,
            0x04,
            0x35,
            0x04,
            0x42,
            0x00,
            0x20,
            0xd8,
            0x3d,
            0xdc,
            0x4b
          ])
        )
      )
    }))

  it.scoped("a 3-part GSM-7 body: the escape pair at a boundary moves wholly to the next part, as Segments counts", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc)
      const body = "a".repeat(152) + "€" + "b".repeat(152) + "c".repeat(10)
      assert.strictEqual(Segments.segmentsOf(body), 3)
      const receipt = yield* carrier.submit(outbound(body))
      assert.strictEqual(smsc.submits.length, 3)
      assert.strictEqual(receipt.carrierMessageId, smsc.messageIds.get(0), "the first part's id is the message's")
      const ref = smsc.submits[0]!.shortMessage[3]!
      assert.deepStrictEqual(smsc.submits.map((s) => [s.esmClass, s.dataCoding, s.registeredDelivery]), [[0x40, 0, 1], [
        0x40,
        0,
        1
      ], [0x40, 0, 1]])
      assert.deepStrictEqual(smsc.submits.map((s) => hex(s.shortMessage)), [
        hex(bytes(udh(ref, 3, 1), repeat([0x61], 152))),
        hex(bytes(udh(ref, 3, 2), [0x1b, 0x65], repeat([0x62], 151))),
        hex(bytes(udh(ref, 3, 3), [0x62], repeat([0x63], 10)))
      ])
    }))

  it.scoped("a 2-part UCS-2 body: the emoji at the boundary moves wholly to the second part; each part its own reference", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc)
      const body = "ж".repeat(66) + "😀" + "ж".repeat(5)
      assert.strictEqual(Segments.segmentsOf(body), 2)
      yield* carrier.submit(outbound(body))
      yield* carrier.submit(outbound(body))
      const [first, second, third] = smsc.submits
      const ref = first!.shortMessage[3]!
      assert.deepStrictEqual([first!.dataCoding, first!.esmClass, second!.dataCoding, second!.esmClass], [
        8,
        0x40,
        8,
        0x40
      ])
      assert.strictEqual(hex(first!.shortMessage), hex(bytes(udh(ref, 2, 1), repeat([0x04, 0x36], 66))))
      assert.strictEqual(
        hex(second!.shortMessage),
        hex(bytes(udh(ref, 2, 2), [0xd8, 0x3d, 0xde, 0x00], repeat([0x04, 0x36], 5)))
      )
      assert.notStrictEqual(third!.shortMessage[3], ref, "the next message's parts have another reference")
    }))
})

describe("SmppCarrier: delivery receipts", () => {
  const stats = [
    ["DELIVRD", "delivered", undefined],
    ["UNDELIV", "undelivered", "carrier_error"],
    ["EXPIRED", "undelivered", "expired"],
    ["REJECTD", "undelivered", "rejected_by_carrier"],
    ["DELETED", "undelivered", "carrier_error"],
    ["UNKNOWN", "undelivered", "carrier_error"]
  ] as const

  it.scoped("each final stat becomes a report for its message, its error normalised by the stat without an errors map; ACCEPTD and ENROUTE change nothing", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier, inbox } = yield* carrierOn(smsc)
      for (const [i, [stat]] of stats.entries()) {
        // the first half with TLVs, the rest from the receipt's text alone
        smsc.setReceipt(() => ({ stat, err: "042", tlvs: i % 2 === 0 }))
        yield* carrier.submit(outbound(`receipt ${stat}`, { reference: `msg_${stat}` }))
      }
      smsc.setReceipt(() => ({ stat: "ENROUTE" }))
      yield* carrier.submit(outbound("still on its way", { reference: "msg_enroute" }))
      yield* smsc.until(() => smsc.receiptsAcknowledged() === stats.length + 1)
      const reports = yield* inbox.take(100)
      assert.deepStrictEqual(
        reports.map(({ at: _, ...report }) => report),
        stats.map(([stat, outcome, code], i) => ({
          reference: `msg_${stat}`,
          accountId: "acct_1",
          carrierMessageId: smsc.messageIds.get(i)!,
          outcome,
          ...(outcome === "undelivered"
            ? {
              error: {
                code,
                message: `The network reported the message ${stat} (err 042).`,
                carrier_code: `${stat}:042`
              }
            }
            : {})
        }))
      )
      assert.deepStrictEqual(yield* inbox.take(100), [])
    }))

  it.scoped("a concatenated message reports once all its parts are delivered, or at its first part not delivered", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ receipt: () => undefined })
      const { carrier, inbox } = yield* carrierOn(smsc)
      const long = "x".repeat(400)
      yield* carrier.submit(outbound(long, { reference: "msg_long" }))
      yield* carrier.submit(outbound(long, { reference: "msg_long_failing" }))
      const ids = [0, 1, 2, 3, 4, 5].map((i) => smsc.messageIds.get(i)!)
      smsc.sendReceipt(ids[1]!, { stat: "DELIVRD" })
      smsc.sendReceipt(ids[0]!, { stat: "DELIVRD" })
      smsc.sendReceipt(ids[4]!, { stat: "EXPIRED" })
      yield* smsc.until(() => smsc.receiptsAcknowledged() === 3)
      const early = yield* inbox.take(10)
      assert.deepStrictEqual(early.map((r) => [r.reference, r.outcome, r.carrierMessageId]), [[
        "msg_long_failing",
        "undelivered",
        ids[3]
      ]])
      smsc.sendReceipt(ids[2]!, { stat: "DELIVRD" })
      smsc.sendReceipt(ids[3]!, { stat: "DELIVRD" }) // after the failing part reported: nothing more
      yield* smsc.until(() => smsc.receiptsAcknowledged() === 5)
      const done = yield* inbox.take(10)
      assert.deepStrictEqual(done.map((r) => [r.reference, r.outcome, r.carrierMessageId]), [[
        "msg_long",
        "delivered",
        ids[0]
      ]])
    }))

  it.scoped("a receipt for an id this process did not submit (before a restart) reports the carrier's id alone", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { inbox } = yield* carrierOn(smsc)
      smsc.sendReceipt("0badc0de", { stat: "UNDELIV", tlvs: false })
      yield* smsc.until(() => smsc.receiptsAcknowledged() === 1)
      const [report] = yield* inbox.take(10)
      assert.deepStrictEqual({ ...report!, at: 0 }, {
        carrierMessageId: "0badc0de",
        outcome: "undelivered",
        error: {
          code: "carrier_error",
          message: "The network reported the message UNDELIV (err 000).",
          carrier_code: "UNDELIV:000"
        },
        at: 0
      })
    }))
})

describe("SmppCarrier: answers, window and rate", () => {
  it.scoped("ESME_RTHROTTLED pauses every submit for the Clock's pause, then the submit is tried again", () =>
    Effect.gen(function*() {
      let throttle = 1
      const smsc = yield* TestSmsc.start({
        answer: () => (throttle-- > 0 ? { status: smpp.errors.ESME_RTHROTTLED! } : "accept")
      })
      const { carrier } = yield* carrierOn(smsc)
      const fiber = yield* Effect.fork(carrier.submit(outbound("slow down")))
      yield* smsc.until(() => smsc.submits.length === 1)
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(smsc.submits.length, 1, "paused")
      yield* TestClock.adjust("1 millis")
      const receipt = yield* Fiber.join(fiber)
      assert.strictEqual(smsc.submits.length, 2)
      assert.strictEqual(receipt.carrierMessageId, smsc.messageIds.get(1))
    }))

  it.scoped("a transient answer every time leaves the message to the lease: CarrierUnavailable after the attempts", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: () => ({ status: smpp.errors.ESME_RTHROTTLED! }) })
      const { carrier } = yield* carrierOn(smsc)
      const fiber = yield* Effect.fork(Effect.either(carrier.submit(outbound("never now"))))
      for (let i = 1; i <= 3; i++) {
        yield* smsc.until(() => smsc.submits.length === i)
        yield* TestClock.adjust("1 second")
      }
      const answer = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        Either.getLeft(answer).pipe((e) =>
          e._tag === "Some" ? [e.value._tag, (e.value as Carrier.CarrierUnavailable).reason] : []
        ),
        ["CarrierUnavailable", "throttled"]
      )
      assert.strictEqual(smsc.submits.length, 3)
    }))

  it.scoped("at most `window` submits await their answer at once", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: () => "hold" })
      const { carrier, view } = yield* carrierOn(smsc, "window=2")
      const fibers = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => Effect.fork(carrier.submit(outbound(`held ${i}`))))
      yield* smsc.until(() => smsc.held() === 2)
      yield* Effect.yieldNow().pipe(Effect.repeatN(50))
      assert.strictEqual(smsc.submits.length, 2)
      assert.strictEqual(yield* view.outstanding, 2)
      smsc.release()
      yield* smsc.until(() => smsc.held() === 2 && smsc.submits.length === 4)
      smsc.release()
      yield* smsc.until(() => smsc.held() === 1 && smsc.submits.length === 5)
      smsc.release()
      const receipts = yield* Effect.forEach(fibers, Fiber.join)
      assert.strictEqual(new Set(receipts.map((r) => r.carrierMessageId)).size, 5)
    }))

  it.scoped("the rate cap spaces submits on the Clock", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc, "rate=2")
      const fiber = yield* Effect.fork(
        Effect.forEach([1, 2, 3, 4], (i) => carrier.submit(outbound(`paced ${i}`)), { concurrency: 4 })
      )
      yield* smsc.until(() => smsc.submits.length === 1)
      yield* Effect.yieldNow().pipe(Effect.repeatN(50))
      assert.strictEqual(smsc.submits.length, 1)
      yield* TestClock.adjust("500 millis")
      yield* smsc.until(() => smsc.submits.length === 2)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.strictEqual(smsc.submits.length, 4)
    }))

  it.scoped("a reference accepted before is answered with its first receipt and not sent again", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc)
      const message = outbound("once")
      const first = yield* carrier.submit(message)
      const again = yield* carrier.submit(message)
      assert.deepStrictEqual(again, { ...first, duplicate: true })
      assert.strictEqual(smsc.submits.length, 1)
    }))
})

describe("SmppCarrier: submits in doubt", () => {
  it.scoped("the SMSC dropping the connection with submits in the window: each in doubt, left to the lease, none lost", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: () => "hold" })
      const lines: Array<string> = []
      const { carrier, view } = yield* carrierOn(smsc, "window=10").pipe(Effect.provide(capturingLogs(lines)))
      const messages = [1, 2, 3].map((i) => outbound(`in the window ${i}`))
      const fibers = yield* Effect.forEach(messages, (m) => Effect.fork(Effect.either(carrier.submit(m))))
      yield* smsc.until(() => smsc.held() === 3)
      smsc.drop()
      const answers = yield* Effect.forEach(fibers, Fiber.join)
      for (const answer of answers) {
        assert.isTrue(Either.isLeft(answer))
        const error = Either.isLeft(answer) ? answer.left : undefined
        assert.strictEqual(error?._tag, "CarrierUnavailable")
        assert.match(error?.message ?? "", /^In doubt: the session with .* was lost before the SMSC answered/)
      }
      assert.strictEqual(yield* view.inDoubt, 3)
      assert.deepStrictEqual(lines.filter((line) => line.includes("lost")), [
        `WARN SMPP: the session with smpp://sendline@127.0.0.1:${smsc.port} was lost (the SMSC closed the connection); ` +
        `3 submits in doubt (${
          messages.map((m) => m.reference).join(", ")
        }): each message stays queued and is submitted ` +
        "again after its lease, at least once; 3 in doubt since start; binding again"
      ])
      assert.isFalse(lines.some((line) => line.includes("secret")), "the password is in no line")
      // the Dispatcher submits them again after their lease, once the carrier is bound again
      smsc.setAnswer(() => "accept")
      yield* TestClock.adjust("1 second")
      yield* bindsAgain(smsc, view)
      const receipts = yield* Effect.forEach(messages, (m) => carrier.submit(m))
      assert.deepStrictEqual(receipts.map((r) => r.duplicate), [false, false, false])
      assert.deepStrictEqual(smsc.submits.map((s) => s.shortMessage.toString("latin1")), [
        ...messages.map((m) => m.body),
        ...messages.map((m) => m.body)
      ], "every message reached the SMSC again: at least once")
    }))

  it.scoped("no answer within the response timeout is in doubt too; an answer that comes later still counts", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: () => "hold" })
      const { carrier, view } = yield* carrierOn(smsc)
      const message = outbound("slow SMSC")
      const fiber = yield* Effect.fork(Effect.either(carrier.submit(message)))
      yield* smsc.until(() => smsc.held() === 1)
      yield* TestClock.adjust("10 seconds")
      const answer = yield* Fiber.join(fiber)
      assert.isTrue(
        Either.isLeft(answer) && answer.left._tag === "CarrierUnavailable" && answer.left.reason === "timeout"
      )
      assert.strictEqual(yield* view.inDoubt, 1)
      smsc.release()
      yield* smsc.until(() => smsc.receiptsAcknowledged() === 1)
      const again = yield* carrier.submit(message)
      assert.deepStrictEqual([again.duplicate, again.carrierMessageId], [true, smsc.messageIds.get(0)])
      assert.strictEqual(smsc.submits.length, 1)
    }))
})

describe("SmppCarrier: sessions=N", () => {
  it.scoped("sessions=4 binds four transceivers; status says 4 of 4 bound; submits and receipts go through every one", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier, inbox, view } = yield* carrierOn(smsc, "sessions=4&window=8")
      assert.deepStrictEqual(smsc.binds.map((bind) => bind.accepted), [true, true, true, true])
      assert.strictEqual(smsc.boundSessions(), 4)
      assert.deepStrictEqual(yield* carrier.status!, {
        state: "bound",
        sessions: { bound: 4, configured: 4 },
        window: { inUse: 0, size: 8 }
      })
      assert.deepStrictEqual(yield* view.sessions, ["bound", "bound", "bound", "bound"])
      for (let i = 1; i <= 8; i++) yield* carrier.submit(outbound(`spread ${i}`))
      assert.deepStrictEqual(new Set(smsc.submits.map((submit) => submit.session)), new Set([1, 2, 3, 4]))
      yield* smsc.until(() => smsc.receiptsAcknowledged() === 8)
      assert.strictEqual((yield* inbox.take(100)).length, 8, "every session's receipts in the one inbox")
    }))

  it.scoped("bad credentials with sessions=3 still fail the start with SmppBindRefused", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ users: { sendline: "another" } })
      const failure = yield* Effect.flip(Effect.scoped(carrierOn(smsc, "sessions=3")))
      assert.strictEqual(failure._tag, "SmppBindRefused")
      assert.notInclude(failure.message, "secret")
    }))

  it.scoped("one session dropped is bound again after its own backoff while the others keep submitting", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const lines: Array<string> = []
      const { carrier, view } = yield* carrierOn(smsc, "sessions=3").pipe(Effect.provide(capturingLogs(lines)))
      smsc.dropSession()
      yield* eventually(Effect.map(carrier.status!, (status) => status.sessions?.bound === 2))
      assert.strictEqual((yield* carrier.status!).state, "bound")
      assert.strictEqual(yield* view.state, "bound")
      const receipts = yield* Effect.forEach([1, 2, 3, 4, 5, 6], (i) => carrier.submit(outbound(`meanwhile ${i}`)), {
        concurrency: 6
      })
      assert.strictEqual(receipts.length, 6, "no submit failed")
      assert.isFalse(smsc.submits.some((submit) => submit.session === 1), "none on the dropped session")
      assert.strictEqual(smsc.binds.length, 3, "not bound again before its backoff")
      yield* TestClock.adjust("1 second")
      yield* smsc.until(() => smsc.boundSessions() === 3)
      yield* eventually(Effect.map(carrier.status!, (status) => status.sessions?.bound === 3))
      assert.strictEqual(smsc.binds.length, 4)
      assert.strictEqual(yield* view.inDoubt, 0)
      assert.strictEqual(lines.filter((line) => / \(session \d of 3\) was lost/.test(line)).length, 1)
    }))

  it.scoped("a session lost settles its own submits in doubt; the other session's are answered", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: () => "hold" })
      const { carrier, view } = yield* carrierOn(smsc, "sessions=2")
      const fibers = yield* Effect.forEach(
        [1, 2],
        (i) => Effect.fork(Effect.either(carrier.submit(outbound(`held ${i}`)))),
        { concurrency: 2 }
      )
      yield* smsc.until(() => smsc.held() === 2)
      assert.deepStrictEqual(smsc.submits.map((submit) => submit.session).sort(), [1, 2], "one on each session")
      smsc.dropSession()
      yield* eventually(Effect.map(view.inDoubt, (n) => n === 1))
      smsc.release()
      const answers = yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(answers.map((answer) => Either.isRight(answer) ? "accepted" : answer.left._tag).sort(), [
        "CarrierUnavailable",
        "accepted"
      ])
    }))

  it.scoped("the window holds for the carrier as a whole: at most `window` awaiting their answer across sessions", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: () => "hold" })
      const { carrier, view } = yield* carrierOn(smsc, "sessions=3&window=2")
      const fibers = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => Effect.fork(carrier.submit(outbound(`held ${i}`))))
      yield* smsc.until(() => smsc.held() === 2)
      yield* Effect.yieldNow().pipe(Effect.repeatN(50))
      assert.strictEqual(smsc.submits.length, 2)
      assert.strictEqual(new Set(smsc.submits.map((submit) => submit.session)).size, 2, "the least busy sessions")
      assert.strictEqual(yield* view.outstanding, 2)
      assert.deepStrictEqual((yield* carrier.status!).window, { inUse: 2, size: 2 })
      smsc.release()
      yield* smsc.until(() => smsc.held() === 2 && smsc.submits.length === 4)
      smsc.release()
      yield* smsc.until(() => smsc.held() === 1 && smsc.submits.length === 5)
      smsc.release()
      yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual((yield* carrier.status!).window, { inUse: 0, size: 2 })
    }))

  it.scoped("the rate cap holds for the carrier as a whole, on the Clock", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier } = yield* carrierOn(smsc, "sessions=3&rate=2")
      const fiber = yield* Effect.fork(
        Effect.forEach([1, 2, 3, 4], (i) => carrier.submit(outbound(`paced ${i}`)), { concurrency: 4 })
      )
      yield* smsc.until(() => smsc.submits.length === 1)
      yield* Effect.yieldNow().pipe(Effect.repeatN(50))
      assert.strictEqual(smsc.submits.length, 1)
      yield* TestClock.adjust("500 millis")
      yield* smsc.until(() => smsc.submits.length === 2)
      yield* Effect.yieldNow().pipe(Effect.repeatN(50))
      assert.strictEqual(smsc.submits.length, 2)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.strictEqual(smsc.submits.length, 4)
    }))

  it.scoped("the SMSC's cap of submits a second per session answers ESME_RTHROTTLED over it", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ maxPerSecondPerSession: 1 })
      const { carrier } = yield* carrierOn(smsc, "sessions=2")
      yield* Effect.forEach([1, 2], (i) => carrier.submit(outbound(`within the cap ${i}`)))
      yield* Effect.fork(carrier.submit(outbound("over the cap")))
      yield* smsc.until(() => smsc.submits.length === 3)
      yield* eventually(Effect.map(carrier.status!, (status) => status.state === "throttled"))
      assert.deepStrictEqual(smsc.submits.map((submit) => submit.session), [1, 2, 1])
    }))
})

describe("SmppCarrier: status", () => {
  it.scoped("no session bound: status is connecting and a submit answers CarrierUnavailable at once", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const { carrier, view } = yield* carrierOn(smsc, "sessions=2")
      smsc.drop()
      yield* eventually(Effect.map(carrier.status!, (status) => status.state === "connecting"))
      assert.deepStrictEqual((yield* carrier.status!).sessions, { bound: 0, configured: 2 })
      assert.strictEqual(yield* view.state, "lost")
      // on the TestClock, which does not move here: an answer that waited for a timer would never come
      const refused = yield* Effect.flip(carrier.submit(outbound("nobody bound")))
      assert.strictEqual(refused._tag, "CarrierUnavailable")
      assert.strictEqual(refused.message, `Not bound to smpp://sendline@127.0.0.1:${smsc.port} (lost).`)
      assert.strictEqual(smsc.submits.length, 0)
      yield* TestClock.adjust("1 second")
      yield* eventually(Effect.map(carrier.status!, (status) => status.sessions?.bound === 2))
      assert.strictEqual((yield* carrier.status!).state, "bound")
    }))

  it.scoped("throttled during the pause after ESME_RTHROTTLED, bound again after it", () =>
    Effect.gen(function*() {
      let throttle = 1
      const smsc = yield* TestSmsc.start({
        answer: () => (throttle-- > 0 ? { status: smpp.errors.ESME_RTHROTTLED! } : "accept")
      })
      const { carrier } = yield* carrierOn(smsc)
      const fiber = yield* Effect.fork(carrier.submit(outbound("slow down")))
      yield* eventually(Effect.map(carrier.status!, (status) => status.state === "throttled"))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.strictEqual((yield* carrier.status!).state, "bound")
    }))
})

describe("SmppCarrier: refusals normalised", () => {
  const rows = [
    [0x0b, "invalid_destination", false, "ESME_RINVDSTADR (0x0000000B)"],
    [0x50, "invalid_destination", false, "ESME_RINVDSTTON (0x00000050)"],
    [0x51, "invalid_destination", false, "ESME_RINVDSTNPI (0x00000051)"],
    [0x0a, "sender_not_allowed", true, "ESME_RINVSRCADR (0x0000000A)"],
    [0x48, "sender_not_allowed", true, "ESME_RINVSRCTON (0x00000048)"],
    [0x49, "sender_not_allowed", true, "ESME_RINVSRCNPI (0x00000049)"],
    [0x45, "rejected_by_carrier", true, "ESME_RSUBMITFAIL (0x00000045)"],
    [0x0400, "rejected_by_carrier", true, "0x00000400"]
  ] as const

  it.scoped("each command status of the table: its code, its failover and carrier_code smpp:0x…, not tried again", () =>
    Effect.gen(function*() {
      const destinations = Object.fromEntries(rows.map(([status], i) => [`6140000000${i}`, status]))
      const smsc = yield* TestSmsc.start({ answer: TestSmsc.answerBy({ destinations }) })
      const { carrier } = yield* carrierOn(smsc)
      const refusals = yield* Effect.forEach(
        rows,
        (_, i) =>
          Effect.flip(carrier.submit(outbound("refused", { to: `+6140000000${i}` }))).pipe(
            Effect.map((refused): ReadonlyArray<unknown> =>
              refused._tag === "CarrierRefused"
                ? [refused.code, refused.failover, refused.carrierCode, refused.message]
                : [refused._tag]
            )
          )
      )
      assert.deepStrictEqual(
        refusals,
        rows.map(([status, code, failover, name]): ReadonlyArray<unknown> => [
          code,
          failover,
          `smpp:0x${status.toString(16).toUpperCase().padStart(8, "0")}`,
          `The SMSC refused the message: ${name}.`
        ])
      )
      assert.strictEqual(smsc.submits.length, rows.length, "a refusal is not tried again")
    }))

  it.scoped("a status for the source: sender_not_allowed, failover", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ answer: TestSmsc.answerBy({ sources: { Blocked: 0x0a } }) })
      const { carrier } = yield* carrierOn(smsc)
      const refused = yield* Effect.flip(carrier.submit(outbound("from a blocked sender", { senderId: "Blocked" })))
      assert.deepStrictEqual(refused._tag === "CarrierRefused" ? [refused.code, refused.failover] : [], [
        "sender_not_allowed",
        true
      ])
      yield* carrier.submit(outbound("from another"))
    }))

  it.scoped("0x14, 0x08 and ESME_RX_T_APPN are 'not now' as 0x58 is: the pause and the tries, then CarrierUnavailable", () =>
    Effect.gen(function*() {
      const statuses = [smpp.errors.ESME_RMSGQFUL!, smpp.errors.ESME_RSYSERR!, smpp.errors.ESME_RX_T_APPN!]
      for (const status of statuses) {
        const smsc = yield* TestSmsc.start({ answer: () => ({ status }) })
        const { carrier } = yield* carrierOn(smsc)
        const fiber = yield* Effect.fork(Effect.flip(carrier.submit(outbound("not now"))))
        for (let i = 1; i <= 3; i++) {
          yield* smsc.until(() => smsc.submits.length === i)
          yield* TestClock.adjust("1 second")
        }
        const error = yield* Fiber.join(fiber)
        assert.deepStrictEqual([error._tag, error._tag === "CarrierUnavailable" ? error.reason : ""], [
          "CarrierUnavailable",
          "unavailable"
        ])
      }
    }))

  it.scoped("ESME_RINVBNDSTS drops the session that answered it; the part goes to another session and is accepted", () =>
    Effect.gen(function*() {
      let first = true
      const smsc = yield* TestSmsc.start({
        answer: () => {
          if (!first) return "accept"
          first = false
          return { status: smpp.errors.ESME_RINVBNDSTS! }
        }
      })
      const { carrier } = yield* carrierOn(smsc, "sessions=2")
      const receipt = yield* carrier.submit(outbound("bound after all"))
      assert.strictEqual(receipt.carrierMessageId, smsc.messageIds.get(1))
      assert.notStrictEqual(smsc.submits[0]!.session, smsc.submits[1]!.session)
      yield* smsc.until(() => smsc.boundSessions() === 1)
      yield* TestClock.adjust("1 second")
      yield* smsc.until(() => smsc.boundSessions() === 2)
    }))
})

describe("SmppCarrier: receipts' errors and validity", () => {
  it.scoped("an undelivered receipt's err maps through the carrier's errors map; carrier_code keeps stat:err", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start({ receipt: () => undefined })
      const { carrier, inbox } = yield* carrierOn(smsc, undefined, { errors: { "001": "unknown_subscriber" } })
      yield* carrier.submit(outbound("to a number that is not", { reference: "msg_mapped" }))
      yield* carrier.submit(outbound("another err", { reference: "msg_unmapped" }))
      smsc.sendReceipt(smsc.messageIds.get(0)!, { stat: "UNDELIV", err: "001" })
      smsc.sendReceipt(smsc.messageIds.get(1)!, { stat: "UNDELIV", err: "002" })
      yield* smsc.until(() => smsc.receiptsAcknowledged() === 2)
      const reports = yield* inbox.take(10)
      assert.deepStrictEqual(reports.map((report) => [report.reference, report.error]), [
        ["msg_mapped", {
          code: "unknown_subscriber",
          message: "The network reported the message UNDELIV (err 001).",
          carrier_code: "UNDELIV:001"
        }],
        ["msg_unmapped", {
          code: "carrier_error",
          message: "The network reported the message UNDELIV (err 002).",
          carrier_code: "UNDELIV:002"
        }]
      ])
    }))

  it("a receipt without err: the code by its stat, carrier_code the stat alone", () => {
    assert.deepStrictEqual(Receipts.error({ id: "1", stat: "EXPIRED", err: undefined }, { "001": "barred" }), {
      code: "expired",
      message: "The network reported the message EXPIRED.",
      carrier_code: "EXPIRED"
    })
  })

  it.scoped("every submit_sm carries a relative validity_period: 48 hours by default, `validity` minutes when set", () =>
    Effect.gen(function*() {
      const smsc = yield* TestSmsc.start()
      const byDefault = yield* carrierOn(smsc)
      yield* byDefault.carrier.submit(outbound("x".repeat(200)))
      const set = yield* carrierOn(smsc, "validity=90")
      yield* set.carrier.submit(outbound("ninety minutes"))
      assert.deepStrictEqual(smsc.submits.map((submit) => submit.validityPeriod), [
        "000002000000000R",
        "000002000000000R",
        "000000013000000R"
      ])
      assert.strictEqual(Submits.validityPeriod(7 * 24 * 60), "000007000000000R")
    }))
})
